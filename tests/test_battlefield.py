"""Battlefield object: queries, fractions (7.1), save/load round-trip, bad directories."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import affine
import numpy as np
import pytest
import rasterio
from shapely.geometry import box

from scenario_builder.battlefield import LAYERS, Battlefield, CoverClass, MoveClass
from scenario_builder.errors import DataSourceError, OffMapError
from scenario_builder.paths import data_dir


@pytest.fixture(scope="module")
def flodden_bf() -> Battlefield:
    """The real Flodden DEM on its own grid, re-expressed in UTM 30N metres.

    Only elevation is real here; the classes are banded by elevation so the queries can be
    checked independently of the terrain pipeline (which has its own tests).
    """
    from rasterio.warp import Resampling, calculate_default_transform, reproject

    with rasterio.open(data_dir() / "battlefields/flodden/dem.tif") as src:
        dst_crs = "EPSG:32630"
        transform, w, h = calculate_default_transform(
            src.crs, dst_crs, src.width, src.height, *src.bounds, resolution=50.0
        )
        elev = np.zeros((h, w), np.float32)
        reproject(
            rasterio.band(src, 1),
            elev,
            dst_transform=transform,
            dst_crs=dst_crs,
            resampling=Resampling.bilinear,
            dst_nodata=0,
        )
    move = np.where(elev > 100, MoveClass.WOODS, MoveClass.PLAIN).astype(np.uint8)
    layers = {
        "elevation": elev,
        "slope": np.zeros_like(elev),
        "level": (elev // 10).astype(np.int16),
        "move": move,
        "cover": np.where(move == MoveClass.WOODS, CoverClass.OVERHEAD, CoverClass.OPEN).astype(
            np.uint8
        ),
        "blocks_sight": move == MoveClass.WOODS,
        "feature": (move == MoveClass.WOODS).astype(np.uint8),
    }
    return Battlefield(
        layers,
        transform,
        dst_crs,
        10.0,
        {"slug": "flodden", "legend": {"feature": {0: "open", 1: "forest"}}},
    )


def test_queries_agree_with_layers(flodden_bf: Battlefield) -> None:
    bf = flodden_bf
    minx, miny, maxx, maxy = bf.bounds
    rng = np.random.default_rng(0)
    xs = rng.uniform(minx, maxx, 200)
    ys = rng.uniform(miny, maxy, 200)
    elev = bf.elevation_at(xs, ys)
    assert np.array_equal(bf.level_at(xs, ys), (elev // 10).astype(int))
    assert np.array_equal(bf.category_at(xs, ys) == MoveClass.WOODS, elev > 100)
    lon, lat = bf.to_lonlat(xs[0], ys[0])
    assert np.allclose(bf.to_xy(lon, lat), (xs[0], ys[0]), atol=1e-3)


def test_branxton_hill_is_higher_than_the_church(flodden_bf: Battlefield) -> None:
    # SOURCES.md checks: Branxton Hill 146 m, Branxton church 60 m (SRTM).
    hill = flodden_bf.to_xy(-2.1725, 55.6285)
    church = flodden_bf.to_xy(-2.1658, 55.6433)
    assert flodden_bf.level_at(*hill) > flodden_bf.level_at(*church)


def test_7_1_fractions_sum_to_one_and_match_the_classes(flodden_bf: Battlefield) -> None:
    bf = flodden_bf
    cx, cy = bf.centre
    fr = bf.fractions(box(cx - 400, cy - 100, cx + 400, cy + 100))
    assert sum(fr.values()) == pytest.approx(1.0)
    assert set(fr) <= {int(MoveClass.PLAIN), int(MoveClass.WOODS)}
    feats = bf.fractions(box(cx - 400, cy - 100, cx + 400, cy + 100), layer="feature")
    assert feats.get("forest", 0.0) == pytest.approx(fr.get(int(MoveClass.WOODS), 0.0))


def test_fractions_off_map_raise(flodden_bf: Battlefield) -> None:
    minx, miny, _, _ = flodden_bf.bounds
    with pytest.raises(OffMapError):
        flodden_bf.fractions(box(minx - 1000, miny - 1000, minx - 900, miny - 900))


def test_save_load_round_trip(flodden_bf: Battlefield, tmp_path: Path) -> None:
    flodden_bf.save(tmp_path)
    with rasterio.open(tmp_path / "battlefield.tif") as src:
        assert list(src.descriptions) == list(LAYERS)
    meta = json.loads((tmp_path / "battlefield.json").read_text())
    assert meta["crs"] == "EPSG:32630" and meta["step"] == 10.0
    assert meta["levels"]["count"] == flodden_bf.n_levels
    back = Battlefield.load(tmp_path)
    for name in LAYERS:
        assert np.array_equal(back.layer(name), flodden_bf.layer(name)), name
    assert back.transform == flodden_bf.transform
    assert back.meta["legend"]["feature"] == {0: "open", 1: "forest"}
    assert back.meta["slug"] == "flodden"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "battlefield.json",
        "battlefield.tif",
        "battlefield.tif.aux.xml",
    ]


def test_saved_tif_describes_its_bands_to_gis(flodden_bf: Battlefield, tmp_path: Path) -> None:
    """NoData, units, and the class bands' names (in the file) and categories with colours
    (GDAL's sidecar), as gdalinfo and QGIS read them; the data read back is unchanged."""
    from maps.colours import MOVE_COLOURS, hex_to_rgba

    flodden_bf.save(tmp_path)
    tif = tmp_path / "battlefield.tif"
    with rasterio.open(tif) as src:
        assert src.nodata == -9999.0
        band = {name: i for i, name in enumerate(src.descriptions, start=1)}
        assert src.units[band["elevation"] - 1] == "m"
        assert src.units[band["slope"] - 1] == "degree"
        assert src.tags(band["elevation"])["kind"] == "continuous"
        move = src.tags(band["move"])
        assert move["kind"] == "categorical"
        assert json.loads(move["classes"])["3"] == "woods"
        assert json.loads(src.tags(band["feature"])["classes"])["1"] == "forest"
        for name in LAYERS:  # no cell of any band is NoData (voids are filled)
            assert not (src.read(band[name]) == src.nodata).any(), name
    if shutil.which("gdalinfo") is None:
        pytest.skip("GDAL's gdalinfo not installed (Debian gdal-bin)")
    info = json.loads(
        subprocess.run(["gdalinfo", "-json", str(tif)], capture_output=True, check=True).stdout
    )
    bands = {b["description"]: b for b in info["bands"]}
    assert bands["move"]["categories"][:5] == ["plain", "wet", "debris", "woods", "impractical"]
    assert bands["blocks_sight"]["categories"] == ["clear", "blocks sight"]
    assert bands["elevation"]["unit"] == "m" and bands["elevation"]["noDataValue"] == -9999
    # each band's attribute table, through GDAL's own Python bindings (gdalinfo -json lists
    # only the first band's)
    read_rats = (
        "import json, sys\n"
        "from osgeo import gdal\n"
        "ds = gdal.Open(sys.argv[1])\n"
        "out = {}\n"
        "for i in range(1, ds.RasterCount + 1):\n"
        "    b = ds.GetRasterBand(i); t = b.GetDefaultRAT()\n"
        "    if t is not None:\n"
        "        cols = [t.GetNameOfCol(c) for c in range(t.GetColumnCount())]\n"
        "        out[b.GetDescription()] = [cols] + [[t.GetValueAsString(r, c) for c in "
        "range(len(cols))] for r in range(t.GetRowCount())]\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(["/usr/bin/python3", "-c", read_rats, str(tif)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("GDAL's Python bindings not installed for /usr/bin/python3 (python3-gdal)")
    rats = json.loads(done.stdout)
    assert set(rats) == {"level", "move", "cover", "blocks_sight", "feature"}
    assert rats["move"][0] == ["Value", "Class", "Red", "Green", "Blue", "Alpha"]
    woods = next(r for r in rats["move"][1:] if r[1] == "woods")
    assert tuple(int(v) for v in woods[2:]) == hex_to_rgba(MOVE_COLOURS[3])
    low = int(flodden_bf.layer("level").min())
    assert rats["level"][1][:2] == [str(low), f"level {low}"]
    assert rats["feature"][0] == ["Value", "Class"]  # features have no colour of their own


def test_load_bad_directories(tmp_path: Path, flodden_bf: Battlefield) -> None:
    with pytest.raises(DataSourceError, match="not a directory"):
        Battlefield.load(tmp_path / "nope")
    with pytest.raises(DataSourceError, match="missing"):
        Battlefield.load(tmp_path)
    flodden_bf.save(tmp_path)
    (tmp_path / "battlefield.tif").write_bytes(b"not a tiff")
    with pytest.raises(DataSourceError, match=r"battlefield\.tif: cannot read raster"):
        Battlefield.load(tmp_path)


def test_layers_are_read_only(flodden_bf: Battlefield) -> None:
    with pytest.raises(ValueError):
        flodden_bf.layer("move")[0, 0] = 1


def test_constructor_checks_inputs() -> None:
    z = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match="missing"):
        Battlefield({"elevation": z}, affine.Affine(1, 0, 0, 0, -1, 0), "EPSG:32630", 1.0)
    layers = dict.fromkeys(LAYERS, z)
    with pytest.raises(Exception, match="projected CRS"):
        Battlefield(layers, affine.Affine(1, 0, 0, 0, -1, 0), "EPSG:4326", 1.0)
