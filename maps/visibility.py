"""Fog of war for playback: which enemy bases each side could see after a bound (6.2, 6.3).

A side sees an enemy base when one of its formations has line of sight to it over the terrain
(``Battlefield.line_of_sight``: levels and sight-blocking woods, with the 25 m edge rule) and,
in fog, rain, bright sun or at night, the base is within the 6.3 sight limit. A formation looks
from its *observer bases* (:func:`observer_bases`): the base nearest its centre and its front
rank's two ends (the engine measures sight between formation centres; the ends give a wide
formation its flanks).
Units in between are not counted here (the engine's business). When the engine records
``snapshot["visible"]`` (``{side: [base ids]}``) that is used instead.

Speed (a page of 500 bases x 30 bounds must write in seconds, not minutes):

* pairs are tried nearest first: each enemy base against its closest observer, then the next
  few, doubling the batch, and it drops out as soon as one observer sees it;
* a pair is first tried by :class:`SightProofs`, which proves most pairs seen or hidden from a
  few grid look-ups (probes 8 cells apart, then one cell apart); only pairs they cannot settle
  go to ``Battlefield.line_of_sight_many`` (the exact test);
* a side's view is kept while nobody on the map moves (:class:`SightCache`), so quiet bounds
  cost nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy import ndimage

from scenario_builder.battlefield import Battlefield
from scenario_builder.los import EDGE_M

#: the exact test samples at most this many points a line (``scenario_builder.los``)
_MAX_SAMPLES = 4096


def sight_limit_m(
    weather: str | None, time: str | None, ruleset: str | None = None
) -> float | None:
    """How far non-local troops see (None: unlimited) under the log's ruleset (default
    2mm Earth v0.9, whose 6.3 chart gives these), as the battle asked it
    (:meth:`engine.rulesets.Ruleset.sight_limit_m`).

    >>> sight_limit_m("fog", "day"), sight_limit_m("clear", "night"), sight_limit_m("rain", "night")
    (1500.0, 1000.0, 500.0)
    >>> sight_limit_m("clear", "day") is None, sight_limit_m(None, None) is None
    (True, True)
    >>> sight_limit_m("fog", "night", "medieval-d10") is None  # the d10 book limits no sight
    True
    """
    from engine.rulesets import get_ruleset

    return get_ruleset(ruleset).sight_limit_m(weather or "clear", time or "day", local=False)


class SightProofs:
    """Sound shortcuts for line of sight on one battlefield, from 3 x 3 cell neighbourhoods.

    The exact test (``scenario_builder.los``) samples the line at most half a cell apart. Here the
    line is probed at most one cell apart, so every exact sample lies within half a cell of a probe
    and hence in the probe's 3 x 3 cells:

    * **seen** when at every probe the highest level of its 3 x 3 is at most the higher end's level
      and none of its cells blocks sight (or every sample it covers is within ``edge_m`` of an
      end, where woods do not block);
    * **hidden** when at some probe at least a cell plus ``edge_m`` from both ends every cell of
      its 3 x 3 is higher than both ends, or is sight-blocking at or above the higher end's level:
      an exact sample falls within a cell of the probe, so it blocks.

    Anything else is *unsettled* and goes to the exact test.
    """

    def __init__(self, bf: Battlefield, *, edge_m: float = EDGE_M, step_cells: int = 1) -> None:
        level = np.asarray(bf.layer("level")).astype(np.int32)
        blocks = np.asarray(bf.layer("blocks_sight")).astype(bool)
        t = bf.transform
        self.x0, self.y0, self.res = float(t.c), float(t.f), float(bf.res)
        self.shape = level.shape
        self.edge_m = edge_m
        self.level = level
        # probes ``step_cells`` cells apart cover samples within step/2: the window reaches that
        # far in cells, plus one for a sample across a cell edge
        self.step = step_cells * self.res
        self.reach = step_cells // 2 + 1
        size = 2 * self.reach + 1
        self.lmax = ndimage.maximum_filter(level, size=size, mode="nearest")
        self.lmin = ndimage.minimum_filter(level, size=size, mode="nearest")
        self.wany = ndimage.maximum_filter(blocks, size=size, mode="nearest")
        low = np.iinfo(np.int32).min
        self.wmin = ndimage.minimum_filter(np.where(blocks, level, low), size=size, mode="nearest")

    def _rc(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        col = np.floor((x - self.x0) / self.res).astype(np.intp)
        row = np.floor((self.y0 - y) / self.res).astype(np.intp)
        return np.clip(row, 0, self.shape[0] - 1), np.clip(col, 0, self.shape[1] - 1)

    def settle(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per pair: 1 seen, 0 hidden, -1 unsettled (ask ``Battlefield.line_of_sight_many``)."""
        a = np.asarray(a, float).reshape(-1, 2)
        b = np.asarray(b, float).reshape(-1, 2)
        out = np.full(len(a), -1, dtype=np.int8)
        if not len(a):
            return out
        ra, ca = self._rc(a[:, 0], a[:, 1])
        rb, cb = self._rc(b[:, 0], b[:, 1])
        top = np.maximum(self.level[ra, ca], self.level[rb, cb])
        dist = np.hypot(b[:, 0] - a[:, 0], b[:, 1] - a[:, 1])
        steps = np.maximum(1, np.ceil(dist / self.step).astype(np.intp))
        buckets = 2 ** np.ceil(np.log2(steps)).astype(np.intp)
        for m in np.unique(buckets):
            idx = np.flatnonzero(buckets == m)
            t = np.linspace(0.0, 1.0, int(m) + 1)
            for start in range(0, idx.size, max(1, 1_000_000 // (int(m) + 1))):
                sel = idx[start : start + max(1, 1_000_000 // (int(m) + 1))]
                out[sel] = self._settle(a[sel], b[sel], top[sel], dist[sel], t)
        return out

    def _settle(
        self, a: np.ndarray, b: np.ndarray, top: np.ndarray, dist: np.ndarray, t: np.ndarray
    ) -> np.ndarray:
        xs = a[:, 0, None] + (b[:, 0] - a[:, 0])[:, None] * t
        ys = a[:, 1, None] + (b[:, 1] - a[:, 1])[:, None] * t
        r, c = self._rc(xs, ys)
        tp = top[:, None]
        along = dist[:, None] * t
        half = dist[:, None] / (len(t) - 1) / 2  # probe spacing / 2: how far a probe covers
        near_end = (along + half <= self.edge_m) | (dist[:, None] - along + half <= self.edge_m)
        clear = (self.lmax[r, c] <= tp) & (~self.wany[r, c] | near_end)
        seen = clear.all(axis=1)
        rim = self.edge_m + self.reach * self.res
        inner = (along >= rim) & (dist[:, None] - along >= rim)
        wall = (self.lmin[r, c] > tp) | (self.wmin[r, c] >= tp)
        # the exact test samples at most _MAX_SAMPLES points: longer lines are sampled sparser
        dense = dist / (_MAX_SAMPLES - 1) <= self.res / 2
        hidden = (wall & inner).any(axis=1) & dense
        return np.where(seen, 1, np.where(hidden, 0, -1)).astype(np.int8)


class SightCache:
    """Line of sight for many pairs on one battlefield: the proofs first, the exact test for the
    rest; and each side's last answer, reused while nobody on the map has moved."""

    def __init__(self, bf: Battlefield) -> None:
        self.bf = bf
        # coarse probes (8 cells apart, 11 x 11 windows) settle open ground and broad ridges; the
        # fine ones (a cell apart, 3 x 3) what is left; the exact test the rest
        self.proofs = (SightProofs(bf, step_cells=8), SightProofs(bf, step_cells=1))
        self.last: dict[str, tuple[bytes, list[str]]] = {}
        self.exact_pairs = 0
        self.proved_pairs = 0

    def los(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Line of sight for each pair ``a[i] -> b[i]``, as ``bf.line_of_sight_many`` answers."""
        a = np.asarray(a, float).reshape(-1, 2)
        b = np.asarray(b, float).reshape(-1, 2)
        got = self.proofs[0].settle(a, b)
        for proofs in self.proofs[1:]:
            left = np.flatnonzero(got < 0)
            if left.size:
                got[left] = proofs.settle(a[left], b[left])
        left = np.flatnonzero(got < 0)
        self.proved_pairs += len(got) - left.size
        if left.size:
            self.exact_pairs += left.size
            got[left] = self.bf.line_of_sight_many(a[left], b[left]).astype(np.int8)
        return got.astype(bool)


def seen_by(
    bf: Battlefield,
    observers: np.ndarray,
    targets: np.ndarray,
    *,
    limit_m: float | None = None,
    cache: SightCache | None = None,
) -> np.ndarray:
    """Bool per target: does any observer (N, 2) see it (M, 2) within ``limit_m``?

    >>> from maps.testing import dem_battlefield
    >>> bf = dem_battlefield("flodden")
    >>> x, y = bf.centre
    >>> seen_by(bf, np.array([[x, y]]), np.array([[x + 30, y]])).tolist()   # 30 m away
    [True]
    >>> seen_by(bf, np.array([[x, y]]), np.array([[x + 30, y]]), limit_m=20.0).tolist()
    [False]
    >>> seen_by(bf, np.empty((0, 2)), np.array([[x, y]])).tolist()
    [False]
    """
    observers = np.asarray(observers, float).reshape(-1, 2)
    targets = np.asarray(targets, float).reshape(-1, 2)
    seen = np.zeros(len(targets), dtype=bool)
    if len(observers) == 0 or len(targets) == 0:
        return seen
    los = (cache or SightCache(bf)).los
    d = np.hypot(
        targets[:, None, 0] - observers[None, :, 0], targets[:, None, 1] - observers[None, :, 1]
    )
    order = np.argsort(d, axis=1, kind="stable")  # (M, N) observers by distance per target
    reach = np.take_along_axis(d, order, axis=1) <= (math.inf if limit_m is None else limit_m)
    pending = np.arange(len(targets))
    k, batch = 0, 1
    n = len(observers)
    while pending.size and k < n:
        cols = order[pending, k : k + batch]  # (P, b)
        ok_reach = reach[pending, k : k + batch]
        tgt = np.repeat(pending, cols.shape[1])[ok_reach.ravel()]
        obs = cols.ravel()[ok_reach.ravel()]
        if len(obs):
            ok = los(observers[obs], targets[tgt])
            hit = np.zeros(len(targets), dtype=bool)
            hit[tgt[ok]] = True
            seen |= hit
        # a target whose next observer is already beyond the limit is settled: unseen
        alive = ~seen[pending]
        if k + batch < n:
            alive &= reach[pending, min(k + batch, n - 1)]
        pending = pending[alive]
        k += batch
        batch *= 2
    return seen


def observer_bases(snapshot: Mapping[str, Any], ids: Sequence[str]) -> list[str]:
    """The bases a side looks from: per formation, its centre base and its front rank's ends.

    The engine measures sight between formation centres (``engine.sight``); the front corners
    give a wide formation its flanks. The front is the formation's own facing (its first
    base's); a formation of three bases or fewer looks from every base.
    """
    by_form: dict[str, list[str]] = {}
    for bid in ids:
        by_form.setdefault(str(snapshot["bases"][bid].get("formation") or bid), []).append(bid)
    out: list[str] = []
    for _, members in sorted(by_form.items()):
        if len(members) <= 3:
            out.extend(members)
            continue
        xy = np.array([[snapshot["bases"][m]["x"], snapshot["bases"][m]["y"]] for m in members])
        f = math.radians(float(snapshot["bases"][members[0]].get("facing", 0.0)))
        front = np.array([math.sin(f), math.cos(f)])
        right = np.array([math.cos(f), -math.sin(f)])
        centre = xy.mean(axis=0)
        u, v = (xy - centre) @ right, (xy - centre) @ front
        lead = v >= v.max() - 1.0  # the front rank
        pick = {
            int(np.argmin(np.hypot(u, v))),
            int(np.flatnonzero(lead)[np.argmin(u[lead])]),
            int(np.flatnonzero(lead)[np.argmax(u[lead])]),
        }
        out.extend(members[i] for i in sorted(pick))
    return out


def visible_sets(
    bf: Battlefield,
    snapshot: Mapping[str, Any],
    side_of: Mapping[str, str],
    sides: Sequence[str],
    *,
    limits: Mapping[str, float | None] | None = None,
    cache: SightCache | None = None,
) -> dict[str, list[str]]:
    """``{side: sorted ids of enemy bases it sees}`` after one bound.

    ``limits`` gives each side's 6.3 seeing distance (None or absent: unlimited).
    """
    recorded = snapshot.get("visible")
    if isinstance(recorded, Mapping):
        return {s: sorted(recorded.get(s, [])) for s in sides}
    cache = cache or SightCache(bf)
    alive = [
        (bid, float(b["x"]), float(b["y"]))
        for bid, b in sorted(snapshot["bases"].items())
        if b.get("state", "ok") != "dead" and bid in side_of
    ]
    if alive:
        inside = np.atleast_1d(bf.contains([t[1] for t in alive], [t[2] for t in alive]))
        on_map = [t for t, ok in zip(alive, inside) if ok]
    else:
        on_map = []
    where = {bid: (x, y) for bid, x, y in on_map}
    out: dict[str, list[str]] = {}
    for side in sides:
        own_ids = observer_bases(snapshot, [bid for bid, _, _ in on_map if side_of[bid] == side])
        own = np.array([where[b] for b in own_ids]).reshape(-1, 2)
        enemy = [(bid, x, y) for bid, x, y in on_map if side_of[bid] != side]
        pts = np.array([[x, y] for _, x, y in enemy]).reshape(-1, 2)
        limit = (limits or {}).get(side)
        key = b"|".join(
            [
                own.tobytes(),
                pts.tobytes(),
                repr(limit).encode(),
                " ".join(own_ids + [bid for bid, _, _ in enemy]).encode(),
            ]
        )
        if side in cache.last and cache.last[side][0] == key:  # nobody moved: same view
            out[side] = list(cache.last[side][1])
            continue
        seen = seen_by(bf, own, pts, limit_m=limit, cache=cache)
        out[side] = [bid for (bid, _, _), s in zip(enemy, seen) if s]
        cache.last[side] = (key, out[side])
    return out


def side_limits(log: Mapping[str, Any]) -> dict[str, float | None]:
    """6.3 seeing distance per side from the log header's ``weather``, ``time`` and ``locality``.

    A side whose ``locality`` (in its ``sides`` entry) is the battlefield's is not limited. Logs
    without weather say nothing, and nothing is limited.

    >>> side_limits({"weather": "fog", "locality": "german", "sides": [
    ...     {"id": "romans", "locality": "roman"}, {"id": "germans", "locality": "german"}]})
    {'romans': 1500.0, 'germans': None}
    >>> side_limits({"sides": [{"id": "a"}]})
    {'a': None}
    """
    limit = sight_limit_m(log.get("weather"), log.get("time"), log.get("ruleset"))
    here = log.get("locality")
    return {
        s["id"]: (None if here is not None and s.get("locality") == here else limit)
        for s in log.get("sides", [])
    }
