"""Fog of war for playback: which enemy bases each side could see after a bound (6.2).

A side sees an enemy base when any of its own bases on the map has line of sight to it over the
terrain (``Battlefield.line_of_sight_many``: levels and sight-blocking woods, with the 25 m edge
rule). Units in between are not counted here (the engine's business), nor weather limits (6.3).
When the engine records ``snapshot["visible"]`` (``{side: [base ids]}``) that is used instead.

Pairs are tried nearest first: each enemy base is tested against its closest friend, then the
next few, doubling the batch, and drops out as soon as one friend sees it. Bases in the open are
settled in the first round or two; only hidden bases cost the full set of friends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from scenario_builder.battlefield import Battlefield


def seen_by(bf: Battlefield, observers: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Bool per target: does any observer (N, 2) have line of sight to it (M, 2)?

    >>> from maps.testing import dem_battlefield
    >>> bf = dem_battlefield("flodden")
    >>> x, y = bf.centre
    >>> seen_by(bf, np.array([[x, y]]), np.array([[x + 30, y]])).tolist()   # 30 m away
    [True]
    >>> seen_by(bf, np.empty((0, 2)), np.array([[x, y]])).tolist()
    [False]
    """
    observers = np.asarray(observers, float).reshape(-1, 2)
    targets = np.asarray(targets, float).reshape(-1, 2)
    seen = np.zeros(len(targets), dtype=bool)
    if len(observers) == 0 or len(targets) == 0:
        return seen
    d = np.hypot(
        targets[:, None, 0] - observers[None, :, 0], targets[:, None, 1] - observers[None, :, 1]
    )
    order = np.argsort(d, axis=1, kind="stable")  # (M, N) friends by distance per target
    pending = np.arange(len(targets))
    k, batch = 0, 1
    n = len(observers)
    while pending.size and k < n:
        cols = order[pending, k : k + batch]  # (P, b)
        tgt = np.repeat(pending, cols.shape[1])
        obs = cols.ravel()
        ok = bf.line_of_sight_many(observers[obs], targets[tgt])
        hit = np.zeros(len(targets), dtype=bool)
        hit[tgt[ok]] = True
        seen |= hit
        pending = pending[~hit[pending]]
        k += batch
        batch *= 2
    return seen


def visible_sets(
    bf: Battlefield,
    snapshot: Mapping[str, Any],
    side_of: Mapping[str, str],
    sides: Sequence[str],
) -> dict[str, list[str]]:
    """``{side: sorted ids of enemy bases it sees}`` after one bound."""
    recorded = snapshot.get("visible")
    if isinstance(recorded, Mapping):
        return {s: sorted(recorded.get(s, [])) for s in sides}
    alive = [
        (bid, float(b["x"]), float(b["y"]))
        for bid, b in sorted(snapshot["bases"].items())
        if b.get("state", "ok") != "dead" and bid in side_of
    ]
    on_map = [t for t in alive if bool(bf.contains(t[1], t[2]))]
    out: dict[str, list[str]] = {}
    for side in sides:
        own = np.array([[x, y] for bid, x, y in on_map if side_of[bid] == side]).reshape(-1, 2)
        enemy = [(bid, x, y) for bid, x, y in on_map if side_of[bid] != side]
        pts = np.array([[x, y] for _, x, y in enemy]).reshape(-1, 2)
        seen = seen_by(bf, own, pts)
        out[side] = [bid for (bid, _, _), s in zip(enemy, seen) if s]
    return out
