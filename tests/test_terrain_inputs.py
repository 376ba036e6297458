"""Reading real inputs: DEMs in any CRS, voids, bbox, land-cover rasters and overlays."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import rasterio

from scenario_builder.battlefield import MoveClass
from scenario_builder.build import build_from_paths, build_site
from scenario_builder.dem import read_dem, reproject_dem, target_grid
from scenario_builder.errors import ScenarioFileError, UnknownCodeWarning
from tests.conftest import write_like


def test_srtm_voids_are_filled_and_reported(minden_dem):
    src = read_dem(minden_dem)
    with rasterio.open(minden_dem) as ds:
        raw = ds.read(1, masked=True)
    assert src.voids == int(raw.mask.sum()) == 3
    assert np.isfinite(src.data).all()
    assert raw.min() - 20 < src.data.min()  # filled from neighbours, not with -32768
    bf = build_site("minden", resolution=50.0).battlefield
    assert bf.meta["sources"][0]["voids_filled"] == 3


def test_web_mercator_and_geographic_dems_land_on_utm_metres(gettysburg_dem, minden_dem):
    for path, epsg in ((gettysburg_dem, 32618), (minden_dem, 32632)):
        src = read_dem(path)
        grid = target_grid(src)
        z = reproject_dem(src, grid)
        assert grid.crs.to_epsg() == epsg
        assert np.isfinite(z).all()
        assert grid.transform.a == -grid.transform.e


def test_bbox_cuts_the_build_and_resolution_is_honoured(gettysburg_dem):
    bbox = (-77.250, 39.785, -77.230, 39.800)
    bf = build_from_paths(gettysburg_dem, bbox=bbox, resolution=10.0).battlefield
    w, s, e, n = bf.bounds_lonlat()
    assert (
        bbox[0] - 1e-4 <= w and e <= bbox[2] + 1e-4 and bbox[1] - 1e-4 <= s and n <= bbox[3] + 1e-4
    )
    assert bf.res == 10.0
    # 0.02 deg of longitude at 39.8 N is 1.71 km; the UTM grid is the rectangle inside the box
    assert 160 <= bf.shape[1] <= 171


def test_landcover_raster_is_resampled_with_mode_and_classified(
    bayreuth_dir, osm_worldcover_tif, built_bayreuth
):
    """WorldCover codes (here derived from the real OSM polygons) classify like the OSM vectors."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnknownCodeWarning)
        result = build_from_paths(bayreuth_dir / "dem.tif", landcover=osm_worldcover_tif)
    bf = result.battlefield
    assert bf.meta["sources"][1]["table"] == "worldcover.csv"  # detected from the codes present
    ref = built_bayreuth.battlefield
    assert bf.shape == ref.shape
    forest_ref = ref.layer("move") == MoveClass.WOODS
    agree = (bf.layer("move") == MoveClass.WOODS)[forest_ref].mean()
    assert agree > 0.9
    assert bf.layer("blocks_sight")[forest_ref].mean() > 0.9


def test_unknown_raster_codes_are_an_error_listing_codes_and_counts(
    bayreuth_dir, osm_worldcover_tif, tmp_path
):
    """Unknown codes stop the build (no silently open battlefield) unless --unknown-as names a
    feature for them; then they become that feature with a warning giving the counts."""
    with rasterio.open(osm_worldcover_tif) as ds:
        arr = ds.read(1)
    arr[:200, :300] = 77  # not a WorldCover class
    bad = write_like(osm_worldcover_tif, tmp_path / "lc.tif", data=arr)
    with pytest.raises(
        ScenarioFileError, match=r"lc.tif: .*unknown codes \(77: \d+ cells.*--unknown-as"
    ):
        build_from_paths(bayreuth_dir / "dem.tif", landcover=bad, resolution=50.0)
    with pytest.raises(ScenarioFileError, match=r"--unknown-as: .*'forrest'; did you mean forest"):
        build_from_paths(
            bayreuth_dir / "dem.tif", landcover=bad, resolution=50.0, unknown_as="forrest"
        )
    with pytest.warns(UnknownCodeWarning, match=r"77: \d+ cells.*mapped to 'open'"):
        bf = build_from_paths(
            bayreuth_dir / "dem.tif", landcover=bad, resolution=50.0, unknown_as="open"
        ).battlefield
    good = build_from_paths(bayreuth_dir / "dem.tif", landcover=osm_worldcover_tif, resolution=50.0)
    lon, lat = np.meshgrid(np.linspace(11.490, 11.508, 10), np.linspace(50.030, 50.044, 10))
    x, y = bf.to_xy(lon.ravel(), lat.ravel())
    assert (good.battlefield.feature_at(x, y) != "open").sum() > 10  # land cover was there
    assert (bf.feature_at(x, y) == "open").all()
    with pytest.warns(UnknownCodeWarning, match="mapped to 'marsh'"):
        marsh = build_from_paths(
            bayreuth_dir / "dem.tif", landcover=bad, resolution=50.0, unknown_as="marsh"
        ).battlefield
    assert (marsh.feature_at(x, y) == "marsh").all()


def test_overlay_is_applied_automatically_and_wins(sites_dir, built_flodden):
    """Flodden's historical overlay (River Till, marsh...) is painted over the bare DEM."""
    bf = built_flodden.battlefield
    assert any(s["kind"] == "overlay" for s in bf.meta["sources"])
    area = bf.area_by_class("feature")
    assert area.get("river", 0) > 0
    till = bf.to_xy(-2.105, 55.614)  # a vertex of the River Till line in the overlay
    assert bf.feature_at(*till) == "river"
    assert bf.category_at(*till) == MoveClass.IMPRACTICAL
