"""Which units stand near a unit: the culling behind the medieval d10 battle's "within 150 yds",
"nearest enemy", "in contact" and "insecure flank" questions (pairwise work grows
with neighbours, not with the square of the armies).

:class:`UnitTable` holds every unit's centre, half depth, side, life and rout in arrays. It is
kept current by the units' own writes: :class:`~engine.rulesets.medieval_d10.state.UnitState`
marks its row whenever its ``x``, ``y``, ``unit`` (figures, formation, order) or ``mode``
change, and the marked rows are read again at the next question, so the rules never invalidate
anything themselves. The table answers with a superset of candidates in the battle's unit
order (the order of ``MedievalBattle.units``); the battle asks its exact gap (``math.dist``
less the half depths) of those alone, so every answer is the one a loop over all units gives.

>>> from types import SimpleNamespace as U
>>> units = [U(x=0.0, y=0.0, side="a", alive=True, routing=False),
...          U(x=100.0, y=0.0, side="b", alive=True, routing=False),
...          U(x=900.0, y=0.0, side="b", alive=True, routing=False)]
>>> t = UnitTable(units, ["a", "b"], half_depth=lambda u: 5.0, watch=False)
>>> [units.index(o) for o in t.near(units[0], 95.0, "b")]
[1]
>>> t.nearest_rows(units[0], "b", routing_ok=False).tolist()
[1]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: metres added to every cut: numpy's hypot and the battle's math.dist may differ in the last
#: bits (1e-12 m at these distances); a candidate too many is measured and dropped, none missed
SLACK_M = 1e-6


class UnitTable:
    """Rows of ``units`` (their order kept) for the near-unit questions of one battle.

    ``sides``: the battle's two side ids; ``half_depth``: a unit's half depth in metres (the
    battle's ``size(u)[1] / 2``, a function of ``u.unit`` alone); ``watch``: register with the
    units so their writes mark their rows (a battle's table does; a doctest's needs not)."""

    def __init__(
        self,
        units: Sequence[Any],
        sides: Sequence[str],
        half_depth: Callable[[Any], float],
        *,
        watch: bool = True,
    ) -> None:
        self.units = list(units)
        self._half_depth = half_depth
        n = len(self.units)
        self.x = np.zeros(n)
        self.y = np.zeros(n)
        self.hd = np.zeros(n)
        self.live = np.zeros(n, dtype=bool)
        self.rout = np.zeros(n, dtype=bool)
        self.side = np.array([list(sides).index(u.side) for u in self.units], dtype=np.int8)
        self._sides = list(sides)
        self._side_rows = {s: self.side == k for k, s in enumerate(self._sides)}
        self._dirty: set[int] = set(range(n))
        self._row: dict[int, int] = {id(u): i for i, u in enumerate(self.units)}
        if watch:
            for u in self.units:
                u.__dict__["_table"] = self  # past the unit's own __setattr__: not watched

    def touch(self, u: Any) -> None:
        """``u`` changed where it stands, its make-up or its mode: read its row again."""
        self._dirty.add(self._row[id(u)])

    def _refresh(self) -> None:
        if not self._dirty:
            return
        units, hd = self.units, self._half_depth
        for i in self._dirty:
            u = units[i]
            self.x[i] = u.x
            self.y[i] = u.y
            self.hd[i] = hd(u)
            self.live[i] = u.alive
            self.rout[i] = u.routing
        self._dirty.clear()

    def _gaps(self, u: Any) -> np.ndarray:
        """Every row's gap to ``u`` (centre distance less the two half depths), in numpy."""
        gaps = np.hypot(self.x - u.x, self.y - u.y)
        gaps -= self.hd
        gaps -= self._half_depth(u)
        return gaps

    def near(self, u: Any, reach: float, side: str | None = None) -> list[Any]:
        """The living units (of ``side``, or of either) whose gap to ``u`` may be within
        ``reach`` metres, ``u`` itself among them if it qualifies, in unit order."""
        self._refresh()
        ok = self._gaps(u) <= reach + SLACK_M
        ok &= self.live
        if side is not None:
            ok &= self._side_rows[side]
        units = self.units
        return [units[i] for i in np.flatnonzero(ok).tolist()]

    def nearest_rows(self, u: Any, side: str, *, routing_ok: bool) -> np.ndarray:
        """Rows of the living units of ``side`` (routing ones only if ``routing_ok``) whose gap
        to ``u`` may be the least of them, ascending: every row within :data:`SLACK_M` of the
        least gap numpy finds, so the one of least exact gap (the first on ties) is there."""
        self._refresh()
        ok = self.live & self._side_rows[side]
        if not routing_ok:
            ok &= ~self.rout
        rows = np.flatnonzero(ok)
        if rows.size == 0:
            return rows
        gaps = self._gaps(u)[rows]
        return rows[gaps <= gaps.min() + 2 * SLACK_M]
