"""Any-angle smoothing of a graph path on the cost raster.

The graph path bends only at block vertices. Two steps pull it taut like the rulebook's string:

1. *string pulling*: from each kept point, jump to the farthest later point whose straight stretch
   costs no more than the path it replaces (exact raster cost) and crosses no blocked ground;
2. *relaxation*: slide each bend point to lower the cost of its two stretches (with shrinking
   steps), which finds the refraction points where a route enters and leaves a wood, and tightens
   bends round the corners of woods and enemy bases; points a straight stretch can skip are dropped.

Points are in grid units (see :mod:`scenario_builder.routing.costs`). Both steps only ever lower
the cost, so a smoothed path never costs more than the graph path.

>>> import numpy as np
>>> from scenario_builder.routing.costs import CostGrid
>>> g = CostGrid(np.zeros((4, 4), dtype=bool), res=1.0, x0=0.0, y0=4.0)
>>> zigzag = [(0.5, 0.5), (1.5, 1.5), (2.5, 1.5), (3.5, 2.5)]
>>> smooth(zigzag, g)
[(0.5, 0.5), (3.5, 2.5)]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from scenario_builder.routing.costs import CostGrid

GridPoint = tuple[float, float]
Clear = Callable[[GridPoint, GridPoint], bool]
_TOL = 1e-9
_BATCH = 16
_LOOKAHEAD = 8  # keep trying farther points after a failed shortcut: costs are not monotone


def _always(a: GridPoint, b: GridPoint) -> bool:
    return True


def smooth(
    points: list[GridPoint], grid: CostGrid, clear: Clear = _always, *, relax: bool = True
) -> list[GridPoint]:
    """String-pull then relax ``points``; the ends never move."""
    pts = _dedupe(points)
    if len(pts) <= 2:
        return pts
    pts = string_pull(pts, grid, clear)
    if relax:
        pts = relax_bends(pts, grid, clear)
        pts = string_pull(pts, grid, clear)
    return pts


def _dedupe(points: list[GridPoint]) -> list[GridPoint]:
    out: list[GridPoint] = []
    for p in points:
        if not out or p != out[-1]:
            out.append(p)
    return out


def string_pull(points: list[GridPoint], grid: CostGrid, clear: Clear = _always) -> list[GridPoint]:
    """Greedy farthest-acceptable shortcut from each kept point."""
    arr = np.asarray(points, dtype=float)
    costs = grid.stretch_many(arr[:-1, 0], arr[:-1, 1], arr[1:, 0], arr[1:, 1])
    cum = np.concatenate([[0.0], np.cumsum(costs)])
    out = [points[0]]
    i, n = 0, len(points)
    while i < n - 1:
        best, misses, j0 = i + 1, 0, i + 2
        while j0 < n and misses <= _LOOKAHEAD:
            js = np.arange(j0, min(n, j0 + _BATCH))
            direct = grid.stretch_many(
                np.full(js.size, arr[i, 0]), np.full(js.size, arr[i, 1]), arr[js, 0], arr[js, 1]
            )
            ok = direct <= cum[js] - cum[i] + _TOL
            for j, good in zip(js.tolist(), ok.tolist(), strict=True):
                if good and clear(points[i], points[j]):
                    best, misses = j, 0
                else:
                    misses += 1
                    if misses > _LOOKAHEAD:
                        break
            j0 = int(js[-1]) + 1
        out.append(points[best])
        i = best
    return out


_DIRS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (0.7071, 0.7071), (-0.7071, 0.7071),
                  (0.7071, -0.7071), (-0.7071, -0.7071)])  # fmt: skip


def relax_bends(
    points: list[GridPoint],
    grid: CostGrid,
    clear: Clear = _always,
    *,
    start_step: float = 2.0,
    min_step: float = 0.0625,
    passes: int = 4,
) -> list[GridPoint]:
    """Pattern search on each interior point: move it while its two stretches get cheaper."""
    pts = list(points)
    rows, cols = grid.shape
    for _ in range(passes):
        moved = False
        for k in range(1, len(pts) - 1):
            a, p, b = pts[k - 1], pts[k], pts[k + 1]
            here = float(
                grid.stretch_many(
                    *(np.array([[a[0], a[1], p[0], p[1]], [p[0], p[1], b[0], b[1]]]).T)
                ).sum()
            )
            step = start_step
            while step >= min_step:
                q = np.asarray(p) + _DIRS * step
                q = q[(q[:, 0] >= 0) & (q[:, 0] <= cols) & (q[:, 1] >= 0) & (q[:, 1] <= rows)]
                n = len(q)
                cost = grid.stretch_many(
                    np.concatenate([np.full(n, a[0]), q[:, 0]]),
                    np.concatenate([np.full(n, a[1]), q[:, 1]]),
                    np.concatenate([q[:, 0], np.full(n, b[0])]),
                    np.concatenate([q[:, 1], np.full(n, b[1])]),
                )
                total = cost[:n] + cost[n:]
                improved = False
                for m in np.argsort(total, kind="stable").tolist():
                    if total[m] >= here - 1e-7:
                        break
                    cand = (float(q[m, 0]), float(q[m, 1]))
                    if clear(a, cand) and clear(cand, b):
                        p, here, improved = cand, float(total[m]), True
                        break
                if not improved:
                    step /= 2
            if p != pts[k]:
                pts[k] = p
                moved = True
        pts = _drop_skippable(pts, grid, clear)
        if not moved:
            break
    return pts


def _drop_skippable(points: list[GridPoint], grid: CostGrid, clear: Clear) -> list[GridPoint]:
    out = [points[0]]
    for k in range(1, len(points) - 1):
        a, p, b = out[-1], points[k], points[k + 1]
        via = grid.stretch(*a, *p)[0] + grid.stretch(*p, *b)[0]
        if grid.stretch(*a, *b)[0] <= via + _TOL and clear(a, b):
            continue
        out.append(p)
    out.append(points[-1])
    return out
