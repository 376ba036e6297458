"""Height steps (6.2): quantisation is monotone; small peaks and hollows go by area opening and
closing (checked against scikit-image), which cannot cascade; levels follow real steep ground
(Flodden, Bayreuth, Gettysburg) and do not depend on the cell size; contours follow the level
boundaries."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scenario_builder.dem import read_dem, reproject_dem, target_grid
from scenario_builder.levels import (
    area_close,
    area_open,
    contour_lines,
    level_fidelity,
    make_levels,
    quantise,
    remove_small_relief,
    smooth,
)

elev = st.floats(min_value=-400.0, max_value=4000.0, allow_nan=False, width=32)
grids = arrays(np.float32, st.tuples(st.integers(2, 24), st.integers(2, 24)), elements=elev)
steps = st.floats(min_value=0.25, max_value=50.0)


@settings(max_examples=80, deadline=None)
@given(grids, steps)
def test_6_2_levels_never_fall_as_smoothed_elevation_rises(z, step):
    levels, base = quantise(z, step)
    order = np.argsort(z, axis=None, kind="stable")
    assert (np.diff(levels.ravel()[order].astype(int)) >= 0).all()
    assert levels.min() == 0
    # each level spans [base + k*step, base + (k+1)*step)
    assert (base + levels * step <= z + 1e-3 * step).all()
    assert (z < base + (levels + 1) * step + 1e-3 * step).all()


small_levels = arrays(
    np.int16, st.tuples(st.integers(3, 18), st.integers(3, 18)), elements=st.integers(0, 6)
)


@settings(max_examples=120, deadline=None)
@given(small_levels, st.integers(1, 40), st.sampled_from([1, 2]))
def test_6_2_area_open_and_close_are_skimages_on_the_flat_zone_graph(levels, min_cells, conn):
    """The flat-zone union-find gives exactly scikit-image's max-tree area opening/closing."""
    from skimage.morphology import area_closing, area_opening

    if levels.size < min_cells:  # a grid smaller than the area: skimage sinks it to 0, we to min
        min_cells = levels.size
    assert np.array_equal(area_open(levels, min_cells, conn), area_opening(levels, min_cells, conn))
    assert np.array_equal(
        area_close(levels, min_cells, conn), area_closing(levels, min_cells, conn)
    )


@settings(max_examples=120, deadline=None)
@given(small_levels, st.integers(1, 40))
def test_6_2_small_relief_is_skimages_opening_then_closing(levels, min_cells):
    """One labelling for both filters (the opened zones merged on the graph) gives exactly
    scikit-image's area opening followed by its area closing, parts joined through edges."""
    from skimage.morphology import area_closing, area_opening

    min_cells = min(min_cells, levels.size)
    expected = area_closing(area_opening(levels, min_cells, 1), min_cells, 1)
    assert np.array_equal(remove_small_relief(levels, min_cells), expected)


def _neighbour_gaps(levels: np.ndarray, connectivity: int) -> np.ndarray:
    lv = levels.astype(int)
    gaps = [np.abs(np.diff(lv, axis=0)), np.abs(np.diff(lv, axis=1))]
    if connectivity == 2:
        gaps += [np.abs(lv[1:, 1:] - lv[:-1, :-1]), np.abs(lv[1:, :-1] - lv[:-1, 1:])]
    return np.concatenate([g.ravel() for g in gaps])


@settings(max_examples=80, deadline=None)
@given(small_levels, st.integers(2, 40), st.sampled_from([1, 2]))
def test_6_2_area_filters_never_widen_a_step_between_neighbours(levels, min_cells, conn):
    """No cascade: each pair of neighbours (by the filter's connectivity) ends at most as many
    levels apart as it started."""
    for out in (area_open(levels, min_cells, conn), area_close(levels, min_cells, conn)):
        assert (_neighbour_gaps(out, conn) <= _neighbour_gaps(levels, conn)).all()


@settings(max_examples=80, deadline=None)
@given(small_levels, st.integers(2, 40))
def test_6_2_removing_small_relief_keeps_the_levels_range_and_is_idempotent(levels, min_cells):
    out = remove_small_relief(levels, min_cells)
    assert out.dtype == levels.dtype
    assert (_neighbour_gaps(out, 1) <= _neighbour_gaps(levels, 1)).all()
    assert out.min() >= levels.min() and out.max() <= levels.max()
    # idempotent: what survives has no part smaller than the area left to remove
    assert np.array_equal(remove_small_relief(out, min_cells), out)


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(2, 20), st.integers(2, 20)), elements=st.floats(0.0, 5.0)
    ),
    st.floats(0.5, 4.0),
    st.integers(2, 25),
)
def test_6_2_a_rising_surface_still_rises_and_keeps_every_step(increments, step, min_cells):
    """A surface rising eastwards and southwards: no part of ``level >= k`` is a peak or a
    hollow, so nothing is removed and every level stays (the old merge flattened such slopes)."""
    z = np.cumsum(np.cumsum(increments, axis=0), axis=1)
    levels, _ = quantise(z, step)
    out = remove_small_relief(levels, min_cells).astype(int)
    assert (np.diff(out, axis=0) >= 0).all() and (np.diff(out, axis=1) >= 0).all()
    # "ground at or above k" is one part holding the high corner and "below k" one part holding
    # the low corner, so only a level whose part is smaller than the area can go, and then only
    # at the grid's top or bottom: a cell in the middle of the slope keeps its level
    changed = out != levels
    for k in np.unique(levels[changed]):
        assert (levels >= k).sum() < min_cells or (levels <= k).sum() < min_cells


def _site_levels(slug: str, resolution: float | None = None):
    from scenario_builder.build import default_smooth_m
    from scenario_builder.sites import get_site

    site = get_site(slug)
    src = read_dem(site.dem)
    grid = target_grid(src, resolution=resolution)
    z = reproject_dem(src, grid)
    opts = site.level_options()
    step = opts.get("step_m", 2.0)
    sm = opts.get("smooth_m", default_smooth_m(src.ground_res))
    levels, smoothed, base = make_levels(z, grid.res, step=step, smooth_m=sm)
    return levels, smoothed, base, step, grid


@pytest.mark.parametrize("slug", ["flodden", "north_bayreuth_pair", "gettysburg"])
def test_6_2_levels_follow_steep_real_ground(slug):
    """On real steep ground (Flodden Edge, the Bayreuth hills, Gettysburg's ridges)
    >= 99.9 % of cells sit within one level of their smoothed elevation's band, and no two
    8-neighbours are further apart in levels than their height difference allows, plus one."""
    levels, smoothed, base, step, _grid = _site_levels(slug)
    within, bad_pairs = level_fidelity(levels, smoothed, step, base)
    assert within >= 0.999, within
    assert bad_pairs == 0
    band = np.floor((smoothed - base) / step)
    assert np.abs(levels - band).max() <= 6  # a removed 0.75 ha knoll is a few steps at most
    # level 0 is the lowest ground left once the lowest small hollow is filled
    assert levels.min() == 0
    assert np.percentile(smoothed, 0.1) >= base


def test_6_2_flodden_slope_climbs_in_steps_not_one_cliff():
    """The slope north of Flodden Edge (100 -> 220 m) once sat on one level and then jumped by 59
    levels; now every level on the way up is used, each step within a level of the ground."""
    levels, smoothed, _base, step, _grid = _site_levels("flodden")
    col = int(np.argmax(smoothed.max(axis=0) - smoothed.min(axis=0)))  # the steepest column
    z = smoothed[:, col].astype(float)
    on_slope = (z > 100) & (z < 220)
    lv = levels[on_slope, col].astype(int)
    assert on_slope.sum() > 20
    gaps = np.abs(np.diff(levels[:, col].astype(int)))
    dz = np.abs(np.diff(z))
    assert (gaps <= np.ceil(dz / step) + 1).all()
    assert len(np.unique(lv)) >= 0.8 * (z[on_slope].max() - z[on_slope].min()) / step


def test_6_2_level_count_does_not_depend_on_the_cell_size():
    """Gettysburg at 7.5 m and at 3.75 m: the same hills, the same number of levels (the merge
    area was counted in cells before: 62 levels against 45)."""
    coarse, *_ = _site_levels("gettysburg", 7.5)
    fine, *_ = _site_levels("gettysburg", 3.75)
    assert abs((int(coarse.max()) + 1) - (int(fine.max()) + 1)) <= 1


def test_smoothing_is_in_metres_and_zero_means_none():
    z = np.zeros((21, 21), np.float32)
    z[10, 10] = 100.0
    assert smooth(z, 10.0, 0.0)[10, 10] == 100.0
    assert smooth(z, 10.0, 20.0)[10, 10] < smooth(z, 5.0, 20.0)[10, 10] * 4.1


def test_6_2_contours_are_the_level_boundaries():
    from affine import Affine

    levels = np.zeros((30, 30), np.int16)
    levels[10:20, 10:20] = 1
    levels[13:17, 13:17] = 2
    t = Affine(10.0, 0, 1000.0, 0, -10.0, 5000.0)
    lines = contour_lines(levels, t)
    assert sorted(k for k, _ in lines) == [1, 2]
    ring1 = shapely.Polygon(dict(lines)[1])
    # the step-1 contour runs through the edge midpoints around the 10x10 block: about 100 x 100 m
    assert ring1.area == pytest.approx(100 * 100, rel=0.1)
    cx, cy = ring1.centroid.x, ring1.centroid.y
    assert (cx, cy) == pytest.approx((1000 + 150, 5000 - 150))


def _same_as_whole_grid(levels: np.ndarray) -> None:
    """contour_set against the reference: one contourpy generator over the whole grid, every
    threshold k + 0.5, lines of two points or more, placed by the same transform."""
    import contourpy
    from affine import Affine

    t = Affine(7.5, 0.0, 300_000.0, 0.0, -7.5, 4_400_000.0)
    got = contour_lines(levels, t)
    gen = contourpy.contour_generator(
        z=levels.astype(np.float32), line_type=contourpy.LineType.Separate
    )
    lo, hi = int(levels.min()), int(levels.max())
    want = [
        (k, np.column_stack(t @ (line[:, 0] + 0.5, line[:, 1] + 0.5)))
        for k in range(lo + 1, hi + 1)
        for line in gen.lines(k - 0.5)
        if len(line) >= 2
    ]
    assert [k for k, _ in got] == [k for k, _ in want]
    for (_, a), (_, b) in zip(got, want, strict=True):
        assert np.array_equal(a, b)


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.int16,
        st.tuples(st.integers(2, 30), st.integers(2, 30)),
        elements=st.integers(-3, 6),
    )
)
def test_6_2_contours_per_box_are_the_whole_grids(levels):
    """Each run of levels is traced over the box of the quads it crosses, not the
    whole grid; the lines, their order and their points are the whole grid's."""
    _same_as_whole_grid(levels)


def test_6_2_contours_per_box_are_the_whole_grids_on_gettysburg():
    levels, *_ = _site_levels("gettysburg")
    _same_as_whole_grid(levels)
