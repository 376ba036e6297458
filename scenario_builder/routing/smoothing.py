"""Any-angle smoothing of a graph path on the cost raster.

The graph path bends only at block vertices. Two steps pull it taut like the rulebook's string:

1. *string pulling*: from each kept point, jump to the farthest later point whose straight stretch
   costs no more than the path it replaces (exact raster cost) and crosses no blocked ground;
2. *tightening round enemies* (only when there are blocked polygons): the cheapest path over the
   path's points plus the corners of nearby blocked polygons (a small visibility graph, every
   clear pair joined with its exact raster cost), so the string wraps the enemy's corners;
3. *relaxation*: slide each bend point to lower the cost of its two stretches (with shrinking
   steps), which finds the refraction points where a route enters and leaves a wood, and tightens
   bends round the corners of woods and enemy bases; points a straight stretch can skip are dropped.

Points are in grid units (see :mod:`scenario_builder.routing.costs`). Every step only ever lowers
the cost, so a smoothed path never costs more than the graph path.

>>> import numpy as np
>>> from scenario_builder.routing.costs import CostGrid
>>> g = CostGrid(np.zeros((4, 4), dtype=bool), res=1.0, x0=0.0, y0=4.0)
>>> zigzag = [(0.5, 0.5), (1.5, 1.5), (2.5, 1.5), (3.5, 2.5)]
>>> smooth(zigzag, g)
[(0.5, 0.5), (3.5, 2.5)]
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from scenario_builder.routing.costs import CostGrid

GridPoint = tuple[float, float]
Clear = Callable[[GridPoint, GridPoint], bool]
_TOL = 1e-9
_BATCH = 16
_LOOKAHEAD = 8  # keep trying farther points after a failed shortcut: costs are not monotone


def _always(a: GridPoint, b: GridPoint) -> bool:
    return True


def smooth(
    points: list[GridPoint],
    grid: CostGrid,
    obstacles: BaseGeometry | None = None,
    *,
    reach: float = 32.0,
    relax: bool = True,
) -> list[GridPoint]:
    """String-pull, tighten round ``obstacles`` (grid units, prepared), then relax ``points``.

    The ends never move; no stretch of the result touches ``obstacles``.
    """
    clear = clear_of(obstacles)
    pts = _dedupe(points)
    if len(pts) <= 2:
        return pts
    pts = string_pull(pts, grid, clear)
    if obstacles is not None:
        pts = tighten(pts, grid, obstacles, reach=reach)
    if relax:
        pts = relax_bends(pts, grid, clear)
        pts = string_pull(pts, grid, clear)
    return pts


def clear_of(obstacles: BaseGeometry | None) -> Clear:
    """A test that a straight stretch keeps off ``obstacles`` (touching counts as hitting)."""
    if obstacles is None:
        return _always

    def clear(a: GridPoint, b: GridPoint) -> bool:
        seg = shapely.LineString([a, b]) if a != b else shapely.Point(a)
        return not obstacles.intersects(seg)

    return clear


def tighten(
    points: list[GridPoint], grid: CostGrid, obstacles: BaseGeometry, *, reach: float
) -> list[GridPoint]:
    """Cheapest path over ``points`` and the corners of obstacle parts within ``reach``.

    Corners are pushed a hair outward so a stretch can graze them without touching.
    """
    line = shapely.LineString(points)
    parts = [p for p in getattr(obstacles, "geoms", [obstacles]) if p.distance(line) <= reach]
    corners: list[GridPoint] = []
    for part in parts:
        grown = part.buffer(1e-3, join_style="mitre", mitre_limit=10.0)
        for poly in getattr(grown, "geoms", [grown]):
            corners.extend(tuple(c) for c in np.asarray(poly.exterior.coords)[:-1])
    if not corners:
        return points
    cand = np.asarray(corners, dtype=float)
    rows, cols = grid.shape
    keep = (cand[:, 0] >= 0) & (cand[:, 0] <= cols) & (cand[:, 1] >= 0) & (cand[:, 1] <= rows)
    cand = cand[keep]
    cand = cand[~shapely.intersects(obstacles, shapely.points(cand))] if cand.size else cand
    nodes = np.concatenate([np.asarray(points, dtype=float), cand.reshape(-1, 2)])
    n = len(nodes)
    i, j = np.triu_indices(n, k=1)
    segs = shapely.linestrings(np.stack([nodes[i], nodes[j]], axis=1))
    ok = np.zeros((n, n), dtype=bool)
    ok[i, j] = ~shapely.intersects(obstacles, segs)
    ok |= ok.T
    order = _astar_lazy(nodes, ok, grid, 0, len(points) - 1)
    if order is None:
        return points
    return [(float(nodes[k, 0]), float(nodes[k, 1])) for k in order]


def _astar_lazy(
    nodes: np.ndarray, ok: np.ndarray, grid: CostGrid, src: int, dst: int
) -> list[int] | None:
    """A* on the complete visibility graph ``ok``, costing a node's stretches when it is expanded
    (one vectorised call per expansion; the straight-line heuristic keeps expansions few)."""
    h = np.hypot(nodes[:, 0] - nodes[dst, 0], nodes[:, 1] - nodes[dst, 1])
    best = np.full(len(nodes), np.inf)
    best[src] = 0.0
    parent = np.full(len(nodes), -1)
    done = np.zeros(len(nodes), dtype=bool)
    heap = [(h[src], src)]
    while heap:
        _, u = heapq.heappop(heap)
        if done[u]:
            continue
        if u == dst:
            out = [dst]
            while out[-1] != src:
                out.append(int(parent[out[-1]]))
            return out[::-1]
        done[u] = True
        nbr = np.nonzero(ok[u] & ~done)[0]
        if nbr.size == 0:
            continue
        cost = grid.stretch_many(
            np.full(nbr.size, nodes[u, 0]),
            np.full(nbr.size, nodes[u, 1]),
            nodes[nbr, 0],
            nodes[nbr, 1],
        )
        new = best[u] + cost
        better = new < best[nbr]
        for v, c in zip(nbr[better].tolist(), new[better].tolist(), strict=True):
            best[v] = c
            parent[v] = u
            heapq.heappush(heap, (c + h[v], v))
    return None


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


_DIRS = np.array(
    [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (0.7071, 0.7071),
        (-0.7071, 0.7071),
        (0.7071, -0.7071),
        (-0.7071, -0.7071),
    ]
)


def relax_bends(
    points: list[GridPoint],
    grid: CostGrid,
    clear: Clear = _always,
    *,
    start_step: float = 1.0,
    min_step: float = 0.125,
    passes: int = 1,
) -> list[GridPoint]:
    """Pattern search on every interior point at once: each moves to the cheapest of eight
    neighbours ``step`` away while that lowers the cost of its two stretches, else halves its step.

    Odd and even points move in alternate rounds so no two neighbours move together (each round's
    gain is then exact), and all candidates of a round are costed in one vectorised call.
    """
    pts = np.asarray(points, dtype=float)
    rows, cols = grid.shape
    for _ in range(passes):
        n = len(pts)
        if n < 3:
            break
        step = np.full(n, start_step)
        step[0] = step[-1] = 0.0
        parity = 1
        while True:
            live = step >= min_step
            if not live.any():
                break
            ks = np.nonzero(live & (np.arange(n) % 2 == parity))[0]
            parity ^= 1
            if ks.size == 0:
                continue
            a, p, b = pts[ks - 1], pts[ks], pts[ks + 1]
            q = p[:, None, :] + _DIRS[None, :, :] * step[ks, None, None]  # (k, 8, 2)
            k8 = ks.size * 8
            qa = q.reshape(k8, 2)
            aa, bb = np.repeat(a, 8, axis=0), np.repeat(b, 8, axis=0)
            ends0 = np.concatenate([a, p, aa, qa])
            ends1 = np.concatenate([p, b, qa, bb])
            cost = grid.stretch_many(ends0[:, 0], ends0[:, 1], ends1[:, 0], ends1[:, 1])
            m = ks.size
            here = cost[:m] + cost[m : 2 * m]
            total = (cost[2 * m : 2 * m + k8] + cost[2 * m + k8 :]).reshape(m, 8)
            outside = (q[..., 0] < 0) | (q[..., 0] > cols) | (q[..., 1] < 0) | (q[..., 1] > rows)
            total[outside] = np.inf
            best = np.argmin(total, axis=1)
            gain = total[np.arange(m), best] < here - 1e-7
            for i in np.nonzero(gain)[0].tolist():
                cand = (float(q[i, best[i], 0]), float(q[i, best[i], 1]))
                ai, bi = (float(a[i, 0]), float(a[i, 1])), (float(b[i, 0]), float(b[i, 1]))
                if clear(ai, cand) and clear(cand, bi):
                    pts[ks[i]] = cand
                else:
                    gain[i] = False
            step[ks[~gain]] /= 2
        pts = np.asarray(
            _drop_skippable([(float(u), float(v)) for u, v in pts], grid, clear), dtype=float
        )
    return [(float(u), float(v)) for u, v in pts]


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
