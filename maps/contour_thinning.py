"""Contours thinned where the ground is steep, as a topographic map thins them: where adjacent
levels would be drawn closer than a legible gap, only every 5th (index) level is drawn, then
every 10th, 25th or 50th, so a steep SRTM slope (Flodden's south face of Branxton Hill, 2 m
levels on 10-20 degree slopes) reads as a set of lines, not a solid brown band.

A contour line is cut into runs over which the local slope (the battlefield's ``slope`` layer,
the steepest of 3 x 3 cells) asks for the same thinning; each
run carries the coarsest gap at which it is still drawn: on the web map the zoom from which it
shows, on paper whether the page's scale leaves its gap legible.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np
import shapely
from scipy.ndimage import maximum_filter1d
from shapely.geometry.base import BaseGeometry

from scenario_builder.battlefield import Battlefield

#: the multiples of a level that are kept as the ground steepens: every level, the index
#: (every 5th, drawn bold), then every 10th, 25th and 50th
RANKS = (1, 5, 10, 25, 50)
#: the least gap between two drawn contours on screen (pixels) and on paper (points)
MIN_GAP_PX = 4.0
MIN_GAP_PT = 2.5
#: Web Mercator metres per pixel at zoom 0 on the equator (256-pixel tiles)
_MERCATOR_M_PER_PX = 40075016.686 / 256
#: the zoom the web map's thinnest contour still shows from when nothing is thinned
MAX_ZOOM = 22
#: the web map's zooms told apart: a run that shows from the first (whole battlefields open
#: at 12-14) or before shows at every zoom, and every run shows from the last
WEB_ZOOMS = (11, 18)
#: segments a run of one zoom keeps at the least on the web map
SMOOTH_SEGMENTS = 5


def rank(level: int) -> int:
    """The largest of RANKS that ``level`` is a multiple of.

    >>> rank(7), rank(15), rank(20), rank(75), rank(100)
    (1, 5, 10, 25, 50)
    """
    return max(n for n in RANKS if level % n == 0)


def steepness(bf: Battlefield) -> np.ndarray:
    """tan(slope) per cell: the steepest of the cell and its 8 neighbours. A 25 m SRTM cell on
    a 15 degree slope holds three 2 m levels, whose smoothed lines bunch along its edges: the
    neighbours' slope keeps them apart where a cell's own would not."""
    from scipy.ndimage import maximum_filter

    slope = np.nan_to_num(bf.layer("slope").astype(float), nan=0.0)
    out: np.ndarray = maximum_filter(np.tan(np.radians(slope)), size=3, mode="nearest")
    return out


def _sample(bf: Battlefield, grid: np.ndarray, xy: np.ndarray) -> np.ndarray:
    t = bf.transform
    cols = np.clip(np.floor((xy[:, 0] - t.c) / t.a).astype(int), 0, grid.shape[1] - 1)
    rows = np.clip(np.floor((xy[:, 1] - t.f) / t.e).astype(int), 0, grid.shape[0] - 1)
    out: np.ndarray = grid[rows, cols]
    return out


def ground_gap(bf: Battlefield, level: int, tan_slope: np.ndarray) -> np.ndarray:
    """Metres of ground between level ``level``'s line and the next drawn line of its rank."""
    return rank(level) * bf.step / np.maximum(tan_slope, 1e-6)


def runs(
    bf: Battlefield,
    level: int,
    line: BaseGeometry,
    grid: np.ndarray,
    key: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Iterator[tuple[BaseGeometry, float, float]]:
    """``line`` (level ``level``) cut into runs of equal ``key`` (of the segments' ground gaps;
    by default the gaps themselves), each with the smallest ground gap along it and its key."""
    for part in getattr(line, "geoms", [line]):
        xy = np.asarray(part.coords, float)
        if len(xy) < 2:
            continue
        # a segment's gap is its two ends' smaller one: the steeper end decides
        gap_v = ground_gap(bf, level, _sample(bf, grid, xy))
        gap = np.minimum(gap_v[:-1], gap_v[1:])
        k = gap if key is None else key(gap)
        start = 0
        for i in range(1, len(gap) + 1):
            if i == len(gap) or k[i] != k[start]:
                yield shapely.LineString(xy[start : i + 1]), float(gap[start:i].min()), k[start]
                start = i


def web_min_zoom(gap_m: float, lat: float, level: int) -> int:
    """The zoom from which a run whose drawn gap is ``gap_m`` ground metres is at least
    MIN_GAP_PX apart on screen (the top rank always shows)."""
    if rank(level) == RANKS[-1]:
        return 0
    per_px = gap_m / MIN_GAP_PX  # the most ground metres a pixel may hold
    z = math.log2(_MERCATOR_M_PER_PX * math.cos(math.radians(lat)) / per_px)
    return max(0, min(MAX_ZOOM, math.ceil(z - 1e-9)))


def web_runs(
    bf: Battlefield, level: int, line: BaseGeometry, grid: np.ndarray, lat: float
) -> Iterator[tuple[BaseGeometry, int]]:
    """``line`` cut into runs, each with the web map zoom it shows from."""

    def zoom(gap: np.ndarray) -> np.ndarray:
        z = np.array([web_min_zoom(float(g), lat, level) for g in gap])
        # a run shorter than SMOOTH_SEGMENTS takes its steeper neighbours' zoom (fewer, longer
        # runs: a page a third smaller), and zooms a reader does not use are one
        z = maximum_filter1d(z, size=SMOOTH_SEGMENTS, mode="nearest")
        return np.where(z <= WEB_ZOOMS[0], 0, np.minimum(z, WEB_ZOOMS[1]))

    for piece, _gap, z in runs(bf, level, line, grid, key=zoom):
        yield piece, int(z)


def paper_lines(
    bf: Battlefield, grid: np.ndarray, level: int, line: BaseGeometry, pt_per_m: float
) -> BaseGeometry:
    """The parts of ``line`` whose gap is legible at ``pt_per_m`` page points per ground metre
    (all of it for the top rank)."""
    least = MIN_GAP_PT / pt_per_m
    if rank(level) == RANKS[-1] or least <= float(ground_gap(bf, level, grid.max())):
        return line  # the top rank, or a scale at which even the steepest cell's gap is legible

    def keep(gap: np.ndarray) -> np.ndarray:
        return gap >= least

    kept = [p for p, _gap, shown in runs(bf, level, line, grid, key=keep) if shown]
    return shapely.MultiLineString(kept) if kept else shapely.LineString()
