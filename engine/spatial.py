"""One spatial index of formation rectangles for the engine's pairwise queries.

Pairwise work (gaps, nearest enemies, hearing, troops in a line of sight) used to compare every
formation with every other: the square of the army. :class:`RectIndex` keeps the axis-aligned
boxes round the rectangles of one position state in a shapely ``STRtree`` (a packed R-tree,
GEOS) and answers with *candidates*: a superset of the rectangles that can satisfy the query,
for the exact test to run on. The box round a rectangle holds it, so the gap between two boxes is
never more than the gap between their rectangles, and a segment that crosses a rectangle crosses
its box: culling by boxes never drops an answer. The exact test then does the same arithmetic,
element by element, on fewer elements, so the answers are the same bit for bit.

>>> from engine.geometry import OBB, obb_array
>>> arr = obb_array([OBB(0.0, 0.0, 20.0, 10.0, 0.0), OBB(100.0, 0.0, 20.0, 10.0, 45.0),
...                  OBB(5000.0, 0.0, 20.0, 10.0, 0.0)])
>>> idx = RectIndex(arr)
>>> idx.within(0, 70.0).tolist()        # the far one is never a candidate
[0, 1]
>>> idx.crossing(np.array([[-50.0, 0.0]]), np.array([[150.0, 0.0]]))[1].tolist()
[0, 1]
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING

import numpy as np
import shapely

from engine.geometry import _axes

if TYPE_CHECKING:
    from engine.state import FormationTable

__all__ = [
    "BRUTE_PAIRS",
    "RectIndex",
    "box_gaps",
    "nearest_enemies",
    "rect_boxes",
    "table_box_gaps",
    "table_boxes",
]

#: boxes are grown by this much (metres) so that rounding in the exact tests can never find a
#: touch or a crossing the boxes missed
_PAD_M = 1e-3


class RectIndex:
    """Axis-aligned boxes round the rectangles ``arr`` ((N, 5): cx, cy, hw, hd, facing) in an
    R-tree; every query returns candidate indices, ascending, for the caller's exact test."""

    __slots__ = ("_geoms", "_strtree", "box", "n")

    def __init__(self, arr: np.ndarray) -> None:
        self.n = arr.shape[0]
        fx, fy, rx, ry = _axes(arr[:, 4]) if self.n else (np.zeros(0),) * 4
        hw, hd = arr[:, 2], arr[:, 3]
        # half extents of the box round a rectangle: |right| * hw + |forward| * hd per axis
        ex = np.abs(rx) * hw + np.abs(fx) * hd + _PAD_M
        ey = np.abs(ry) * hw + np.abs(fy) * hd + _PAD_M
        #: (N, 4) minx, miny, maxx, maxy
        self.box = np.column_stack([arr[:, 0] - ex, arr[:, 1] - ey, arr[:, 0] + ex, arr[:, 1] + ey])
        # the tree is built on the first query that needs it: many position states only ask
        # for the boxes (a few pairs' bounds), and building it costs more than they do
        self._geoms: np.ndarray | None = None
        self._strtree: shapely.STRtree | None = None

    @property
    def _boxes(self) -> np.ndarray:
        """The boxes as shapely geometries (built once, on first need)."""
        if self._geoms is None:
            self._geoms = shapely.box(*self.box.T) if self.n else np.zeros(0, dtype=object)
        return self._geoms

    @property
    def _tree(self) -> shapely.STRtree:
        """The R-tree of :attr:`_boxes` (built once, on first need)."""
        if self._strtree is None:
            self._strtree = shapely.STRtree(self._boxes)
        return self._strtree

    def lower_bounds(self, i: int) -> np.ndarray:
        """A lower bound (N,) of the gap from rectangle ``i`` to each rectangle: the gap between
        their boxes (0 when the boxes meet). One vectorised pass: cheaper than a tree query for
        one rectangle, and what a nearest-first search needs to stop early."""
        b, bi = self.box, self.box[i]
        gx = np.maximum(np.maximum(b[:, 0] - bi[2], bi[0] - b[:, 2]), 0.0)
        gy = np.maximum(np.maximum(b[:, 1] - bi[3], bi[1] - b[:, 3]), 0.0)
        return np.hypot(gx, gy)

    def lower_bound_matrix(self) -> np.ndarray:
        """:meth:`lower_bounds` of every rectangle at once: (N, N), cheap sums only (the exact
        gaps are then measured for the few pairs each row needs)."""
        b = self.box
        gx = np.maximum(
            np.maximum(b[None, :, 0] - b[:, None, 2], b[:, None, 0] - b[None, :, 2]), 0.0
        )
        gy = np.maximum(
            np.maximum(b[None, :, 1] - b[:, None, 3], b[:, None, 1] - b[None, :, 3]), 0.0
        )
        return np.hypot(gx, gy)

    def within(self, i: int, gap: float) -> np.ndarray:
        """Candidates for "rectangle within ``gap`` metres of rectangle ``i``" (``i`` included)."""
        if self.n == 0:
            return np.zeros(0, dtype=np.intp)
        return np.flatnonzero(self.lower_bounds(i) <= gap)

    def within_many(self, rows: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
        """Candidate pairs (row of ``rows``, other) for "within ``gap`` metres", ordered by row
        then other: one tree query for every row."""
        if self.n == 0 or len(rows) == 0:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        q, t = self._tree.query(self._boxes[rows], predicate="dwithin", distance=gap)
        order = np.lexsort((t, q))
        return np.asarray(rows)[q[order]], t[order]

    def box_gap_pairs(self, rows: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
        """The pairs (position in ``rows``, rectangle) whose boxes are at most ``gap`` apart
        (:func:`box_gaps` ``<= gap``, the same numbers), ordered by position then rectangle, as
        ``np.nonzero(box_gaps(self.box, rows) <= gap)``: the tree's candidates (boxes grown by
        ``gap`` and a millimetre that meet) measured pair by pair, not the whole matrix."""
        if self.n == 0 or len(rows) == 0:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        grow = gap + _PAD_M  # the growth's own rounding is far below a millimetre
        b = self.box[rows]
        q, t = self._tree.query(
            shapely.box(b[:, 0] - grow, b[:, 1] - grow, b[:, 2] + grow, b[:, 3] + grow)
        )
        bi, bo = b.take(q, axis=0), self.box.take(t, axis=0)  # rows: take, not fancy indexing
        gx = np.maximum(np.maximum(bo[:, 0] - bi[:, 2], bi[:, 0] - bo[:, 2]), 0.0)
        gy = np.maximum(np.maximum(bo[:, 1] - bi[:, 3], bi[:, 1] - bo[:, 3]), 0.0)
        keep = np.hypot(gx, gy) <= gap
        q, t = q[keep], t[keep]
        order = np.lexsort((t, q))
        return q[order], t[order]

    def crossing_few(self, ps: np.ndarray, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`crossing`'s candidates for a few segments, without the tree: every segment's
        box against every rectangle's box in numpy (cheaper than building the segments and
        querying when segments x rectangles is small). A superset of the rectangles a segment
        crosses, as the tree's (the padded boxes meet the segment's box wherever it touches a
        rectangle), ordered by segment then rectangle."""
        if self.n == 0 or len(ps) == 0:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        lo, hi, b = np.minimum(ps, qs), np.maximum(ps, qs), self.box
        meet = (lo[:, None, 0] <= b[None, :, 2]) & (hi[:, None, 0] >= b[None, :, 0])
        meet &= (lo[:, None, 1] <= b[None, :, 3]) & (hi[:, None, 1] >= b[None, :, 1])
        si, ri = np.nonzero(meet)
        return si, ri

    def crossing_unordered(self, ps: np.ndarray, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`crossing`'s candidate pairs in the tree's order (for callers that do not need
        them sorted: the sort costs several times the query on long lines through a crowd)."""
        if self.n == 0 or len(ps) == 0:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        coords = np.stack([ps, qs], axis=1)
        same = np.all(ps == qs, axis=1)
        if same.any():  # a zero-length segment: a point, which shapely keeps as a line of one
            coords = coords.copy()
            coords[same, 1] += 1e-9
        q, t = self._tree.query(shapely.linestrings(coords))
        return q, t

    def crossing(self, ps: np.ndarray, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Candidate pairs (segment, rectangle) for segments ``ps[k] -> qs[k]`` crossing a
        rectangle (their boxes meet), ordered by segment then rectangle."""
        if self.n == 0 or len(ps) == 0:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        coords = np.stack([ps, qs], axis=1)
        same = np.all(ps == qs, axis=1)
        if same.any():  # a zero-length segment: a point, which shapely keeps as a line of one
            coords = coords.copy()
            coords[same, 1] += 1e-9
        lines = shapely.linestrings(coords)
        # the boxes that meet each segment's own box (tree traversal only, no GEOS predicate:
        # measured 4x faster than "intersects" on 2 x 240 formations, and the slab test that
        # follows is cheap)
        q, t = self._tree.query(lines)
        order = np.lexsort((t, q))
        return q[order], t[order]


def nearest_enemies(
    arr: np.ndarray, sides: np.ndarray, k: int, ca: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """For every rectangle ``i`` of ``arr`` ((N, 5)), rows of the other sides' rectangles
    (``sides[j] != sides[i]``), ascending, that hold its ``k`` nearest by gap (ties
    included), and their gaps (``geometry.distance_pairs``; ``ca`` the corners of each row,
    (N, 4, 2) as ``geometry.corners`` makes them): without the gap of every pair.

    The centres of each side's enemies go in a k-d tree (scipy). The exact gaps to the ``k``
    nearest centres bound the ``k``-th smallest gap from above (``b``); a rectangle within gap
    ``b`` has its centre within ``b`` plus the two circumradii (the triangle inequality), so
    one ball query of that radius (with a margin far above rounding) finds every candidate,
    and only those are measured. Each gap is the same number as the full matrix's.

    >>> from engine.geometry import OBB, corners, obb_array
    >>> arr = obb_array([OBB(0.0, 0.0, 20.0, 10.0, 0.0), OBB(0.0, 50.0, 20.0, 10.0, 0.0),
    ...                  OBB(0.0, 900.0, 20.0, 10.0, 0.0)])
    >>> ca = np.array([corners(OBB(*r)) for r in arr.tolist()])
    >>> near = nearest_enemies(arr, np.array(["a", "b", "b"]), 1, ca)
    >>> near[0][0].tolist(), near[0][1].tolist(), near[1][0].tolist()
    ([1], [30.0], [0])
    """
    from engine.geometry import distance_rows

    n = arr.shape[0]
    empty = (np.zeros(0, dtype=np.intp), np.zeros(0))
    out: list[tuple[np.ndarray, np.ndarray]] = [empty] * n
    if n == 0:
        return out
    centres = arr[:, :2]
    radius = np.hypot(arr[:, 2], arr[:, 3])
    # per side: its rows, each row's count of candidates, the candidate pairs (rows), and
    # which of them _reach measured already (a row's k nearest centres) with those gaps
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    known: list[np.ndarray] = []
    known_gaps: list[np.ndarray] = []
    for side in dict.fromkeys(sides.tolist()):
        mine = np.flatnonzero(sides == side)
        foe = np.flatnonzero(sides != side)
        if foe.size == 0 or mine.size == 0:
            continue
        if foe.size <= k:  # every enemy is among the k nearest
            counts = np.full(mine.size, foe.size, dtype=np.intp)
            ii = np.repeat(mine, foe.size)
            jj = np.tile(foe, mine.size)
            known.append(np.zeros(ii.size, dtype=bool))
            known_gaps.append(np.zeros(ii.size))
            parts.append((mine, counts, ii, jj))
            continue
        if mine.size * foe.size <= BRUTE_PAIRS:
            # few pairs: every centre distance in one array (no k-d tree: building one, and
            # importing scipy.spatial at the first battle of a process, cost more)
            d = np.hypot(
                centres[mine, None, 0] - centres[None, foe, 0],
                centres[mine, None, 1] - centres[None, foe, 1],
            )
            nn = np.argpartition(d, k - 1, axis=1)[:, :k]  # k nearest centres (any on ties)
            reach, bound = _reach(arr, ca, mine, foe, nn, radius)
            near = d <= (reach * (1.0 + 1e-9) + 1e-6)[:, None]
            counts = near.sum(axis=1)
            at_m, at_f = np.nonzero(near)  # row by row, ascending
        else:
            from scipy.spatial import cKDTree

            tree = cKDTree(centres[foe])
            _d, nn = tree.query(centres[mine], k=k)
            nn = nn.reshape(mine.size, k)
            reach, bound = _reach(arr, ca, mine, foe, nn, radius)
            # each row's candidates ascending (the tree sorts them), flattened in one C pass
            found = tree.query_ball_point(
                centres[mine], reach * (1.0 + 1e-9) + 1e-6, return_sorted=True
            )
            counts = np.fromiter(map(len, found), dtype=np.intp, count=mine.size)
            at_m = np.repeat(np.arange(mine.size), counts)
            at_f = np.fromiter(chain.from_iterable(found), dtype=np.intp, count=int(counts.sum()))
        # the candidates _reach measured (elementwise the same numbers: not measured again)
        have = np.zeros(mine.size * foe.size, dtype=bool)
        gap = np.zeros(mine.size * foe.size)
        flat = (np.arange(mine.size)[:, None] * foe.size + nn).reshape(-1)
        have[flat] = True
        gap[flat] = bound.reshape(-1)
        key = at_m * foe.size + at_f
        known.append(have[key])
        known_gaps.append(gap[key])
        parts.append((mine, counts, mine[at_m], foe[at_f]))
    if not parts:
        return out
    # the gaps of every side's other candidates in one call (elementwise: the same numbers)
    ii = np.concatenate([p[2] for p in parts])
    jj = np.concatenate([p[3] for p in parts])
    gg = np.concatenate(known_gaps)
    miss = ~np.concatenate(known)
    gg[miss] = distance_rows(arr, ii[miss], jj[miss], ca)
    at = 0
    for mine, counts, _ii, _jj in parts:
        starts = (at + np.concatenate([[0], np.cumsum(counts)])).tolist()
        for m, r in enumerate(mine.tolist()):
            a, b = starts[m], starts[m + 1]
            out[r] = (jj[a:b], gg[a:b])
        at = starts[-1]
    return out


#: up to this many (formation, enemy) pairs a side, :func:`nearest_enemies` measures every
#: centre distance in one array instead of building a k-d tree
BRUTE_PAIRS = 16384


def _reach(
    arr: np.ndarray,
    ca: np.ndarray,
    mine: np.ndarray,
    foe: np.ndarray,
    nn: np.ndarray,
    radius: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The centre distance within which :func:`nearest_enemies` looks for each of ``mine``:
    the largest exact gap to the ``k`` enemies ``foe[nn[m]]`` ((M, k) positions in ``foe``;
    any ``k`` of them bound the ``k``-th smallest gap from above) plus its circumradius and
    the largest of the enemies' (``radius``: every rectangle's); and those gaps (M, k)."""
    from engine.geometry import distance_rows

    k = nn.shape[1]
    rows = np.repeat(mine, k)
    bound = distance_rows(arr, rows, foe[nn.reshape(-1)], ca).reshape(mine.size, k)
    return np.asarray(bound.max(axis=1) + radius[mine] + radius[foe].max()), bound


def rect_boxes(arr: np.ndarray) -> np.ndarray:
    """The axis-aligned boxes round the rectangles ``arr`` ((N, 5)) as :class:`RectIndex`
    makes them ((N, 4): minx, miny, maxx, maxy, grown by the same pad), without the tree:
    for questions asked of a few rectangles against all, where building a tree costs more."""
    n = arr.shape[0]
    fx, fy, rx, ry = _axes(arr[:, 4]) if n else (np.zeros(0),) * 4
    hw, hd = arr[:, 2], arr[:, 3]
    ex = np.abs(rx) * hw + np.abs(fx) * hd + _PAD_M
    ey = np.abs(ry) * hw + np.abs(fy) * hd + _PAD_M
    return np.column_stack([arr[:, 0] - ex, arr[:, 1] - ey, arr[:, 0] + ex, arr[:, 1] + ey])


def table_boxes(t: FormationTable) -> np.ndarray:
    """:func:`rect_boxes` of a formation table's rectangles, kept in its memo for the table's
    revision (shared by every phase that asks before the table next changes)."""
    box = t.memo.get("rect_boxes")
    if box is None:
        box = t.memo["rect_boxes"] = rect_boxes(t.arr)
    return box


def table_box_gaps(t: FormationTable, row: int) -> np.ndarray:
    """Lower bounds (N,) of the gaps from rectangle ``row`` of table ``t`` to every rectangle
    of it: the gaps between the boxes round them (:func:`table_boxes`, :func:`box_gaps`)."""
    return box_gaps(table_boxes(t), np.array([row]))[0]


def box_gaps(box: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The gap between the boxes ``box[rows]`` and every box ((len(rows), N), 0 where they
    meet): a lower bound of the gap between the rectangles (:meth:`RectIndex.lower_bounds`,
    row by row)."""
    b, bi = box[None, :, :], box[rows][:, None, :]
    gx = np.maximum(np.maximum(b[..., 0] - bi[..., 2], bi[..., 0] - b[..., 2]), 0.0)
    gy = np.maximum(np.maximum(b[..., 1] - bi[..., 3], bi[..., 1] - b[..., 3]), 0.0)
    return np.hypot(gx, gy)
