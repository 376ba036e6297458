"""Battlefield object: queries, fractions (7.1), save/load round-trip, bad directories."""

from __future__ import annotations

import json
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
    assert sorted(p.name for p in tmp_path.iterdir()) == ["battlefield.json", "battlefield.tif"]


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
