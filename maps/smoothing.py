"""Smooth level outlines for print: the 0.5 isoline of each blurred "level >= k" mask.

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

>>> import numpy as np, affine
>>> level = np.zeros((12, 12), np.int16); level[3:9, 3:9] = 1
>>> out = smooth_outlines(level, affine.Affine(10, 0, 0, 0, -10, 120), [1])
>>> round(out[1].area / 3600, 2), out[1].within(shapely.box(25, 25, 95, 95))
(0.97, True)
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


def smooth_mask(
    mask: np.ndarray,
    transform: Any,
    offset: tuple[int, int],
    *,
    sigma_cells: float = SIGMA_CELLS,
    upsample: int = 1,
) -> BaseGeometry:
    """The smoothed outline of the true cells of ``mask`` (a crop whose top-left cell is
    ``offset`` = (row, col) of the grid ``transform`` describes), in map coordinates."""
    rows, cols = mask.shape
    if not mask.any():
        return shapely.Polygon()
    r0, c0 = offset
    if mask.all():
        return _to_map(shapely.box(c0, r0, c0 + cols, r0 + rows), transform)
    u = upsample
    fine = mask.astype(np.float32)
    if u > 1:
        fine = np.repeat(np.repeat(fine, u, axis=0), u, axis=1)
    field = ndimage.gaussian_filter(fine, sigma_cells * u, mode="nearest", truncate=4.0)
    # one more sample on each side at the crop's exact edge, so ground reaches the map's edge
    field = np.pad(field, 1, mode="edge")
    xc = np.concatenate(([c0], c0 + (np.arange(cols * u) + 0.5) / u, [c0 + cols]))
    yc = np.concatenate(([r0], r0 + (np.arange(rows * u) + 0.5) / u, [r0 + rows]))
    gen = contourpy.contour_generator(
        x=xc, y=yc, z=field, fill_type="ChunkCombinedOffsetOffset", corner_mask=False
    )
    points, ring_offsets, outer_offsets = gen.filled(0.5, 2.0)
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
    pad = math.ceil(4 * sigma_cells) + 2  # the blur reaches 4 sigma; beyond, the crop is exact
    r0, r1, c0, c1 = crop_cells(level.shape, transform, window, pad)
    crop = np.asarray(level)[r0:r1, c0:c1]
    u = upsample if upsample is not None else upsample_factor(crop.size)
    tol = SIMPLIFY_CELLS * res
    min_part = (res / u) ** 2  # marching-squares crumbs from clipping, far below a region
    out: dict[int, BaseGeometry] = {}
    below: BaseGeometry | None = None
    for k in sorted(levels):
        g = smooth_mask(crop >= k, transform, (r0, c0), sigma_cells=sigma_cells, upsample=u)
        if window is not None and not g.is_empty:
            g = shapely.clip_by_rect(g, *window)
        if not g.is_empty:
            g = shapely.simplify(g, tol, preserve_topology=True)
        if below is not None and not g.is_empty:
            # the order is kept by construction; this only settles rounding so boards stack
            g = shapely.intersection(g, below, grid_size=None)
        g = _polygonal(g, min_part)
        out[k] = g
        below = g
    return out


def _polygonal(g: BaseGeometry, min_area: float) -> BaseGeometry:
    """Only the polygons of ``g`` (an intersection can add touching lines and points)."""
    parts = [p for p in shapely.get_parts(g) if p.geom_type in ("Polygon", "MultiPolygon")]
    polys = [q for p in parts for q in shapely.get_parts(p) if q.area >= min_area]
    if not polys:
        return shapely.Polygon()
    return polys[0] if len(polys) == 1 else shapely.MultiPolygon(polys)
