"""A side's enemies on the table, asked for the nearest and for who is within a distance: the
questions a commander (any ruleset's) and a plan's triggers ask every bound.

>>> from engine.state import BattleState
>>> Enemies(BattleState({}, {}, {}), "a").forms
[]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.geometry import FewSeparation, obb_array, separation, separation_many
from engine.state import BattleState, Formation

__all__ = ["Enemies", "gap"]


def gap(f: Formation, g: Formation) -> float:
    """The gap between two formations' rectangles (``geometry.separation``, never below 0)."""
    return max(0.0, float(separation(f.obb(), obb_array([g.obb()]))[0]))


#: from this many enemies on, the General's questions are culled by the bound of _Enemies
#: (below it, separation of a formation from them all is a few plain-float sums)
_CULL_AFTER = 24


class Enemies:
    """A side's enemies on the table (``state.enemies_of``, in its order) for one call of
    a commander's orders (nothing moves while orders are given), their rectangles the
    state's columns. A separation is never less than the centres' distance over root 2 less the
    two circumradii (the larger of the gaps along two square axes takes that much of the
    distance; no projection radius exceeds a circumradius) and never more than the centres'
    distance, so only the enemies that bound lets through are measured
    (``geometry.separation``, the value :func:`gap` gives the pair)."""

    __slots__ = ("_few", "_mine", "_nearest", "_state", "arr", "by_id", "few", "forms", "radius")

    def __init__(self, state: BattleState, side: str) -> None:
        self.forms = state.enemies_of(side)
        self.by_id = {g.id: g for g in self.forms}
        self._state, self._mine = state, side
        t = state.table()
        rows = [t.rows[g.id] for g in self.forms]
        self.arr = t.arr[rows] if rows else np.zeros((0, 5))
        self.radius = np.hypot(self.arr[:, 2], self.arr[:, 3])
        #: a few enemies: their part of every separation worked out once (at the first
        #: question that needs it), the sums in plain floats (``geometry.FewSeparation``: the
        #: same numbers as ``separation``)
        self.few = 0 < len(self.forms) <= _CULL_AFTER
        self._few: FewSeparation | None = None
        #: fid -> :meth:`nearest` (a formation is asked more than once per call of orders)
        self._nearest: dict[str, tuple[Formation, float] | None] = {}

    def _bounds(self, f: Formation) -> tuple[Any, np.ndarray, np.ndarray]:
        """``f``'s rectangle, its centre distance to each enemy and the lower bound of each
        separation."""
        o = f.obb()
        d = np.hypot(self.arr[:, 0] - o.cx, self.arr[:, 1] - o.cy)
        return o, d, d / math.sqrt(2.0) - math.hypot(o.hw, o.hd) - self.radius

    def nearest(self, f: Formation) -> tuple[Formation, float] | None:
        """The enemy of least separation from ``f`` (the first on ties) and its :func:`gap`."""
        if f.id in self._nearest:
            return self._nearest[f.id]
        if self.few and not self._nearest:
            self._nearest_of_side()
            if f.id in self._nearest:
                return self._nearest[f.id]
        out = self._nearest[f.id] = self._find_nearest(f)
        return out

    def _few_separation(self) -> FewSeparation:
        if self._few is None:
            self._few = FewSeparation(self.arr)
        return self._few

    def _nearest_of_side(self) -> None:
        """:meth:`nearest` of every formation of the asking side at once (a few enemies: one
        ``separation_many``, whose rows are ``separation``'s numbers): asked of most of them
        in one call of orders."""
        t = self._state.table()
        mine = t.side_forms(self._mine)
        if not mine:
            return
        sep = separation_many(t.arr[[t.rows[f.id] for f in mine]], self.arr)
        best = np.argmin(sep, axis=1).tolist()  # the first of the least, as min over (gap, k)
        for f, k, row in zip(mine, best, sep.tolist(), strict=True):
            self._nearest[f.id] = (self.forms[k], max(0.0, row[k]))

    def _find_nearest(self, f: Formation) -> tuple[Formation, float] | None:
        if not self.forms:
            return None
        if self.few:  # a few: measuring them all costs less
            gaps = self._few_separation().gaps(f.obb())
            k = min(range(len(gaps)), key=gaps.__getitem__)  # the first of the least
            return self.forms[k], max(0.0, gaps[k])
        o, d, low = self._bounds(f)
        c = int(np.argmin(d))
        s_c = float(separation(o, self.arr[[c]])[0])  # the least is no more than this
        # the margin is far above rounding: whoever is left out has a separation above s_c
        cand = np.flatnonzero(low <= s_c + 1e-6 * (1.0 + abs(s_c)))
        s = separation(o, self.arr[cand])
        k = int(np.argmin(s))  # the first of the least (cand ascending), as min over (gap, k)
        return self.forms[int(cand[k])], max(0.0, float(s[k]))

    def within(self, f: Formation, m: float) -> bool:
        """``any(_gap(f, g) <= m for g in enemies)``."""
        if not self.forms or m < 0.0:
            return False  # a gap is never below 0
        if self.few:
            return any(max(0.0, g) <= m for g in self._few_separation().gaps(f.obb()))
        o, _d, low = self._bounds(f)
        cand = np.flatnonzero(low <= m + 1e-6 * (1.0 + m))
        if not cand.size:
            return False
        return bool((np.maximum(separation(o, self.arr[cand]), 0.0) <= m).any())
