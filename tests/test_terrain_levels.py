"""Height steps (6.2): quantisation is monotone, de-speckling leaves no small regions and keeps a
rising surface rising, contours follow the level boundaries. Real DEMs where a fact is at stake."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scenario_builder.dem import read_dem, reproject_dem, target_grid
from scenario_builder.levels import (
    _label,
    contour_lines,
    despeckle,
    level_regions_ok,
    make_levels,
    quantise,
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


@settings(max_examples=80, deadline=None)
@given(
    arrays(np.int16, st.tuples(st.integers(1, 20), st.integers(1, 20)), elements=st.integers(0, 5)),
    st.integers(1, 30),
)
def test_6_2_despeckle_leaves_no_region_below_min_area(levels, min_cells):
    out = despeckle(levels, min_cells)
    assert out.shape == levels.shape and out.dtype == np.int16
    assert level_regions_ok(out, min_cells)
    # merging only ever adopts levels already present
    assert set(np.unique(out)) <= set(np.unique(levels))


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(2, 20), st.integers(2, 20)), elements=st.floats(0.0, 5.0)
    ),
    st.floats(0.5, 4.0),
    st.integers(2, 25),
)
def test_6_2_despeckle_keeps_a_rising_surface_rising(increments, step, min_cells):
    """A surface that rises eastwards and southwards still steps up monotonically afterwards."""
    z = np.cumsum(np.cumsum(increments, axis=0), axis=1)
    levels, _ = quantise(z, step)
    out = despeckle(levels, min_cells).astype(int)
    assert (np.diff(out, axis=0) >= 0).all() and (np.diff(out, axis=1) >= 0).all()
    assert level_regions_ok(out, min_cells)


def test_6_2_real_dem_levels_have_no_specks_and_stay_near_the_raw_steps(minden_dem):
    src = read_dem(minden_dem)
    grid = target_grid(src)
    z = reproject_dem(src, grid)
    levels, smoothed, base = make_levels(z, grid.res, step=2.0, min_area_m2=20_000)
    min_cells = int(np.ceil(20_000 / grid.res**2))
    raw, _ = quantise(smoothed, 2.0)
    assert _label(raw)[1] > 5 * _label(levels)[1]  # the noise specks were there before
    assert level_regions_ok(levels, min_cells)
    # most ground keeps the step its smoothed height gives it
    assert (levels == raw).mean() > 0.9
    assert base <= smoothed.min() < base + 2.0


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
