"""Gettysburg (USGS 3DEP via Terrain Tiles, 9.55 m Web Mercator): heights, levels and 6.2 sight.

Places (WGS84), checked against the shipped DEM (data/SOURCES.md lists Little Round Top 199.7 m):
Little Round Top summit (-77.2365, 39.7920); the Plum Run valley below it (-77.2405, 39.7920)
and (-77.2400, 39.7925); Houck's Ridge / Devil's Den (-77.2428, 39.7920); the low ground west
of Houck's Ridge (-77.2452, 39.7920).
"""

from __future__ import annotations

import pytest

from scenario_builder.battlefield import MoveClass

LRT = (-77.2365, 39.7920)
PLUM_RUN = (-77.2405, 39.7920)
PLUM_RUN_ISSUE = (-77.2400, 39.7925)
HOUCKS_RIDGE = (-77.2428, 39.7920)
WEST_OF_RIDGE = (-77.2452, 39.7920)


def at(bf, lonlat):
    return bf.to_xy(*lonlat)


def test_grid_is_local_utm_at_native_resolution(built_gettysburg):
    bf = built_gettysburg.battlefield
    assert bf.crs.to_epsg() == 32618  # UTM 18N
    assert bf.res == 7.5  # 9.55 m Web Mercator pixels are 7.3 m on the ground at 39.8 N
    assert 1.1e6 < bf.shape[0] * bf.shape[1] < 1.5e6
    assert bf.step == 2.0


def test_little_round_top_height_matches_the_published_figure(built_gettysburg):
    bf = built_gettysburg.battlefield
    assert bf.elevation_at(*at(bf, LRT)) == pytest.approx(198.0, abs=4.0)


def test_6_2_little_round_top_stands_levels_above_plum_run(built_gettysburg):
    bf = built_gettysburg.battlefield
    lrt = bf.level_at(*at(bf, LRT))
    for valley in (PLUM_RUN, PLUM_RUN_ISSUE):
        low = bf.level_at(*at(bf, valley))
        assert bf.elevation_at(*at(bf, valley)) < bf.elevation_at(*at(bf, LRT)) - 30
        assert lrt - low >= 10  # ~45 m of climb at 2 m steps, minus what smoothing shaves off
    assert bf.level_at(*at(bf, HOUCKS_RIDGE)) > bf.level_at(*at(bf, PLUM_RUN))


def test_6_2_houcks_ridge_hides_the_plum_run_valley_from_the_ground_west_of_it(built_gettysburg):
    bf = built_gettysburg.battlefield
    a, b = at(bf, PLUM_RUN), at(bf, WEST_OF_RIDGE)
    ridge = bf.level_at(*at(bf, HOUCKS_RIDGE))
    assert ridge > max(bf.level_at(*a), bf.level_at(*b))
    assert not bf.line_of_sight(a, b)
    assert not bf.line_of_sight(b, a)


def test_6_2_from_little_round_top_one_sees_over_the_lower_ground(built_gettysburg):
    bf = built_gettysburg.battlefield
    top = at(bf, LRT)
    for target in (PLUM_RUN, HOUCKS_RIDGE, WEST_OF_RIDGE):
        assert bf.line_of_sight(top, at(bf, target)), target


@pytest.fixture(scope="module")
def gettysburg_dem_only():
    """Gettysburg from its DEM alone: the shipped 1863 overlay is left out on purpose."""
    from scenario_builder.build import build_from_paths
    from scenario_builder.sites import get_site

    return build_from_paths(get_site("gettysburg").dem)


def test_7_2_no_land_cover_means_open_ground_and_steep_cuts_are_cliffs(gettysburg_dem_only):
    bf = gettysburg_dem_only.battlefield
    area = bf.area_by_class("feature")
    assert set(area) == {"open", "cliff"}  # the quarry walls and railway cuts are steep
    assert area["open"] > 0.99 * sum(area.values())
    steep = bf.layer("slope") > bf.meta["cliff_deg"]
    names = bf.meta["legend"]["feature"]
    cliff = next(c for c, n in names.items() if n == "cliff")
    assert ((bf.layer("feature") == cliff) == steep).all()
    assert (bf.layer("move")[steep] == MoveClass.IMPRACTICAL).all()
