"""Shared fixtures, on the real shipped data (data/battlefields, provenance in data/SOURCES.md).

Owned by the terrain pipeline; other areas may append fixtures at the end.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import rasterio
import rasterio.features
from affine import Affine

from scenario_builder.paths import data_dir

SITES = data_dir() / "battlefields"


@pytest.fixture(scope="session")
def sites_dir() -> Path:
    return SITES


@pytest.fixture(scope="session")
def gettysburg_dem() -> Path:
    return SITES / "gettysburg" / "dem.tif"


@pytest.fixture(scope="session")
def minden_dem() -> Path:
    return SITES / "minden" / "dem.tif"


@pytest.fixture(scope="session")
def bayreuth_dir() -> Path:
    return SITES / "north_bayreuth_pair"


@pytest.fixture(scope="session")
def built_bayreuth():
    """The Bayreuth DEM + OSM land cover pair, built once (BuildResult: bf, regions, contours)."""
    from scenario_builder.build import build_site

    return build_site("north_bayreuth_pair")


@pytest.fixture(scope="session")
def built_gettysburg():
    """Gettysburg at its native ~7.5 m resolution, built once."""
    from scenario_builder.build import build_site

    return build_site("gettysburg")


# OSM feature -> ESA WorldCover class value, to derive a categorical raster from the real OSM
# polygons (no real WorldCover tile is shipped; the geometry stays real).
WORLDCOVER_FROM_OSM = {
    "forest": 10,
    "scrub": 20,
    "meadow": 30,
    "farmland": 40,
    "building": 50,
    "water": 80,
    "marsh": 90,
}


@pytest.fixture(scope="session")
def osm_worldcover_tif(tmp_path_factory: pytest.TempPathFactory, bayreuth_dir: Path) -> Path:
    """A WorldCover-coded GeoTIFF (EPSG:4326, ~0.0001°, nodata 0) rasterised from the shipped
    Bayreuth OSM polygons; cells no polygon covers are nodata."""
    from scenario_builder.codetables import CodeTables
    from scenario_builder.landcover import read_vector, vector_features

    path = bayreuth_dir / "landcover_osm.geojson"
    feats = vector_features(read_vector(path), CodeTables.load(), path)
    feats = feats[feats["feature"].isin(list(WORLDCOVER_FROM_OSM))].to_crs("EPSG:4326")
    with rasterio.open(bayreuth_dir / "dem.tif") as dem:
        left, bottom, right, top = dem.bounds
    res = 0.0001
    width, height = round((right - left) / res), round((top - bottom) / res)
    transform = Affine(res, 0, left, 0, -res, top)
    prio = feats["feature"].map({"water": 9, "building": 8, "marsh": 7, "forest": 6}).fillna(0)
    feats = feats.assign(prio=prio).sort_values("prio", kind="stable")
    shapes = [
        (g, WORLDCOVER_FROM_OSM[f]) for g, f in zip(feats.geometry, feats["feature"], strict=True)
    ]
    arr = rasterio.features.rasterize(
        shapes, out_shape=(height, width), transform=transform, fill=0, dtype="uint8"
    )
    out = tmp_path_factory.mktemp("worldcover") / "worldcover_from_osm.tif"
    with rasterio.open(
        out,
        "w",
        driver="GTiff",
        width=width,
        height=height,
        count=1,
        dtype="uint8",
        crs="EPSG:4326",
        transform=transform,
        nodata=0,
        compress="deflate",
    ) as dst:
        dst.write(arr, 1)
    return out


@pytest.fixture
def run_cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., tuple[int, str, str]]:
    """Run ``scenario-builder ARGS`` in-process via its real entry point: (code, out, err)."""
    from scenario_builder.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # main() replaces it
        capsys.readouterr()
        # as a user's shell sees it: Python's default filters hide (Pending)DeprecationWarnings
        # from libraries (rasterio's Affine `*` notices), pytest's would print them
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", PendingDeprecationWarning)
            try:
                main([str(a) for a in args])
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        out, err = capsys.readouterr()
        return code, out, err

    return run


def write_like(
    src: Path, dst: Path, *, data: np.ndarray | None = None, crs: object = "keep"
) -> Path:
    """Copy a real raster, optionally with new band-1 data or without its CRS (crs=None)."""
    with rasterio.open(src) as s:
        profile = s.profile.copy()
        arr = s.read(1) if data is None else data
    if crs is None:
        profile.pop("crs", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rasterio.errors.NotGeoreferencedWarning)
        with rasterio.open(dst, "w", **profile) as d:
            d.write(arr.astype(profile["dtype"]), 1)
    return dst


# -- command layer (two_mm_earth.messengers / commanders): shipped sites with their scenarios ----


@pytest.fixture(scope="session")
def built_flodden():
    """Flodden (SRTM 3", 25 m grid) built once; the ground of data/scenarios/flodden_1513.yaml."""
    from scenario_builder.build import build_site

    return build_site("flodden")


@pytest.fixture(scope="session")
def built_minden():
    """Minden (SRTM 3", bare DEM) built once: the rules tests' open ground."""
    from scenario_builder.build import build_site

    return build_site("minden")


@pytest.fixture(scope="session")
def flodden_dir(built_flodden, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built Flodden saved once: a battlefield folder for the commands that read one."""
    out = tmp_path_factory.mktemp("flodden") / "bf"
    built_flodden.save(out)
    return out


@pytest.fixture(scope="session")
def built_teutoburg():
    """Kalkriese (SRTM + overlay, ~29 % woods) built once; data/scenarios/teutoburg_ad9.yaml."""
    from scenario_builder.build import build_site

    return build_site("teutoburg_kalkriese")


# -- maps: a real battle's run directory (scenario-builder run, with a scripted wing split) ------

TEUTOBURG_ORDERS = """\
1: ["split rm_leg_xviii into 2 wings"]
2: ["split rm_alae into 2 wings"]
4: ["attack rm_leg_xviii_w2 on gm_wall", "advance rm_alae to 440500,5806900"]
"""


@pytest.fixture(scope="session")
def teutoburg_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``scenario-builder run teutoburg_ad9 --seed 5 --orders ... --orders-side romans``.

    A real battle (17 bounds, ~2 s) whose log holds a wing split off in battle, a refused wing
    order, messengers in flight and re-routed, panic tests, routs and destroyed formations.
    """
    from engine.scenario import load_scenario
    from scenario_builder.battle import build_battlefield, fight
    from scenario_builder.run_folder import write_run

    root = tmp_path_factory.mktemp("teutoburg_run")
    orders = root / "orders.yaml"
    orders.write_text(TEUTOBURG_ORDERS, encoding="utf-8")
    sc = load_scenario("teutoburg_ad9")
    built = build_battlefield(sc)
    log, summary = fight(sc, built, 5, orders_file=str(orders), orders_side="romans")
    run = root / "run"
    run.mkdir()
    write_run(run, log, summary, built)
    return run
