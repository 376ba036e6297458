"""Smoothed level outlines for print (maps.smoothing) on real ground: Flodden (SRTM, 25 m cells,
the demo's battlefield) and Gettysburg (7.5 m cells).

What a table-builder needs from them (6.2 cut layers): the boards stack (each level inside the one
below), the ground stays within a cell of the rules' raster levels, no hill or hollow goes
missing, and the cell staircase is gone.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
import shapely
from affine import Affine
from shapely.geometry.base import BaseGeometry

from maps.testing import right_angle_turns
from maps.vectors import level_outlines, outline_at_or_above, outline_contours

# the ground the demo prints (scenario-builder demo, Flodden 1513), and a 2.4 km square of
# Gettysburg across Cemetery Ridge and the Round Tops
FLODDEN_WINDOW = (550383.26, 6163436.06, 553325.87, 6166478.75)
GETTYSBURG_WINDOW = (306600.0, 4401000.0, 309000.0, 4403400.0)


def _snap(bf, window: tuple[float, ...]) -> tuple[float, float, float, float]:
    """``window`` shrunk to cell edges (a window between cell edges cuts cells into slivers)."""
    t, res = bf.transform, bf.res
    x0, y0 = t.c, t.f
    return (
        x0 + math.ceil((window[0] - x0) / res) * res,
        y0 - math.floor((y0 - window[1]) / res) * res,
        x0 + math.floor((window[2] - x0) / res) * res,
        y0 - math.ceil((y0 - window[3]) / res) * res,
    )


def _levels(bf) -> range:
    lv = bf.layer("level")
    return range(int(lv.min()) + 1, int(lv.max()) + 1)


@pytest.fixture(scope="module")
def flodden_whole(built_flodden) -> dict[int, BaseGeometry]:
    return level_outlines(built_flodden.battlefield)


@pytest.fixture(scope="module")
def flodden_window(built_flodden) -> tuple[tuple[float, ...], dict[int, BaseGeometry]]:
    bf = built_flodden.battlefield
    window = _snap(bf, FLODDEN_WINDOW)
    return window, level_outlines(bf, window)


@pytest.fixture(scope="module")
def gettysburg_window(built_gettysburg) -> tuple[tuple[float, ...], dict[int, BaseGeometry]]:
    bf = built_gettysburg.battlefield
    window = _snap(bf, GETTYSBURG_WINDOW)
    return window, level_outlines(bf, window)


def _cases(request: pytest.FixtureRequest, name: str):
    site = "built_gettysburg" if name == "gettysburg_window" else "built_flodden"
    bf = request.getfixturevalue(site).battlefield
    got = request.getfixturevalue(name)
    window, outlines = (None, got) if name == "flodden_whole" else got
    return bf, window, outlines


CASES = ["flodden_whole", "flodden_window", "gettysburg_window"]


# The raw traced outline of each level, traced once per battlefield and window (several tests
# compare against it). A window's is traced on the cells around it only (two cells beyond it:
# clipped to the window it is the whole map's outline, and the crop's own edge lies farther than
# a cell from anything inside); tracing all of Gettysburg's 7.5 m cells takes seconds a level.
_FULL: dict[tuple[int, Any, int], BaseGeometry] = {}


def _full(bf, k: int, window=None) -> BaseGeometry:
    key = (id(bf), window, k)  # the battlefields are session fixtures: alive, ids not reused
    if key not in _FULL:
        level, transform = bf.layer("level"), bf.transform
        if window is not None:
            (c0, r0), (c1, r1) = (~transform @ window[0::3], ~transform @ window[2:0:-1])
            r0, c0 = max(0, round(r0) - 2), max(0, round(c0) - 2)
            level = level[r0 : round(r1) + 2, c0 : round(c1) + 2]
            transform = transform @ Affine.translation(c0, r0)
        _FULL[key] = outline_at_or_above(level, transform, k)
    return _FULL[key]


def _raw(bf, k: int, window) -> BaseGeometry:
    full = _full(bf, k, window)
    return full if window is None else shapely.clip_by_rect(full, *window)


def _far(a: BaseGeometry, b: BaseGeometry, step: float) -> float:
    """Directed distance: how far the farthest point of line ``a`` is from ``b``."""
    if a.is_empty:
        return 0.0
    pts = shapely.points(shapely.get_coordinates(shapely.segmentize(a, step)))
    return float(shapely.distance(pts, b).max())


@pytest.mark.parametrize("name", CASES)
def test_6_2_cut_layers_nest_for_every_level(request: pytest.FixtureRequest, name: str) -> None:
    bf, _, outlines = _cases(request, name)
    ks = sorted(outlines)
    assert ks == list(_levels(bf))
    for lower, upper in itertools.pairwise(ks):
        overhang = shapely.difference(outlines[upper], outlines[lower]).area
        assert overhang < 1e-3, f"level {upper} overhangs level {lower} by {overhang} m2"


def test_6_2_smoothed_outline_within_a_cell_of_the_raster_boundary(
    built_flodden, flodden_whole
) -> None:
    """Hausdorff distance between each smoothed outline and the raw traced one, whole map, at
    most a cell: each boundary lies within a cell's buffer of the other (the same bound as
    ``shapely.hausdorff_distance`` densified, without its all-pairs cost)."""
    bf = built_flodden.battlefield
    far, rounded = [], False
    for k, g in flodden_whole.items():
        smooth, raw = g.boundary, _raw(bf, k, None).boundary
        if not (raw.buffer(bf.res).covers(smooth) and smooth.buffer(bf.res).covers(raw)):
            far.append(k)
        rounded |= not raw.buffer(0.2 * bf.res).covers(smooth)
    assert far == [], f"levels {far} stray more than a cell from the raster boundary"
    assert rounded  # corners are rounded: the outlines are not the raw ones


@pytest.mark.parametrize("name", ["flodden_window", "gettysburg_window"])
def test_6_2_printed_window_within_a_cell_of_the_raster_boundary(
    request: pytest.FixtureRequest, name: str
) -> None:
    """Inside a printed window (upsampled 4x) both ways: every smoothed edge is within a cell of
    a raster edge, every raster edge within a cell of a smoothed one (the window's own edge,
    which is no level boundary, left out)."""
    bf, window, outlines = _cases(request, name)
    res = bf.res
    frame = shapely.box(*window).boundary.buffer(res * 0.05)
    inner = shapely.box(*window).buffer(-res)
    worst = 0.0
    for k, g in outlines.items():
        full = _full(bf, k, window)
        smooth_edge = g.boundary.difference(frame)
        raw_edge = shapely.intersection(full.boundary, inner)
        worst = max(worst, _far(smooth_edge, full.boundary, res / 4))
        worst = max(worst, _far(raw_edge, g.boundary, res / 4))
    assert worst <= res, f"{worst / res:.2f} cells"


@pytest.mark.parametrize("name", CASES)
def test_6_2_smoothed_area_matches_the_raster(request: pytest.FixtureRequest, name: str) -> None:
    bf, window, outlines = _cases(request, name)
    cell = bf.res**2
    total_raw = total_smooth = 0.0
    for k, g in outlines.items():
        raw = _raw(bf, k, window).area
        total_raw, total_smooth = total_raw + raw, total_smooth + g.area
        if raw >= 400 * cell:
            assert abs(g.area - raw) <= 0.03 * raw, (k, g.area, raw)
    assert abs(total_smooth - total_raw) <= 0.005 * total_raw


@pytest.mark.parametrize("name", CASES)
def test_6_2_no_hill_or_hollow_vanishes(request: pytest.FixtureRequest, name: str) -> None:
    """Every island (part of level >= k) and hole (part of level < k) of at least the build's
    minimum level area is still there, mostly on the same ground."""
    bf, window, outlines = _cases(request, name)
    min_area = float(bf.meta["min_area_m2"])
    islands = holes = 0
    for k, g in outlines.items():
        for part in shapely.get_parts(_raw(bf, k, window)):
            if part.area >= min_area:
                islands += 1
                assert shapely.intersection(part, g).area > 0.8 * part.area, k
            for ring in part.interiors:
                hole = shapely.Polygon(ring)
                if hole.area >= min_area:
                    holes += 1
                    assert shapely.intersection(hole, g).area < 0.2 * hole.area, k
    assert islands > 10
    assert holes > 0 or name == "gettysburg_window"  # its window holds no closed hollow


@pytest.mark.parametrize("name", CASES)
def test_6_2_no_cell_staircase_left(request: pytest.FixtureRequest, name: str) -> None:
    bf, window, outlines = _cases(request, name)
    box = shapely.box(*(window or bf.bounds))
    frame = box.boundary.buffer(bf.res * 0.05)
    smooth = np.sum([right_angle_turns(g, frame) for g in outlines.values()], axis=0)
    raw = np.sum([right_angle_turns(_raw(bf, k, window), frame) for k in outlines], axis=0)
    assert raw[0] / raw[1] > 0.9  # the traced outline: nothing but cell corners
    assert smooth[0] / smooth[1] < 0.02, smooth


def test_6_2_contours_are_the_cut_layer_edges(built_flodden, flodden_window) -> None:
    """The printed contour of level k is the edge of layer k (not a different line), without the
    window's edge."""
    bf = built_flodden.battlefield
    window, outlines = flodden_window
    lines = dict(outline_contours(bf, outlines, window))
    assert len(lines) > 50
    edge = shapely.box(*window).boundary.buffer(bf.res * 0.04)
    for k, line in lines.items():
        assert _far(line, outlines[k].boundary, bf.res) < 1e-6
        assert shapely.intersection(line, edge).length < 1e-6
