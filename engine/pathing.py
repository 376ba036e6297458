"""Ways around ground a body of troops may not cross, for a ruleset's moves.

A table moves a unit that finds a marsh or a river in its way *around* it, by the dry ground
or the ford a player can see on the table; a straight sweep that stops at the edge and stays
there for the rest of the battle is nobody's play. :func:`way_around` finds that way: the
cheapest path over a lattice of the ground between the unit and where it is going, each cell
costing the ruleset's own price of a metre there (the reciprocal of its chart's share of the
march rate; ``inf`` where the chart forbids the ground), searched by scikit-image's
minimum-cost-path (a Dijkstra over the lattice in compiled code, the field's tool for cost
rasters).

The ruleset keeps its own move: the points returned are only where to steer, so every step
still pays the chart exactly, and the unit stops where its allowance runs out.

>>> import numpy as np
>>> def cost(x, y):  # a wall of impassable ground from x = 40 to 60, open at y >= 80
...     return np.where((x >= 40) & (x < 60) & (y < 80), np.inf, 1.0)
>>> way = way_around((10.0, 10.0), (90.0, 10.0), cost, cell=10.0, margin=100.0)
>>> way is not None and max(y for _, y in way) >= 80 and way[-1]
(90.0, 10.0)
>>> blocked_between((10.0, 10.0), (90.0, 10.0), cost, step=5.0)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["CostAt", "blocked_between", "first_blocked", "way_around"]

#: the price of a metre of ground at many points at once (``inf``: may not go there)
CostAt = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: at most this many lattice cells in one search: the lattice is coarsened to stay under it
#: (a 4 x 3 km window at 10 m; a search of that size takes tens of milliseconds)
MAX_CELLS = 120_000


def _segment(
    a: tuple[float, float], b: tuple[float, float], step: float
) -> tuple[np.ndarray, np.ndarray]:
    """Points every ``step`` metres from ``a`` (excluded) to ``b`` (included)."""
    n = max(1, math.ceil(math.dist(a, b) / step))
    t = np.arange(1, n + 1) / n
    return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t


def first_blocked(
    a: tuple[float, float], b: tuple[float, float], cost: CostAt, *, step: float
) -> tuple[float, float] | None:
    """The first point of ground of infinite cost on the straight line from ``a`` to ``b``,
    sampled every ``step`` metres (None: the way is open)."""
    xs, ys = _segment(a, b, step)
    bad = np.flatnonzero(np.isinf(cost(xs, ys)))
    return None if not len(bad) else (float(xs[bad[0]]), float(ys[bad[0]]))


def blocked_between(
    a: tuple[float, float], b: tuple[float, float], cost: CostAt, *, step: float
) -> bool:
    """Whether the straight line from ``a`` to ``b``, sampled every ``step`` metres, crosses
    ground of infinite cost."""
    return first_blocked(a, b, cost, step=step) is not None


def _segment_cost(
    a: tuple[float, float], b: tuple[float, float], cost: CostAt, step: float
) -> float:
    xs, ys = _segment(a, b, step)
    return float(cost(xs, ys).mean()) * math.dist(a, b)


def way_around(
    start: tuple[float, float],
    goal: tuple[float, float],
    cost: CostAt,
    *,
    cell: float,
    margin: float,
) -> list[tuple[float, float]] | None:
    """Where to steer, in order, to go from ``start`` toward ``goal`` at least cost: points
    ending at ``goal``, or at the reachable point nearest it when ``goal`` itself lies on
    ground of infinite cost; None when no cell nearer the goal than ``start`` can be reached
    in the window (the bounding box of the two, widened by ``margin`` metres).

    Cells next to forbidden ground count as forbidden (a body of troops has breadth: its
    centre keeps a cell off the edge), except the unit's own; the path is then pulled
    straight wherever a straight leg costs no more than the lattice's way between its ends.
    """
    x0 = min(start[0], goal[0]) - margin
    y0 = max(start[1], goal[1]) + margin
    width = abs(start[0] - goal[0]) + 2 * margin
    height = abs(start[1] - goal[1]) + 2 * margin
    cell = max(cell, math.sqrt(width * height / MAX_CELLS))
    cols, rows = max(2, math.ceil(width / cell)), max(2, math.ceil(height / cell))
    cx = x0 + (np.arange(cols) + 0.5) * cell
    cy = y0 - (np.arange(rows) + 0.5) * cell
    gx, gy = np.meshgrid(cx, cy)
    price = np.asarray(cost(gx.ravel(), gy.ravel()), dtype=float).reshape(rows, cols)
    forbidden = np.isinf(price)
    # one cell of margin around forbidden ground (8 neighbours)
    grown = forbidden.copy()
    grown[1:, :] |= forbidden[:-1, :]
    grown[:-1, :] |= forbidden[1:, :]
    grown[:, 1:] |= forbidden[:, :-1]
    grown[:, :-1] |= forbidden[:, 1:]
    grown[1:, 1:] |= forbidden[:-1, :-1]
    grown[:-1, :-1] |= forbidden[1:, 1:]
    grown[1:, :-1] |= forbidden[:-1, 1:]
    grown[:-1, 1:] |= forbidden[1:, :-1]

    def index(p: tuple[float, float]) -> tuple[int, int]:
        r = min(rows - 1, max(0, int((y0 - p[1]) // cell)))
        c = min(cols - 1, max(0, int((p[0] - x0) // cell)))
        return r, c

    s, g = index(start), index(goal)
    lattice = np.where(grown, np.inf, price)
    lattice[s] = price[s] if np.isfinite(price[s]) else 1.0  # where the unit stands
    # skimage imported here: only a blocked move needs it
    from skimage.graph import MCP_Geometric

    mcp = MCP_Geometric(lattice, fully_connected=True)
    totals, _ = mcp.find_costs([s])
    end = g
    if not np.isfinite(totals[g]):
        reach = np.isfinite(totals)
        d = np.hypot(gx - goal[0], gy - goal[1])
        d[~reach] = np.inf
        end = np.unravel_index(int(np.argmin(d)), d.shape)  # type: ignore[assignment]
        if not d[end] < math.dist(start, goal) - cell:
            return None
    cells = mcp.traceback(end)
    centres = [(float(cx[c]), float(cy[r])) for r, c in cells]
    if end == g:
        centres[-1] = (float(goal[0]), float(goal[1]))
    centres[0] = (float(start[0]), float(start[1]))
    acc = [float(totals[rc]) * cell for rc in cells]  # the lattice's cost to each cell
    # pull the path straight: from each point, the farthest later one a straight leg reaches
    # over allowed ground for no more than the lattice's way (searched by halving: a leg that
    # fails to one point mostly fails to those beyond it)
    out: list[tuple[float, float]] = []
    last = len(centres) - 1
    i = 0
    while i < last:
        lo, hi = i + 1, last  # the next point is always reached; search the farthest
        while lo < hi:
            j = (lo + hi + 1) // 2
            leg = _segment_cost(centres[i], centres[j], cost, cell / 2)
            if math.isfinite(leg) and leg <= (acc[j] - acc[i]) * 1.001 + 1e-6:
                lo = j
            else:
                hi = j - 1
        out.append(centres[lo])
        i = lo
    return out
