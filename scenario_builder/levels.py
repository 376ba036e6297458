"""Height steps (6.2): smoothed elevation quantised into levels, small relief removed, contours.

6.2 asks for "slopes and rises modelled on the battlefield in steps rather than smooth surfaces",
so that every unit is plainly higher, lower or level with another. The DEM is smoothed (gaussian,
in metres), cut into steps of ``step`` metres (default 2 m, near man-height) counted up from the
lowest step, and peaks and hollows smaller than ``min_area_m2`` are removed by an area opening and
closing at every level threshold (:func:`remove_small_relief`), so DEM noise does not make
one-cell knolls and pits. Each threshold is decided on its own: unlike merging small regions
into a neighbour, nothing can cascade down a slope, and the levels stay within a level of the
smoothed ground (:func:`level_fidelity`). Step and smoothing are per battlefield (``site.json``
``levels``, the scenario's ``battlefield`` section, or ``build --step/--smooth``).

>>> import numpy as np
>>> z = np.array([[100.0, 101.0, 102.5, 104.9]])
>>> quantise(z, 2.0)
(array([[0, 0, 1, 2]], dtype=int16), 100.0)
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, cast

import numpy as np
from affine import Affine
from scipy import ndimage

# 6.2's step, the smoothing and the smallest region: defined beside the build's other defaults
from scenario_builder.build_defaults import MIN_AREA_M2, SMOOTH_M, STEP_M


def smooth(elevation: np.ndarray, res: float, sigma_m: float = SMOOTH_M) -> np.ndarray:
    """Gaussian-smoothed elevation (sigma in metres; 0 = no smoothing), float32."""
    if sigma_m <= 0:
        return elevation.astype(np.float32)
    return ndimage.gaussian_filter(
        elevation.astype(np.float32), sigma=sigma_m / res, mode="nearest"
    )


def quantise(smoothed: np.ndarray, step: float) -> tuple[np.ndarray, float]:
    """Levels ``floor((z - base) / step)`` (int16) and ``base``, the floor of the lowest step.

    Monotone by construction: a higher smoothed elevation never gets a lower level.
    """
    if not step > 0:
        raise ValueError(f"expected a positive step, got {step}")
    k = np.floor(smoothed.astype(np.float64) / step)  # one rounding for both levels and base
    k0 = float(k.min())
    base = k0 * step
    levels = k - k0
    if levels.max() > np.iinfo(np.int16).max:
        raise ValueError(f"step {step} m gives more than {np.iinfo(np.int16).max} levels")
    return levels.astype(np.int16), base


def _label(levels: np.ndarray, connectivity: int = 1) -> tuple[np.ndarray, int]:
    """Connected regions of equal level (``connectivity`` 1 = 4-, 2 = 8-connected): labels 1..n."""
    from skimage.measure import label

    lv = levels.astype(np.int32, copy=False)
    lab, n = label(lv, connectivity=connectivity, background=_NO_LEVEL, return_num=True)
    return lab.astype(np.int32, copy=False), int(n)


_NO_LEVEL = np.iinfo(np.int32).min  # a value no level takes: skimage's "background"
# (row, col) offsets that, with their opposites, give all eight neighbours of a cell
_HALF_NEIGHBOURHOOD = ((0, 1), (1, 0), (1, 1), (1, -1))


def _zone_edges(lab: np.ndarray, n: int, connectivity: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(a, b)``, a < b, of adjacent flat zones (each pair once): sharing an edge
    (``connectivity`` 1) or an edge or a corner (2)."""
    h, w = lab.shape
    keys = []
    for dr, dc in _HALF_NEIGHBOURHOOD[: 2 * connectivity]:
        c0, c1 = max(0, -dc), w - max(0, dc)
        a = lab[: h - dr, c0:c1].ravel()
        b = lab[dr:, c0 + dc : c1 + dc].ravel()
        diff = a != b
        a, b = a[diff].astype(np.int64), b[diff].astype(np.int64)
        keys.append(np.minimum(a, b) * (n + 1) + np.maximum(a, b))
    k = np.unique(np.concatenate(keys))
    return k // (n + 1), k % (n + 1)


def area_open(levels: np.ndarray, min_cells: int, connectivity: int = 2) -> np.ndarray:
    """Grey-level area opening of a level image: at every threshold k, each connected part of
    ``levels >= k`` smaller than ``min_cells`` is lowered to k-1 (a small peak is cut down to the
    ground around it). Parts are joined through cell edges (``connectivity`` 1) or edges and
    corners (2). Same result as ``skimage.morphology.area_opening(levels, min_cells,
    connectivity)``, computed on the graph of flat zones instead of the max-tree of every cell:
    ground levelled in 2 m steps has a few thousand zones where the grid has a million cells.

    Each threshold is decided on its own, so nothing cascades: a cell keeps its level unless the
    part of the ground at or above that level around it is small, and two neighbours (in the
    sense of ``connectivity``) never end up further apart than they were (the part that keeps
    one of them up, grown by the other, keeps the other at least as high).

    >>> import numpy as np
    >>> lv = np.zeros((5, 5), np.int16); lv[2, 2] = 3          # a one-cell spike
    >>> area_open(lv, 2)[2, 2], area_open(lv, 1)[2, 2]
    (np.int16(0), np.int16(3))
    """
    if min_cells <= 1 or levels.size == 0:
        return levels.copy()
    zones = _FlatZones.of(levels, connectivity)
    return zones.paint(zones.area_open(min_cells), levels.dtype)


def area_close(levels: np.ndarray, min_cells: int, connectivity: int = 2) -> np.ndarray:
    """Grey-level area closing: the dual of :func:`area_open` (small hollows filled up to the
    ground around them)."""
    neg = -levels.astype(np.int32)
    return (-area_open(neg, min_cells, connectivity)).astype(levels.dtype)


def remove_small_relief(levels: np.ndarray, min_cells: int) -> np.ndarray:
    """Area opening then area closing: peaks and hollows under ``min_cells`` cells removed at every
    level, each level threshold decided on its own (no merge can cascade down a slope).

    Parts are joined through cell edges only: a cut layer's piece that touches the rest at one
    corner is a separate piece of board (and the print's smoothed outline cannot keep it), so it
    counts on its own size. Edge-neighbours never move apart; corner-neighbours are checked on
    real ground by :func:`level_fidelity` (none on Flodden, Bayreuth or Gettysburg).

    One labelling serves both: an area opening is constant on each flat zone, so the opened
    image's zones are the old zones joined where the opening gave two neighbours one level.
    """
    if min_cells <= 1 or levels.size == 0:
        return levels.copy()
    zones = _FlatZones.of(levels, 1)
    opened = zones.area_open(min_cells)
    merged = zones.merge_equal(opened)
    closed = -merged.area_open(min_cells, negate=True)
    return zones.paint(closed[merged.of_old], levels.dtype)


class _FlatZones:
    """The graph of flat zones (connected cells of one level): zone ``lab`` per cell (1..n),
    ``level`` and ``size`` per zone, adjacent pairs ``ea < eb``."""

    def __init__(
        self,
        lab: np.ndarray | None,
        level: np.ndarray,
        size: np.ndarray,
        ea: np.ndarray,
        eb: np.ndarray,
        of_old: np.ndarray | None = None,
    ) -> None:
        self.lab, self.level, self.size, self.ea, self.eb = lab, level, size, ea, eb
        self.of_old = of_old  # for merged zones: the new zone of each old one

    @classmethod
    def of(cls, levels: np.ndarray, connectivity: int) -> _FlatZones:
        lab, n = _label(levels, connectivity=connectivity)
        size = np.bincount(lab.ravel(), minlength=n + 1)
        level = np.zeros(n + 1, dtype=np.int64)
        level[lab.ravel()] = levels.ravel()
        ea, eb = _zone_edges(lab, n, connectivity)
        return cls(lab, level, size, ea, eb)

    def paint(self, per_zone: np.ndarray, dtype: np.dtype) -> np.ndarray:
        assert self.lab is not None
        return np.asarray(per_zone, dtype=np.int64)[self.lab].astype(dtype)

    def merge_equal(self, per_zone: np.ndarray) -> _FlatZones:
        """The zones of the image that gives each zone ``per_zone``: neighbours of one value
        joined (zone 0, no cell, stays 0)."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        n1 = len(self.level)
        same = per_zone[self.ea] == per_zone[self.eb]
        graph = coo_matrix(
            (np.ones(int(same.sum()), dtype=np.int8), (self.ea[same], self.eb[same])),
            shape=(n1, n1),
        )
        _, comp = connected_components(graph, directed=False)
        comp = comp.astype(np.int64)
        # renumber so that zone 0 stays 0 and the others are 1..m
        order = np.unique(comp[1:])
        new_id = np.zeros(comp.max() + 1, dtype=np.int64)
        new_id[order] = np.arange(1, len(order) + 1)
        of_old = new_id[comp]
        of_old[0] = 0
        m1 = len(order) + 1
        size = np.bincount(of_old, weights=self.size, minlength=m1).astype(np.int64)
        level = np.zeros(m1, dtype=np.int64)
        level[of_old] = per_zone
        a, b = of_old[self.ea], of_old[self.eb]
        diff = a != b
        keys = np.unique(np.minimum(a[diff], b[diff]) * m1 + np.maximum(a[diff], b[diff]))
        return _FlatZones(None, level, size, keys // m1, keys % m1, of_old)

    def area_open(self, min_cells: int, negate: bool = False) -> np.ndarray:
        """Area opening on the zone graph (of the negated levels if ``negate``): the opened level
        per zone."""
        zone_level = -self.level if negate else self.level
        n = len(zone_level) - 1
        if n <= 1 or self.size[1:].min() >= min_cells:
            return zone_level.copy()  # every zone is big, so every part holding one is too
        ea, eb, size = self.ea, self.eb, self.size
        ew = np.minimum(zone_level[ea], zone_level[eb])  # both ends are in ``levels >= ew``
        # thresholds from the top down: zones join at their own level, edges at the lower end's
        z_order = np.argsort(-zone_level[1:], kind="stable") + 1
        e_order = np.argsort(-ew, kind="stable")
        zones_by_level = zone_level[z_order].tolist()
        zones = z_order.tolist()
        edges_a, edges_b = ea[e_order].tolist(), eb[e_order].tolist()
        edges_w = ew[e_order].tolist()
        parent = list(range(n + 1))
        csize = size.tolist()
        pending: list[list[int]] = [[] for _ in range(n + 1)]  # zones of a part not yet big
        lowest = int(zone_level[1:].min())
        result = [lowest] * (n + 1)  # a grid smaller than min_cells sinks to its lowest level

        def find(x: int) -> int:
            root = x
            while parent[root] != root:
                root = parent[root]
            while parent[x] != root:
                parent[x], x = root, parent[x]
            return root

        zi = ei = 0
        n_zones, n_edges = len(zones), len(edges_w)
        while zi < n_zones:
            k = zones_by_level[zi]
            touched: list[int] = []
            while zi < n_zones and zones_by_level[zi] == k:
                z = zones[zi]
                pending[z] = [z]
                touched.append(z)
                zi += 1
            while ei < n_edges and edges_w[ei] == k:
                ra, rb = find(edges_a[ei]), find(edges_b[ei])
                ei += 1
                if ra == rb:
                    continue
                if csize[ra] < csize[rb]:
                    ra, rb = rb, ra
                parent[rb] = ra
                csize[ra] += csize[rb]
                pa, pb = pending[ra], pending[rb]
                if len(pa) < len(pb):
                    pa, pb = pb, pa
                pa.extend(pb)
                pending[ra], pending[rb] = pa, []
                touched.append(ra)
            for t in touched:
                r = find(t)
                if csize[r] >= min_cells and pending[r]:
                    for z in pending[r]:
                        result[z] = k  # the highest threshold at which its part is big enough
                    pending[r] = []
        return np.asarray(result, dtype=np.int64)


def make_levels(
    elevation: np.ndarray,
    res: float,
    *,
    step: float = STEP_M,
    smooth_m: float = SMOOTH_M,
    min_area_m2: float = MIN_AREA_M2,
) -> tuple[np.ndarray, np.ndarray, float]:
    """(levels int16, smoothed elevation float32, base elevation of level 0).

    ``min_area_m2`` is an area on the ground, so the same hills survive at any cell size.
    """
    smoothed = smooth(elevation, res, smooth_m)
    levels, base = quantise(smoothed, step)
    min_cells = int(np.ceil(min_area_m2 / (res * res)))
    out = remove_small_relief(levels, min_cells)
    lo = int(out.min())  # a filled lowest hollow moves level 0 up: count from what is left
    return (out - lo).astype(np.int16), smoothed, base + lo * step


def level_fidelity(
    levels: np.ndarray, smoothed: np.ndarray, step: float, base: float
) -> tuple[float, int]:
    """(share of cells within one level of their smoothed elevation's band, number of 8-neighbour
    pairs further apart in levels than ``ceil(|dz| / step) + 1``): the two checks a level image
    must pass to follow the ground (6.2)."""
    band = np.floor((smoothed.astype(np.float64) - base) / step + 1e-9)
    within = float((np.abs(levels.astype(np.int64) - band) <= 1).mean())
    lv = levels.astype(np.int64)
    z = smoothed.astype(np.float64)
    h, w = lv.shape
    bad = 0
    for dr, dc in _HALF_NEIGHBOURHOOD:
        c0, c1 = max(0, -dc), w - max(0, dc)
        dl = np.abs(lv[: h - dr, c0:c1] - lv[dr:, c0 + dc : c1 + dc])
        dz = np.abs(z[: h - dr, c0:c1] - z[dr:, c0 + dc : c1 + dc])
        bad += int((dl > np.ceil(dz / step - 1e-9) + 1).sum())
    return within, bad


class ContourSet(NamedTuple):
    """Contour lines as flat arrays: line i has ``level[i]`` (the level above it) and the points
    ``xy[offsets[i]:offsets[i + 1]]`` in map coordinates."""

    level: np.ndarray
    xy: np.ndarray
    offsets: np.ndarray


#: contourpy's cost per grid cell to set up a generator, and per cell and threshold to trace
#: (ns, measured on Gettysburg's 1.2 M cells): what :func:`_threshold_groups` balances
_SETUP_NS, _TRACE_NS = 9.0, 4.3


def _threshold_boxes(levels: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """(hi - lo, 4): for each threshold k + 0.5, k = lo..hi-1, the first and last row and
    column of the quads (2 x 2 cells) it crosses, i.e. whose lowest cell is <= k < highest;
    -1 for the last row of a threshold no quad crosses."""
    a, b, c, d = levels[:-1, :-1], levels[1:, :-1], levels[:-1, 1:], levels[1:, 1:]
    qmin = np.minimum(np.minimum(a, b), np.minimum(c, d))
    qmax = np.maximum(np.maximum(a, b), np.maximum(c, d))
    r, cc = np.nonzero(qmax > qmin)
    klo = qmin[r, cc].astype(np.int64) - lo  # the quad is crossed by thresholds klo..khi-1
    khi = qmax[r, cc].astype(np.int64) - lo
    n = hi - lo
    out = []
    for idx, size in ((r, qmin.shape[0]), (cc, qmin.shape[1])):
        # per (threshold, row or column): +1 where a quad's run of thresholds starts, -1 after
        # it ends; the running sum over thresholds is > 0 where one crosses
        m = (n + 1) * size
        diff = np.bincount(klo * size + idx, minlength=m) - np.bincount(
            khi * size + idx, minlength=m
        )
        cover = np.cumsum(diff.reshape(n + 1, size), axis=0)[:n] > 0
        seen = cover.any(axis=1)
        out.append(np.where(seen, cover.argmax(axis=1), 0))
        out.append(np.where(seen, size - 1 - cover[:, ::-1].argmax(axis=1), -1))
    return np.stack(out, axis=1)


def _threshold_groups(boxes: np.ndarray) -> list[tuple[int, int]]:
    """Runs ``[i, j)`` of consecutive thresholds, each traced by one contourpy generator over the
    union of their boxes: the split that costs least (dynamic programming over the runs; a few
    hundred thresholds at most) between setting up many small generators and tracing every
    threshold over one large one."""
    rows = boxes.tolist()
    n = len(rows)
    best = [0.0] + [math.inf] * n
    cut = [0] * (n + 1)
    for j in range(1, n + 1):
        r0 = c0 = math.inf
        r1 = c1 = -1.0
        for i in range(j, 0, -1):
            b0, b1, b2, b3 = rows[i - 1]
            if b1 >= 0:
                r0, r1, c0, c1 = min(r0, b0), max(r1, b1), min(c0, b2), max(c1, b3)
            cells = (r1 - r0 + 2) * (c1 - c0 + 2) if r1 >= 0 else 0.0
            cost = best[i - 1] + cells * (_SETUP_NS + _TRACE_NS * (j - i + 1))
            if cost < best[j]:
                best[j], cut[j] = cost, i - 1
    runs = []
    j = n
    while j > 0:
        runs.append((cut[j], j))
        j = cut[j]
    return runs[::-1]


def contour_set(levels: np.ndarray, transform: Affine) -> ContourSet:
    """Boundary lines between level k and k+1 for every k, traced by ``contourpy``
    (``multi_lines`` at every k + 0.5).

    Each line runs where ``level >= k+1`` meets ``level <= k`` (through cell-edge midpoints), so
    the lines are exactly the outlines of the level regions: the cut lines of a printed layer.
    Where neighbours differ by several levels, one line per level runs along the same edge.

    A threshold is traced only over the box of the quads it crosses (a level's lines span about
    half the grid on real ground), consecutive thresholds sharing one generator over the union
    of their boxes (:func:`_threshold_groups`): every line it crosses lies inside, and no line
    ends at the box's edge unless it ends at the grid's, so the lines, their order and their
    points are those of one generator over the whole grid (tests/test_terrain_levels.py).
    """
    import contourpy

    lo, hi = int(levels.min()), int(levels.max())
    if lo == hi:
        return ContourSet(np.zeros(0, np.int32), np.zeros((0, 2)), np.zeros(1, np.int64))
    boxes = _threshold_boxes(levels, lo, hi)
    z = levels.astype(np.float32)
    pts: list[np.ndarray] = []
    lens: list[np.ndarray] = []
    lvls: list[np.ndarray] = []
    for i, j in _threshold_groups(boxes):
        run = boxes[i:j]
        crossed = run[:, 1] >= 0
        if not crossed.any():
            continue
        r0, r1 = int(run[crossed, 0].min()), int(run[crossed, 1].max()) + 2
        c0, c1 = int(run[crossed, 2].min()), int(run[crossed, 3].max()) + 2
        # the box's own columns and rows as x and y: contourpy interpolates between the very
        # coordinates it would use over the whole grid (the same floating-point sums)
        gen = contourpy.contour_generator(
            x=np.arange(c0, c1, dtype=np.float64),
            y=np.arange(r0, r1, dtype=np.float64),
            z=z[r0:r1, c0:c1],
            line_type=contourpy.LineType.ChunkCombinedOffset,
        )
        ks = range(lo + 1 + i, lo + 1 + j)
        # ChunkCombinedOffset: (points, offsets) per threshold; contourpy's stubs type the union
        per_level: list[Any] = list(gen.multi_lines(np.array(ks, dtype=np.float64) - 0.5))
        for k, (points, offsets) in zip(ks, per_level, strict=True):
            p, o = points[0], offsets[0]  # one chunk: the whole box
            if p is None or len(o) < 2:
                continue
            lengths = np.diff(o.astype(np.int64))
            keep = lengths >= 2  # a one-point line is no line
            if not keep.all():
                p, lengths = p[np.repeat(keep, lengths)], lengths[keep]
            pts.append(p)
            lens.append(lengths)
            lvls.append(np.full(len(lengths), k, dtype=np.int32))
    if not pts:
        return ContourSet(np.zeros(0, np.int32), np.zeros((0, 2)), np.zeros(1, np.int64))
    xy = np.concatenate(pts)
    lengths = np.concatenate(lens)
    cols, rows = xy[:, 0] + 0.5, xy[:, 1] + 0.5  # contourpy indexes cell centres from 0
    xs, ys = cast(Any, transform) @ (cols, rows)  # affine's stubs know no array pairs
    return ContourSet(
        np.concatenate(lvls),
        np.column_stack([xs, ys]),
        np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
    )


def contour_lines(levels: np.ndarray, transform: Affine) -> list[tuple[int, np.ndarray]]:
    """:func:`contour_set` as ``(k+1, Nx2 map coordinates)`` pairs, one per line."""
    cs = contour_set(levels, transform)
    return [
        (int(k), cs.xy[a:b])
        for k, a, b in zip(cs.level, cs.offsets[:-1], cs.offsets[1:], strict=True)
    ]
