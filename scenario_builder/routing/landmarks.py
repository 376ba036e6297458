"""Landmark lower bounds (ALT: A*, landmarks, triangle inequality) for the routing graph's A*.

The straight-line distance is a weak guide where woods are scattered: the true cost is a few per
cent above it, and A* then opens a wide ellipse of nodes. Distances from a few landmarks on the
battlefield's rim, computed once per graph, give a much tighter bound by the triangle inequality:
``d(n, t) >= |d(L, t) - d(L, n)|`` for every landmark ``L``. Removing edges (enemy bases) only
lengthens distances, so the bound stays admissible for every bound of the battle.

>>> import numpy as np
>>> xy = lambda ids: np.stack([ids, 0 * ids], axis=1).astype(float)
>>> lm = Landmarks.build(np.array([0, 1]), np.array([1, 2]), np.array([1.0, 1.0]), xy, count=2)
>>> lm.bound(0, lm.target([(2, 0.0)]))     # a path 0-1-2: 2 from node 0 to node 2
2.0
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import sub

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra


@dataclass(frozen=True, eq=False)
class Landmarks:
    """``index``: node id -> row; ``table``: the rows node-major, ``count`` distances a row (row
    ``i`` at ``table[i * count : (i + 1) * count]``), -1 where the landmark cannot reach the node.

    Node-major, so the search reads one node's distances as one slice (:meth:`row_of`) and bounds
    it against the target's in C-level ``map`` calls, not a Python loop over the landmarks."""

    index: dict[int, int] | array
    table: array
    count: int

    @classmethod
    def build(
        cls,
        lo: np.ndarray,
        hi: np.ndarray,
        weight: np.ndarray,
        xy_of: Callable[[np.ndarray], np.ndarray],
        *,
        count: int = 8,
        id_space: int | None = None,
    ) -> Landmarks:
        """Landmarks spread round the rim of the nodes' bounding box (``xy_of(ids)`` -> (n, 2)).

        Node ids index a dense table when ``id_space`` (the number of possible ids) is given,
        else a dict."""
        nodes = np.unique(np.concatenate([lo, hi]))
        pos = np.searchsorted(nodes, [lo, hi])
        n = nodes.size
        mat = coo_matrix((weight, (pos[0], pos[1])), shape=(n, n)).tocsr()
        xy = np.asarray(xy_of(nodes), dtype=float)
        picks = _rim_nodes(xy, count)
        dist = dijkstra(mat, directed=False, indices=picks)
        dist = np.where(np.isfinite(dist), dist, -1.0)  # unreachable: no bound from it
        if id_space is None:
            index: dict[int, int] | array = {int(k): i for i, k in enumerate(nodes.tolist())}
        else:
            dense = np.full(id_space, -1, dtype=np.int32)
            dense[nodes] = np.arange(n, dtype=np.int32)
            index = array("i", dense.tobytes())
        table = array("d", np.ascontiguousarray(dist.T, dtype=np.float64).tobytes())
        return cls(index=index, table=table, count=len(picks))

    def row_of(self, node: int) -> array:
        """The landmarks' distances to ``node``."""
        i = self.index[node] * self.count
        return self.table[i : i + self.count]

    def target(self, links: Sequence[tuple[int, float]]) -> tuple[float, ...]:
        """Landmark distances of a temporary end joined to graph nodes by ``(node, weight)``."""
        rows = [(self.row_of(n), w) for n, w in links]
        out = []
        for k in range(self.count):
            vals = [row[k] + w for row, w in rows if row[k] >= 0]
            out.append(min(vals) if vals else -1.0)
        return tuple(out)

    def bound(self, node: int, target: Sequence[float]) -> float:
        """Lower bound on the graph distance from ``node`` to the end with ``target`` distances:
        ``max |d(L, n) - d(L, t)|`` over the landmarks.

        A landmark that reaches neither counts 0 (both -1). One that reaches only one of them
        gives a number that bounds nothing, but then the node and the target lie in different
        parts of the graph (the ends' links join a block's own vertices, never two parts), so no
        path through the node reaches the target and its bound never decides a route."""
        return max(map(abs, map(sub, self.row_of(node), target)), default=0.0)


def _rim_nodes(xy: np.ndarray, count: int) -> list[int]:
    """Nodes nearest to ``count`` points spread evenly round the bounding box."""
    (x0, y0), (x1, y1) = xy.min(axis=0), xy.max(axis=0)
    w, h = x1 - x0, y1 - y0
    perimeter = 2 * (w + h)
    picks: list[int] = []
    for k in range(count):
        s = perimeter * k / count
        if s < w:
            p = (x0 + s, y0)
        elif s < w + h:
            p = (x1, y0 + s - w)
        elif s < 2 * w + h:
            p = (x1 - (s - w - h), y1)
        else:
            p = (x0, y1 - (s - 2 * w - h))
        i = int(np.argmin((xy[:, 0] - p[0]) ** 2 + (xy[:, 1] - p[1]) ** 2))
        if i not in picks:
            picks.append(i)
    return picks
