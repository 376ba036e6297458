"""Smooth level outlines and class regions for print: the 0.5 isoline of each blurred mask.

The rules' levels (6.2) live on the battlefield grid (25 m cells for SRTM sites), so the raw
outline of "ground at level >= k" is a staircase of cell edges: at 2mm scale every step is a
25 mm notch on the table, and simplifying it cuts odd diagonals across cells. For the printed
contours, tints and cut layers each mask ``level >= k`` is

1. upsampled ``u`` times by repeating cells (the same raster, finer samples),
2. blurred with a gaussian of ``SIGMA_CELLS`` cells,
3. cut at 0.5 (filled marching squares, ``contourpy``), which reaches the edge of the map exactly.

Why this and not Chaikin corner cutting or a buffer open/close of the traced polygons:

* **Nesting for free.** ``level >= k+1`` implies ``level >= k``, the blur is a positive linear
  filter, so the blurred mask of k+1 is nowhere above that of k and its 0.5 region lies inside
  (marching squares on one grid keep the order). The caller still intersects each outline with
  the one below so rounding can never make a board overhang the board it stands on.
* **Fidelity by construction.** A straight raster edge maps to itself (the blurred step is 0.5
  exactly on the edge); a staircase of one-cell steps becomes the straight line through it (the
  one-cell wiggle is damped by exp(-2 pi^2 sigma^2) ~ 0.7 %); corners are rounded by about a
  third of a cell. Measured Hausdorff distance to the raw traced outline is at most ~0.55 cell on
  Flodden and Gettysburg (tests/test_maps_smoothing.py), within the one-cell bound.
* **Nothing vanishes.** With sigma = 0.5 cell a one-cell-wide strip still peaks at
  2 Phi(1) - 1 = 0.68 > 0.5, so strips, necks and holes as thin as a cell survive; level regions
  are at least ``min_area_m2`` (2 ha, 32 cells) after despeckling, far above that. sigma = 1 cell
  (smoother long steps) would cut one-cell necks (peak 0.38) and was rejected for that.
* Chaikin rounds each ring on its own (holes and neighbouring levels can cross, then need
  repair) and keeps the steps' phase; a buffer open/close at half a cell deletes one-cell necks.

Work is cropped to the printed window (plus a margin of blur) and the upsampling factor is chosen
so a level costs at most ``BUDGET`` samples: the demo's 81 levels take about 1 s.

**Terrain classes** (``smooth_classes``: the printed wet, debris, woods, impractical fills) go the
same way, one mask ``class == c`` each, with one difference: class regions are often a single
cell wide (streams, hedges, ditches, rides and clearings) and drawn corner to corner
(8-connected). Blurred as they stand, two cells meeting at a corner are 0.46 at that corner and a
lone cell peaks at 0.47, so a diagonal stream would print as a row of dots and a lone cell (or a
one-cell clearing) not at all. So ``thin_weights`` first gives the two empty cells of every
corner-only contact a quarter weight (the stream becomes a straight band about 0.9 cell wide
along its cells' centres, where the cells alone are 0.7 cell wide by area: well within a cell of
the raster; a diagonal ride through a wood is kept the same way, from the other side), then any
cell whose centre is still below 0.5 (a lone cell, a stream's end) is raised and any cell outside
whose centre is above it (a lone hole, a bridge between too many neighbours) lowered. Then every
cell's centre lies on its own side of the line, so every raster edge is within 0.71 cell of it.
Levels need none of this (their regions are 2 ha and more) and keep the plain mask, which also
keeps their nesting exact.

>>> import numpy as np, affine
>>> level = np.zeros((12, 12), np.int16); level[3:9, 3:9] = 1
>>> out = smooth_outlines(level, affine.Affine(10, 0, 0, 0, -10, 120), [1])
>>> round(out[1].area / 3600, 2), out[1].within(shapely.box(25, 25, 95, 95))
(0.97, True)
>>> stream = np.eye(12, dtype=np.int16) * 1  # one cell wide, corner to corner
>>> got = smooth_classes(stream, affine.Affine(10, 0, 0, 0, -10, 120), [1])[1]
>>> got.geom_type, round(got.area / 1200, 2)  # one band, a quarter wider than its 12 cells
('Polygon', 1.24)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import contourpy
import numpy as np
import shapely
from scipy import ndimage
from shapely.geometry.base import BaseGeometry

SIGMA_CELLS = 0.5  # keeps one-cell strips (peak 0.68 > 0.5), straightens one-cell staircases
BUDGET = 400_000  # samples per level: sets the upsampling factor for big windows
MAX_UPSAMPLE = 4  # 1/4 cell resolves the rounded corners; more only adds vertices
SIMPLIFY_CELLS = 0.04  # drops collinear samples (1 m at 25 m cells: 1 mm on a 2mm table)


def crop_cells(
    shape: tuple[int, int],
    transform: Any,
    window: tuple[float, float, float, float] | None,
    pad: int,
) -> tuple[int, int, int, int]:
    """Rows and columns ``(r0, r1, c0, c1)`` of the grid covering ``window`` plus ``pad`` cells.

    >>> import affine
    >>> crop_cells((100, 100), affine.Affine(10, 0, 0, 0, -10, 1000), (200, 300, 400, 500), 3)
    (47, 73, 17, 43)
    """
    rows, cols = shape
    if window is None:
        return 0, rows, 0, cols
    inv = ~transform
    xs = (window[0], window[2], window[0], window[2])
    ys = (window[1], window[1], window[3], window[3])
    cs, rs = inv @ (np.asarray(xs), np.asarray(ys))
    r0 = max(0, math.floor(min(rs)) - pad)
    r1 = min(rows, math.ceil(max(rs)) + pad)
    c0 = max(0, math.floor(min(cs)) - pad)
    c1 = min(cols, math.ceil(max(cs)) + pad)
    return r0, max(r1, r0), c0, max(c1, c0)


def upsample_factor(cells: int, budget: int = BUDGET) -> int:
    """Samples per cell side so a level stays within ``budget`` samples (1..MAX_UPSAMPLE).

    >>> upsample_factor(120 * 120), upsample_factor(395 * 395)
    (4, 1)
    """
    return max(1, min(MAX_UPSAMPLE, int(math.sqrt(budget / max(cells, 1)))))


BRIDGE = 0.25  # a corner-only contact blurs to 0.46 alone, 0.57 with two quarter-weight cells
SHOW = 0.58  # a cell's centre at least this in its mask, at most 1 - SHOW outside (a lone cell
# is 0.47 as it stands); the margin covers the sampled blur's difference from the exact one


def thin_weights(mask: np.ndarray) -> np.ndarray:
    """``mask`` as weights to blur, with each corner-only contact kept joined for the thinner side.

    Where two cells of the mask meet only at a corner, so do two cells outside it (a saddle):
    the blur would part both. The side with fewer cells in the 4 x 4 cells round the contact (a
    stream in a field, a ride through a wood) keeps its link: its two other cells get weight
    ``BRIDGE`` (or lose it, when the thin side is outside the mask); a tie goes to the mask.

    >>> thin_weights(np.eye(3, dtype=bool))  # a diagonal stream
    array([[1.  , 0.25, 0.  ],
           [0.25, 1.  , 0.25],
           [0.  , 0.25, 1.  ]], dtype=float32)
    >>> thin_weights(~np.eye(4, dtype=bool))[:2, :2]  # a diagonal ride through a wood
    array([[0.  , 0.75],
           [0.75, 0.  ]], dtype=float32)
    """
    m = np.asarray(mask, dtype=bool)
    w = m.astype(np.float32)
    if min(m.shape) < 2:
        return w
    a, b, c, d = m[:-1, :-1], m[:-1, 1:], m[1:, :-1], m[1:, 1:]
    down = a & d & ~b & ~c  # "\\": a and d meet at a corner, so do b and c
    up = b & c & ~a & ~d  # "/"
    around = np.lib.stride_tricks.sliding_window_view(
        np.pad(m.astype(np.int16), 1, mode="edge"), (4, 4)
    ).sum(axis=(2, 3))
    mask_thin = around <= 8  # the block holds 2 mask cells, its ring of 12 the rest
    lo, hi = np.float32(0), np.float32(1)
    for contact, joined, parted in (
        (down, ((0, 0), (1, 1)), ((0, 1), (1, 0))),
        (up, ((0, 1), (1, 0)), ((0, 0), (1, 1))),
    ):
        raise_ = contact & mask_thin  # the mask's pair keeps its link: raise the other pair
        lower = contact & ~mask_thin  # the outside pair keeps its link: lower the mask's pair
        for dr, dc in parted:
            view = w[dr : dr + contact.shape[0], dc : dc + contact.shape[1]]
            np.maximum(view, np.where(raise_, np.float32(BRIDGE), lo), out=view)
        for dr, dc in joined:
            view = w[dr : dr + contact.shape[0], dc : dc + contact.shape[1]]
            np.minimum(view, np.where(lower, np.float32(1 - BRIDGE), hi), out=view)
    return w


def _blur(weights: np.ndarray, u: int, sigma_cells: float) -> np.ndarray:
    fine = weights if u == 1 else np.repeat(np.repeat(weights, u, axis=0), u, axis=1)
    return ndimage.gaussian_filter(fine, sigma_cells * u, mode="nearest", truncate=4.0)


def _at_centres(weights: np.ndarray, sigma_cells: float) -> np.ndarray:
    """The blurred field at each cell's centre, exactly: each cell is a square of its weight."""
    half = math.ceil(4 * sigma_cells)
    edges = (np.arange(-half, half + 2) - 0.5) / (sigma_cells * math.sqrt(2))
    kernel = np.diff([0.5 * math.erf(e) for e in edges])  # a cell's share of a centre j away
    out = ndimage.correlate1d(weights, kernel, axis=0, mode="nearest")
    return ndimage.correlate1d(out, kernel, axis=1, mode="nearest")


def _thin_field(mask: np.ndarray, u: int, sigma_cells: float) -> np.ndarray:
    """The blurred ``thin_weights`` of ``mask`` with the centre of every cell on its own side of
    0.5 (at least ``SHOW`` in the mask, at most 1 - ``SHOW`` outside, bridges too): no lone cell,
    hole or stream's end lost, and every raster edge within 0.71 cell of the 0.5 line (it crosses
    the segment between the two centres either side of the edge)."""
    w = thin_weights(mask)
    own = math.erf(0.5 / (sigma_cells * math.sqrt(2))) ** 2  # a cell's share of its own centre
    for _ in range(4):
        centre = _at_centres(w, sigma_cells)
        low = mask & (centre < SHOW)
        high = ~mask & (centre > 1 - SHOW)
        if not (low.any() or high.any()):
            break
        # the field is linear in the weights and a cell's centre is mostly its own; the little
        # overshoot settles neighbours corrected together in a few rounds
        w[low] += (SHOW + 0.02 - centre[low]) / own
        w[high] -= (centre[high] - (1 - SHOW) + 0.02) / own
    return _blur(w, u, sigma_cells)


def smooth_mask(
    mask: np.ndarray,
    transform: Any,
    offset: tuple[int, int],
    *,
    sigma_cells: float = SIGMA_CELLS,
    upsample: int = 1,
    keep_thin: bool = False,
) -> BaseGeometry:
    """The smoothed outline of the true cells of ``mask`` (a crop whose top-left cell is
    ``offset`` = (row, col) of the grid ``transform`` describes), in map coordinates.
    ``keep_thin``: keep corner-to-corner chains joined and lone cells visible (``thin_weights``)."""
    rows, cols = mask.shape
    if not mask.any():
        return shapely.Polygon()
    r0, c0 = offset
    if mask.all():
        return _to_map(shapely.box(c0, r0, c0 + cols, r0 + rows), transform)
    u = upsample
    if keep_thin:
        field = _thin_field(np.asarray(mask, dtype=bool), u, sigma_cells)
    else:
        field = _blur(np.asarray(mask, dtype=np.float32), u, sigma_cells)
    # one more sample on each side at the crop's exact edge, so ground reaches the map's edge
    field = np.pad(field, 1, mode="edge")
    xc = np.concatenate(([c0], c0 + (np.arange(cols * u) + 0.5) / u, [c0 + cols]))
    yc = np.concatenate(([r0], r0 + (np.arange(rows * u) + 0.5) / u, [r0 + rows]))
    gen = contourpy.contour_generator(
        x=xc, y=yc, z=field, fill_type="ChunkCombinedOffsetOffset", corner_mask=False
    )
    # ChunkCombinedOffsetOffset: (points, ring offsets, outer offsets), one chunk each
    points, ring_offsets, outer_offsets = gen.filled(0.5, 2.0)  # type: ignore[misc]
    if points[0] is None:
        return shapely.Polygon()
    polys = shapely.from_ragged_array(
        shapely.GeometryType.POLYGON, points[0], (ring_offsets[0], outer_offsets[0])
    )
    g = shapely.multipolygons(polys)
    g = g if g.is_valid else shapely.make_valid(g)
    return _to_map(g, transform)


def _to_map(g: BaseGeometry, transform: Any) -> BaseGeometry:
    t = transform
    return shapely.affinity.affine_transform(g, [t.a, t.b, t.d, t.e, t.c, t.f])


def _plan(
    shape: tuple[int, int],
    transform: Any,
    window: tuple[float, float, float, float] | None,
    sigma_cells: float,
    upsample: int | None,
) -> tuple[tuple[int, int, int, int], int]:
    """The crop (``crop_cells``) and the upsampling factor for smoothing inside ``window``."""
    pad = math.ceil(4 * sigma_cells) + 2  # the blur reaches 4 sigma; beyond, the crop is exact
    r0, r1, c0, c1 = crop_cells(shape, transform, window, pad)
    u = upsample if upsample is not None else upsample_factor((r1 - r0) * (c1 - c0))
    return (r0, r1, c0, c1), u


def _tidy(
    g: BaseGeometry, window: tuple[float, float, float, float] | None, res: float, u: int
) -> BaseGeometry:
    """Clip to ``window``, drop collinear samples and crumbs (a smoothed region, ready to draw)."""
    if window is not None and not g.is_empty:
        g = shapely.clip_by_rect(g, *window)
    if not g.is_empty:
        g = shapely.simplify(g, SIMPLIFY_CELLS * res, preserve_topology=True)
    return _polygonal(g, (res / u) ** 2)  # marching-squares crumbs from clipping, not regions


def smooth_outlines(
    level: np.ndarray,
    transform: Any,
    levels: Iterable[int],
    window: tuple[float, float, float, float] | None = None,
    *,
    sigma_cells: float = SIGMA_CELLS,
    upsample: int | None = None,
) -> dict[int, BaseGeometry]:
    """Smoothed outline of the ground at level ``>= k`` for each k in ``levels`` (ascending),
    nested (each inside the one below), clipped to ``window`` when given."""
    res = abs(transform.a)
    (r0, r1, c0, c1), u = _plan(level.shape, transform, window, sigma_cells, upsample)
    crop = np.asarray(level)[r0:r1, c0:c1]
    min_part = (res / u) ** 2
    out: dict[int, BaseGeometry] = {}
    below: BaseGeometry | None = None
    for k in sorted(levels):
        g = smooth_mask(crop >= k, transform, (r0, c0), sigma_cells=sigma_cells, upsample=u)
        g = _tidy(g, window, res, u)
        if below is not None and not g.is_empty:
            # the order is kept by construction; this only settles rounding so boards stack
            g = _polygonal(shapely.intersection(g, below, grid_size=None), min_part)
        out[k] = g
        below = g
    return out


def smooth_classes(
    data: np.ndarray,
    transform: Any,
    codes: Iterable[int],
    window: tuple[float, float, float, float] | None = None,
    *,
    sigma_cells: float = SIGMA_CELLS,
    upsample: int | None = None,
) -> dict[int, BaseGeometry]:
    """Smoothed region of the cells ``data == c`` for each c in ``codes`` (a class raster such
    as ``move``), one-cell-wide and corner-to-corner features kept, clipped to ``window``.
    Classes are smoothed one by one, so neighbouring classes may overlap or part by a fraction
    of a cell where they meet."""
    res = abs(transform.a)
    (r0, r1, c0, c1), u = _plan(data.shape, transform, window, sigma_cells, upsample)
    if upsample is None:
        u = max(u, 2)  # a few masks, not dozens; at one sample a cell a lone cell is a speck
    crop = np.asarray(data)[r0:r1, c0:c1]
    out: dict[int, BaseGeometry] = {}
    for code in codes:
        mask = crop == code
        g = smooth_mask(
            mask, transform, (r0, c0), sigma_cells=sigma_cells, upsample=u, keep_thin=True
        )
        out[code] = _tidy(g, window, res, u)
    return out


def _polygonal(g: BaseGeometry, min_area: float) -> BaseGeometry:
    """Only the polygons of ``g`` (an intersection can add touching lines and points)."""
    parts = [p for p in shapely.get_parts(g) if p.geom_type in ("Polygon", "MultiPolygon")]
    polys = [q for p in parts for q in shapely.get_parts(p) if q.area >= min_area]
    if not polys:
        return shapely.Polygon()
    return polys[0] if len(polys) == 1 else shapely.MultiPolygon(polys)
