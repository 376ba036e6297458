"""Sight and awareness between formations (6.2 line of sight, 6.3 weather, hearing).

A formation sees another when

1. the terrain allows it: ``Battlefield.line_of_sight`` between the two formations' centres by
   height level, with the 25 m wood-edge rule (docs/architecture.md, "Line of sight");
2. no troops in between block it. A formation crossed by the line blocks unless it stands on a
   lower level than the higher end ("anything on a lower level can be seen over"), or the
   observer sees over it (monsters over anything, chariots over cavalry and foot, cavalry over
   foot), or it is a friend within 100 m of the observer (200 m if the observer has a character
   with it), or it is an enemy skirmisher screen that the observer is within 100 m of and that is
   within 100 m of the troops it screens;
3. the target is within the 6.3 sight limit for non-local troops in fog, rain, bright sun or at
   night.

Troops also "hear" the one closest moving or fighting unit within 75 m and count it as seen for
morale (:meth:`Sight.aware`). Answers are cached until any formation moves (``state.version``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from engine.geometry import (
    _axes,
    distance,
    distance_many,
    obb_array,
    point_distance,
    segment_hits,
    segment_hits_pairs,
)
from engine.state import BattleState, Formation
from scenario_builder.errors import OffMapError

if TYPE_CHECKING:
    from engine.terrain import Ground

__all__ = ["Sight", "SightRules"]

#: after this many rows of gaps in one position state, work out all of them in one call
_ROWS_BEFORE_MATRIX = 4


@dataclass(frozen=True, slots=True)
class SightRules:
    """What a ruleset tells the sight mechanics (2mm Earth 6.2-6.3 in brackets).

    ``sees_over(observer_type, blocker_type)``: troops of the first kind see over the second
    (monsters over anything); ``sight_limit_m(weather, time, local)``: how far troops see (None:
    no limit but the ground); ``hearing_m``: the closest moving or fighting unit this near is
    heard (75 m); friends within ``friend_see_through_m`` of the observer are seen through (100 m,
    ``character_see_through_m`` 200 m with a character); an enemy skirmisher screen is seen
    through within ``skirmish_screen_m`` (100 m).
    """

    sees_over: Callable[[str, str], bool]
    sight_limit_m: Callable[[str, str, bool], float | None]
    hearing_m: float = 0.0
    friend_see_through_m: float = 0.0
    character_see_through_m: float = 0.0
    skirmish_screen_m: float = 0.0


class Sight:
    """Per-bound cache of who sees whom."""

    def __init__(
        self,
        battlefield: Ground,
        state: BattleState,
        *,
        rules: SightRules,
        weather: str = "clear",
        time: str = "day",
        locality: str | None = None,
    ) -> None:
        self.bf = battlefield
        self.rules = rules
        self.state = state
        self.weather = weather
        self.time = time
        self.locality = locality
        self._limit_fn = rules.sight_limit_m
        self._version = -1
        self._cache: dict[tuple[str, str], bool] = {}
        self.los_calls = 0

    # -- per-bound arrays ------------------------------------------------------------------
    def _refresh(self) -> None:
        if self._version == self.state.version:
            return
        self._version = self.state.version
        self._cache.clear()
        self._heard: dict[str, str | None] = {}
        self._gaps: dict[int, np.ndarray] = {}
        self._full: np.ndarray | None = None  # distance_many(arr, arr) once worked out
        forms = self.state.active()
        self.ids = [f.id for f in forms]
        self.index = {fid: i for i, fid in enumerate(self.ids)}
        self.forms = forms
        self.obbs = [f.obb() for f in forms]
        self.arr = obb_array(self.obbs)
        self.axes = _axes(self.arr[:, 4])  # for segment_hits over every formation, once
        if forms:
            xs, ys = self.arr[:, 0], self.arr[:, 1]
            inside = np.atleast_1d(self.bf.contains(xs, ys))
            levels = np.zeros(len(forms), dtype=int)
            if inside.any():
                levels[inside] = np.atleast_1d(self.bf.level_at(xs[inside], ys[inside]))
            self.levels = levels
            self.on_map = inside
        else:
            self.levels = np.zeros(0, dtype=int)
            self.on_map = np.zeros(0, dtype=bool)

    def local(self, f: Formation) -> bool:
        """6.3: troops of the battlefield's locality (or ``locality_bonus``) know the ground."""
        if f.has_flag("locality_bonus"):
            return True
        side = self.state.sides[f.side]
        return self.locality is not None and side.locality == self.locality

    def limit_m(self, f: Formation) -> float | None:
        return self._limit_fn(self.weather, self.time, self.local(f))

    # -- queries ---------------------------------------------------------------------------
    def distance(self, a: str, b: str) -> float:
        """Gap between two formations' rectangles (0 when touching)."""
        self._refresh()
        return float(self._gap_row(self.index[a])[self.index[b]])

    def _gap_row(self, i: int) -> np.ndarray:
        """Gaps from formation ``i`` to every formation (cached per position state)."""
        row = self._gaps.get(i)
        if row is None:
            if len(self._gaps) < _ROWS_BEFORE_MATRIX:
                row = self._gaps[i] = distance(self.obbs[i], self.arr)
            else:  # many observers this position state: every row in one call
                full = self._full = distance_many(self.arr, self.arr)
                self._gaps = dict(enumerate(full))
                row = self._gaps[i]
        return row

    def gap_matrix_for(self, ids: list[str], arr: np.ndarray) -> np.ndarray | None:
        """``distance_many(arr, arr)`` when this position state has worked it out already and
        ``ids`` and ``arr`` are its formations and rectangles; else None."""
        self._refresh()
        if self._full is None or ids != self.ids or not np.array_equal(arr, self.arr):
            return None
        return self._full

    def sees(self, observer: str, target: str) -> bool:
        """6.2-6.3: can ``observer`` see ``target``? (cached per position state)"""
        self._refresh()
        key = (observer, target)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        out = self._compute(observer, target)
        self._cache[key] = out
        return out

    def visible(self, observer: str, targets: list[str]) -> list[str]:
        """The targets ``observer`` sees, terrain sight batched in one call."""
        self._refresh()
        todo = [t for t in targets if (observer, t) not in self._cache]
        if todo:
            self._batch(observer, todo)
        return [t for t in targets if self._cache[(observer, t)]]

    def _batch(self, observer: str, targets: list[str]) -> None:
        groups = self._screen([(observer, targets)])
        if groups:
            self._terrain(groups)

    def prefetch(self, requests: list[tuple[str, list[str]]]) -> None:
        """Work out ``visible(observer, targets)`` for many observers at once, for later calls
        to find in the cache: the troops in the way of every line in one matrix, then the
        terrain sight of every pair left in one call (the answer of a pair does not depend on
        the others in a batch, so these are the answers ``visible`` would give)."""
        self._refresh()
        todo = [
            (o, [t for t in dict.fromkeys(ts) if (o, t) not in self._cache]) for o, ts in requests
        ]
        groups = self._screen([(o, ts) for o, ts in todo if ts])
        if groups:
            self._terrain(groups)

    def _screen(self, requests: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
        """Caches False for the targets off the map, beyond the sight limit or hidden by
        troops (6.2-6.3); returns the rest by observer, their terrain sight still to check."""
        # targets on the map and within the sight limit; their troop checks in one matrix
        cands: list[tuple[str, int, str, int]] = []
        for observer, targets in requests:
            i = self.index[observer]
            limit = self.limit_m(self.forms[i])
            for t in targets:
                j = self.index[t]
                far = limit is not None and self.distance(observer, t) > limit
                if not (self.on_map[i] and self.on_map[j]) or far:
                    self._cache[(observer, t)] = False
                else:
                    cands.append((observer, i, t, j))
        if not cands:
            return []
        ii = np.fromiter((c[1] for c in cands), dtype=np.intp, count=len(cands))
        js = np.fromiter((c[3] for c in cands), dtype=np.intp, count=len(cands))
        hits = segment_hits_pairs(self.arr[ii, :2], self.arr[js, :2], self.arr, self.axes)
        rows = np.arange(len(cands))
        hits[rows, ii] = False
        hits[rows, js] = False
        crossed = cast(list[bool], hits.any(axis=1).tolist())
        pending: dict[str, list[str]] = {}
        for (observer, i, t, j), row, x in zip(cands, hits, crossed, strict=True):
            if x and not self._troops_clear(i, j, row):
                self._cache[(observer, t)] = False
            else:
                pending.setdefault(observer, []).append(t)
        return list(pending.items())

    def _terrain(self, groups: list[tuple[str, list[str]]]) -> None:
        """Terrain sight (6.2) of every (observer, pending targets) group, in one call."""
        ia = [self.index[o] for o, ts in groups for _ in ts]
        ib = [self.index[t] for _, ts in groups for t in ts]
        self.los_calls += len(ib)
        try:
            ok = np.atleast_1d(self.bf.line_of_sight_many(self.arr[ia, :2], self.arr[ib, :2]))
        except OffMapError:
            if len(groups) > 1:  # one group at a time, as visible() would have asked them
                for g in groups:
                    self._terrain([g])
                return
            ok = np.zeros(len(ib), dtype=bool)
        for (o, t), v in zip(((o, t) for o, ts in groups for t in ts), ok.tolist(), strict=True):
            self._cache[(o, t)] = bool(v)

    def _compute(self, observer: str, target: str) -> bool:
        self._batch(observer, [target])
        return self._cache[(observer, target)]

    def _troops_clear(self, i: int, j: int, hits: np.ndarray | None = None) -> bool:
        """No formation between ``i`` and ``j`` blocks the view (6.2). ``hits``: the formations
        the line crosses (without ``i`` and ``j``) when the caller has them."""
        p = (float(self.arr[i, 0]), float(self.arr[i, 1]))
        if hits is None:
            q = (float(self.arr[j, 0]), float(self.arr[j, 1]))
            hits = segment_hits(p, q, self.arr, self.axes)
            hits[i] = hits[j] = False
        if not hits.any():
            return True
        o = self.forms[i]
        levels = self.levels
        top = max(int(levels[i]), int(levels[j]))
        o_type = see_through = None  # worked out on first need (profiles are loops over bases)
        for k in hits.nonzero()[0].tolist():
            blocker = self.forms[k]
            if int(levels[k]) < top:
                continue  # anything on a lower level can be seen over
            if o_type is None:
                o_type = o.unit_type
            if self.rules.sees_over(o_type, blocker.unit_type):
                continue
            if blocker.side == o.side:
                if see_through is None:
                    see_through = (
                        self.rules.character_see_through_m
                        if o.character_ids()
                        else self.rules.friend_see_through_m
                    )
                if point_distance(self.obbs[k], *p) <= see_through:
                    continue
                return False
            if blocker.skirmisher:
                to_screened = float(distance(self.obbs[k], self.arr[j : j + 1])[0])
                screen = self.rules.skirmish_screen_m
                if point_distance(self.obbs[k], *p) <= screen and to_screened <= screen:
                    continue
            return False
        return True

    def heard(self, observer: str) -> str | None:
        """6.2: the one closest moving or fighting formation within ``hearing_m``, if any."""
        self._refresh()
        if observer in self._heard:
            return self._heard[observer]
        i = self.index[observer]
        gaps = self._gap_row(i)
        best, best_d = None, self.rules.hearing_m
        for k in np.argsort(gaps, kind="stable"):
            if k == i:
                continue
            d = float(gaps[k])
            if d > best_d:
                break
            f = self.forms[k]
            if f.moved_m > 0 or f.fought or self.state.contacts.get(f.id):
                best = f.id
                break
        self._heard[observer] = best
        return best

    def aware(self, observer: str, target: str) -> bool:
        """Seen or heard: what counts for morale (10.2 "events you can see or hear")."""
        return self.heard(observer) == target or self.sees(observer, target)

    def aware_many(self, observer: str, targets: list[str]) -> list[bool]:
        """``[aware(observer, t) for t in targets]``, the sight of the targets not heard in one
        batch (the same pairs as one at a time, so the same answers and cache)."""
        heard = self.heard(observer)
        rest = [t for t in targets if t != heard]
        seen = set(self.visible(observer, rest)) if rest else set()
        return [t == heard or t in seen for t in targets]

    def aware_of_any(self, observer: str, targets: list[str]) -> bool:
        """``any(aware(observer, t) for t in targets)``, with terrain sight batched in chunks of
        1, 2, 4, ... targets (the same answer; the nearest targets usually settle it)."""
        heard = self.heard(observer)
        k, chunk = 0, 1
        while k < len(targets):
            part = targets[k : k + chunk]
            if heard in part or self.visible(observer, part):
                return True
            k, chunk = k + chunk, chunk * 2
        return False
