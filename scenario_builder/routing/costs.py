"""The messenger's cost raster (9.1) and the exact cost of a straight stretch across it.

A messenger's string counts each metre once, except where it runs through terrain that blocks
line of sight or is "Impractical" or "Overhead": there it counts three times (9.1). So every cell
has a factor of 1 or 3; the cost of a straight stretch is the sum over the cells it crosses of
(length inside the cell) x (factor). Lengths are exact: the stretch is cut at every grid line.

A stretch that runs exactly *along* a grid line between a triple cell and a normal cell counts as
normal: the string follows the edge of the wood, it is not through it (rules-interpretations 9.1).

Internally everything is in *grid units*: ``u`` = columns east of the left edge, ``v`` = rows south
of the top edge, so cell ``(r, c)`` covers ``c <= u < c + 1``, ``r <= v < r + 1``.

>>> import numpy as np
>>> g = CostGrid(np.array([[False, True], [False, False]]), res=10.0, x0=0.0, y0=20.0)
>>> g.stretch(0.0, 0.5, 2.0, 0.5)        # west-east through one normal and one triple cell
(4.0, 1.0, 2.0)
>>> g.stretch(1.0, 0.0, 1.0, 1.0)        # along the edge of the triple cell: normal
(1.0, 0.0, 1.0)
>>> g.to_grid(15.0, 15.0), g.to_xy(1.5, 0.5)
((1.5, 0.5), (15.0, 15.0))
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TRIPLE = 3.0  # 9.1: "counts as triple the distance for that part of the journey"
_EPS = 1e-9


def _clamp(x: np.ndarray, lo: Any, hi: Any) -> np.ndarray:
    """``np.clip`` to the same bits (it is max then min), without its per-call dtype checks:
    a few microseconds a call, paid several times for every stretch costed while smoothing."""
    return np.minimum(np.maximum(x, lo), hi)


def triple_mask(move: np.ndarray, cover: np.ndarray, blocks_sight: np.ndarray) -> np.ndarray:
    """Cells a messenger's string counts triple through (9.1).

    Sight-blocking terrain, movement class Impractical, or cover class Overhead.

    >>> import numpy as np
    >>> triple_mask(np.array([0, 4, 0, 0]), np.array([0, 0, 3, 0]), np.array([0, 0, 0, 1]))
    array([False,  True,  True,  True])
    """
    from scenario_builder.battlefield import CoverClass, MoveClass

    return (
        np.asarray(blocks_sight, dtype=bool)
        | (np.asarray(move) == MoveClass.IMPRACTICAL)
        | (np.asarray(cover) == CoverClass.OVERHEAD)
    )


#: 9.1 in 2mm Earth's own classes (chart 7.3 Impractical, chart 7.2 Overhead): the default for a
#: battlefield as built (``Ruleset.route_triple`` gives each ruleset's reading)
TWO_MM_EARTH_TRIPLE: Mapping[str, frozenset[str]] = {
    "move": frozenset({"impractical"}),
    "cover": frozenset({"overhead"}),
}


def triple_mask_of(ground: Any, triple: Mapping[str, Iterable[str]] | None = None) -> np.ndarray:
    """:func:`triple_mask` through the ground's own classes: cells that block sight, or whose
    class in a role of ``triple`` (role -> class names; default 2mm Earth's 9.1 classes) is
    one of the named ones. Names are looked up in ``ground.meta["legend"][role]`` (code ->
    name), so a ruleset's view of a battlefield (``Ruleset.ground``) routes by its own classes;
    a name the ground does not have is a one-line error, never a silently cheaper route.

    >>> import numpy as np
    >>> class G:
    ...     meta = {"legend": {"move": {0: "open", 6: "marsh", 9: "impassable"}}}
    ...     def layer(self, name):
    ...         return {"move": np.array([0, 6, 9, 0]),
    ...                 "blocks_sight": np.array([0, 0, 0, 1])}[name]
    >>> triple_mask_of(G(), {"move": ["marsh", "impassable"]}).tolist()
    [False, True, True, True]
    >>> try:
    ...     triple_mask_of(G(), {"move": ["bog"]})
    ... except Exception as exc:
    ...     print(exc)
    9.1 triple terrain: move has no class 'bog' (classes: open, marsh, impassable)
    """
    from scenario_builder.errors import RulesetError

    spec = TWO_MM_EARTH_TRIPLE if triple is None else triple
    legend = ground.meta.get("legend", {})
    mask = np.asarray(ground.layer("blocks_sight"), dtype=bool).copy()
    for role, names in spec.items():
        codes = {str(v).lower(): int(k) for k, v in legend.get(role, {}).items()}
        if not codes and role == "move" and triple is None:  # a battlefield built before legends
            from scenario_builder.battlefield import MoveClass

            codes = {m.name.lower(): int(m) for m in MoveClass}
        if not codes and role == "cover" and triple is None:
            from scenario_builder.battlefield import CoverClass

            codes = {c.name.lower(): int(c) for c in CoverClass}
        wanted = []
        for name in sorted(names):
            if name not in codes:
                raise RulesetError(
                    None,
                    f"9.1 triple terrain: {role} has no class {name!r} "
                    f"(classes: {', '.join(codes)})",
                )
            wanted.append(codes[name])
        mask |= np.isin(np.asarray(ground.layer(role)), wanted)
    return mask


@dataclass(frozen=True, eq=False)
class CostGrid:
    """A triple-cost mask on a north-up grid of square ``res``-metre cells.

    ``x0, y0`` is the top-left corner in map coordinates. Outside the grid the cost is infinite.
    """

    triple: np.ndarray
    res: float
    x0: float
    y0: float
    factor: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        mask = np.asarray(self.triple, dtype=bool)
        # One row/column of infinite cost around the grid makes "off the map" a plain lookup.
        factor = np.full((mask.shape[0] + 2, mask.shape[1] + 2), np.inf)
        factor[1:-1, 1:-1] = np.where(mask, TRIPLE, 1.0)
        object.__setattr__(self, "triple", mask)
        object.__setattr__(self, "factor", factor)

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.triple.shape[0]), int(self.triple.shape[1]))

    def to_grid(self, x: float, y: float) -> tuple[float, float]:
        """Map coordinates -> grid units ``(u, v)``."""
        return ((x - self.x0) / self.res, (self.y0 - y) / self.res)

    def to_xy(self, u: float, v: float) -> tuple[float, float]:
        """Grid units -> map coordinates ``(x, y)``."""
        return (self.x0 + u * self.res, self.y0 - v * self.res)

    def inside(self, u: float, v: float) -> bool:
        rows, cols = self.shape
        return 0.0 <= u <= cols and 0.0 <= v <= rows

    def factor_at(self, u: float, v: float) -> float:
        """The cost factor (1, 3, or inf off the grid) of the cell holding grid point ``(u, v)``."""
        rows, cols = self.shape
        c = min(math.floor(u), cols - 1) if u >= 0 else -1
        r = min(math.floor(v), rows - 1) if v >= 0 else -1
        return float(self.factor[r + 1, c + 1])

    def stretch(self, ua: float, va: float, ub: float, vb: float) -> tuple[float, float, float]:
        """Exact ``(cost, triple_length, length)`` of the straight stretch a->b, in grid units.

        Cost is ``inf`` when any part leaves the grid.
        """
        du, dv = ub - ua, vb - va
        length = math.hypot(du, dv)
        if length == 0.0:
            return (0.0, 0.0, 0.0)
        cuts = [np.array([0.0, 1.0])]
        if abs(du) > _EPS:
            lo, hi = (ua, ub) if ua < ub else (ub, ua)
            lines = np.arange(math.floor(lo) + 1, math.ceil(hi), dtype=float)
            cuts.append((lines - ua) / du)
        if abs(dv) > _EPS:
            lo, hi = (va, vb) if va < vb else (vb, va)
            lines = np.arange(math.floor(lo) + 1, math.ceil(hi), dtype=float)
            cuts.append((lines - va) / dv)
        t = np.unique(np.concatenate(cuts))
        dt = np.diff(t)
        mid = (t[:-1] + t[1:]) * 0.5
        um = ua + du * mid
        vm = va + dv * mid
        f = self._factors(um, vm, along_u=abs(du) <= _EPS, along_v=abs(dv) <= _EPS)
        cost = float(np.dot(dt, f)) * length
        triple = float(dt[f == TRIPLE].sum()) * length
        return (cost, triple, length)

    def _factors(
        self, um: np.ndarray, vm: np.ndarray, *, along_u: bool, along_v: bool
    ) -> np.ndarray:
        rows, cols = self.shape
        c = _clamp(np.floor(um).astype(np.int64) + 1, 0, cols + 1)
        r = _clamp(np.floor(vm).astype(np.int64) + 1, 0, rows + 1)
        f = self.factor[r, c]
        # A stretch lying on a grid line belongs to the cheaper of the two cells it separates.
        if along_u and abs(um[0] - round(um[0])) <= _EPS:
            f = np.minimum(f, self.factor[r, _clamp(c - 1, 0, cols + 1)])
        if along_v and abs(vm[0] - round(vm[0])) <= _EPS:
            f = np.minimum(f, self.factor[_clamp(r - 1, 0, rows + 1), c])
        return f

    def stretch_many(
        self, ua: np.ndarray, va: np.ndarray, ub: np.ndarray, vb: np.ndarray
    ) -> np.ndarray:
        """Vectorised cost (grid units) of many straight stretches; same result as :meth:`stretch`.

        >>> import numpy as np
        >>> g = CostGrid(np.array([[False, True], [False, False]]), res=1.0, x0=0.0, y0=2.0)
        >>> g.stretch_many(np.array([0.0, 1.0]), np.array([0.5, 0.0]),
        ...                np.array([2.0, 1.0]), np.array([0.5, 1.0])).tolist()
        [4.0, 1.0]
        """
        ua, va = np.asarray(ua, dtype=float), np.asarray(va, dtype=float)
        ub, vb = np.asarray(ub, dtype=float), np.asarray(vb, dtype=float)
        n = ua.size
        du, dv = ub - ua, vb - va
        length = np.hypot(du, dv)
        # Flat, without padding or sorting: each stretch is cut at the grid lines across its
        # major axis (the one it moves further along) into bands of at most one cell's extent,
        # so the minor axis crosses at most one grid line inside a band: two pieces a band. A
        # stretch's pieces depend on it alone, not on the other stretches of the call.
        vert = np.abs(dv) >= np.abs(du)
        pa, dp = np.where(vert, va, ua), np.where(vert, dv, du)
        qa, dq = np.where(vert, ua, va), np.where(vert, du, dv)
        pb = pa + dp
        first = np.floor(np.minimum(pa, pb)) + 1
        lines = np.where(
            np.abs(dp) > _EPS, np.maximum(np.ceil(np.maximum(pa, pb)) - first, 0), 0
        ).astype(np.int64)
        bands = lines + 1
        row = np.repeat(np.arange(n), bands)
        j = np.arange(row.size) - np.repeat(np.cumsum(bands) - bands, bands)  # band in its row
        ln, fr, p0, d0 = lines[row], first[row], pa[row], dp[row]
        # the k-th line crossed, in the order the stretch meets them
        with np.errstate(divide="ignore", invalid="ignore"):
            k_lo = np.where(d0 > 0, j - 1, ln - j)
            k_hi = np.where(d0 > 0, j, ln - 1 - j)
            t_lo = np.where(j == 0, 0.0, (fr + k_lo - p0) / d0)
            t_hi = np.where(j == ln, 1.0, (fr + k_hi - p0) / d0)
        q0, e0 = qa[row], dq[row]
        m_lo, m_hi = q0 + e0 * t_lo, q0 + e0 * t_hi
        line = np.floor(np.maximum(m_lo, m_hi))
        inside = (np.abs(e0) > _EPS) & (line > np.minimum(m_lo, m_hi))
        with np.errstate(divide="ignore", invalid="ignore"):
            t_mid = np.where(inside, _clamp((line - q0) / e0, t_lo, t_hi), t_hi)
        t0 = np.concatenate([t_lo, t_mid])
        t1 = np.concatenate([t_mid, t_hi])
        rows_of = np.concatenate([row, row])
        dt = t1 - t0
        mid = (t0 + t1) * 0.5
        um = ua[rows_of] + du[rows_of] * mid
        vm = va[rows_of] + dv[rows_of] * mid
        n_rows, n_cols = self.shape
        c = _clamp(np.floor(um).astype(np.int64) + 1, 0, n_cols + 1)
        r = _clamp(np.floor(vm).astype(np.int64) + 1, 0, n_rows + 1)
        f = self.factor[r, c]
        # A stretch lying on a grid line belongs to the cheaper of the two cells it separates.
        on_u = ((np.abs(du) <= _EPS) & (np.abs(ua - np.round(ua)) <= _EPS))[rows_of]
        on_v = ((np.abs(dv) <= _EPS) & (np.abs(va - np.round(va)) <= _EPS))[rows_of]
        if on_u.any():
            f = np.where(on_u, np.minimum(f, self.factor[r, _clamp(c - 1, 0, n_cols + 1)]), f)
        if on_v.any():
            f = np.where(on_v, np.minimum(f, self.factor[_clamp(r - 1, 0, n_rows + 1), c]), f)
        per_unit = np.bincount(rows_of, weights=np.where(dt > 0, f, 0.0) * dt, minlength=n)
        return per_unit * length

    def path_cost(self, points: list[tuple[float, float]]) -> tuple[float, float, float]:
        """Sum of :meth:`stretch` over consecutive points (grid units)."""
        cost = triple = length = 0.0
        for (ua, va), (ub, vb) in itertools.pairwise(points):
            c, t, n = self.stretch(ua, va, ub, vb)
            cost += c
            triple += t
            length += n
        return (cost, triple, length)
