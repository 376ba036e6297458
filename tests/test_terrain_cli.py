"""``scenario-builder build`` and ``sites`` through the real entry point, good and bad input.

Every bad input gives a one-line ``Error: <file>: <problem>``, exit status 1, no traceback, and
nothing written in the output directory.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import rasterio

from scenario_builder.battlefield import Battlefield
from tests.conftest import write_like


def test_sites_lists_the_shipped_battlefields(run_cli):
    code, out, _ = run_cli("sites", "--json")
    assert code == 0
    slugs = [s["slug"] for s in json.loads(out)]
    assert {"gettysburg", "flodden", "north_bayreuth_pair"} <= set(slugs)
    code, out, _ = run_cli("sites")
    assert code == 0 and "gettysburg" in out


def test_build_shipped_site_writes_a_loadable_battlefield_and_a_summary(run_cli, tmp_path):
    out_dir = tmp_path / "flodden"
    code, out, err = run_cli(
        "build", "flodden", "--out", out_dir, "--resolution", "50", "--step", "5"
    )
    assert code == 0, err
    assert err == ""
    assert sorted(p.name for p in out_dir.iterdir() if not p.name.startswith(".")) == [
        "battlefield.gpkg",
        "battlefield.json",
        "battlefield.tif",
        "battlefield.tif.aux.xml",
    ]
    bf = Battlefield.load(out_dir)
    assert bf.res == 50.0 and bf.step == 5.0 and bf.meta["slug"] == "flodden"
    assert "river" in bf.meta["legend"]["feature"].values()
    regions, contours = bf.read_vectors("regions"), bf.read_vectors("contours")
    assert {"move", "cover", "blocks_sight", "feature"} <= set(regions.columns)
    assert {"level", "elevation"} <= set(contours.columns) and len(contours) > 10
    # the summary table: area per class and number of levels
    assert "impractical" in out and "levels of 5 m" in out and "area (ha)" in out


def test_build_from_paths_with_landcover_codes_bbox_and_min_region(run_cli, tmp_path, bayreuth_dir):
    out_dir = tmp_path / "custom"
    code, out, err = run_cli(
        "build",
        "--dem",
        bayreuth_dir / "dem.tif",
        "--landcover",
        bayreuth_dir / "landcover_osm.geojson",
        "--landcover",
        bayreuth_dir / "linear_osm.geojson",
        "--bbox",
        "11.50,49.98,11.56,50.02",
        "--resolution",
        "30",
        "--min-region",
        "5",
        "--codes",
        "worldcover",
        "--out",
        out_dir,
    )
    assert code == 0, err
    bf = Battlefield.load(out_dir)
    assert bf.meta["min_area_m2"] == 50_000
    assert "woods" in out and bf.area_by_class("move")["woods"] > 0


@pytest.fixture
def bad(
    tmp_path: Path, minden_dem: Path, gettysburg_dem: Path, bayreuth_dir: Path
) -> dict[str, list[str]]:
    """name -> extra CLI arguments for each kind of bad input, made from the real files."""
    empty = tmp_path / "empty.tif"
    empty.write_bytes(b"")
    truncated = tmp_path / "truncated.tif"
    truncated.write_bytes(gettysburg_dem.read_bytes()[: gettysburg_dem.stat().st_size // 3])
    no_crs = write_like(minden_dem, tmp_path / "nocrs.tif", crs=None)
    with rasterio.open(minden_dem) as ds:
        arr = ds.read(1)
        nodata = ds.nodata
    holed = arr.copy()
    holed[20:60, 30:90] = nodata  # a real DEM with a blanked block; the bbox asks for it alone
    holed_tif = write_like(minden_dem, tmp_path / "holed.tif", data=holed)
    with rasterio.open(minden_dem) as ds:
        x0, y0 = ds.transform @ (40, 50)
        x1, y1 = ds.transform @ (70, 30)
    hole_bbox = f"{x0},{y0},{x1},{y1}"
    broken_json = tmp_path / "broken.geojson"
    broken_json.write_text((bayreuth_dir / "linear_osm.geojson").read_text()[:5000])
    bad_codes = tmp_path / "codes.csv"
    bad_codes.write_text("code,feature,name\n10,jungle,Tree cover\n")
    return {
        "missing": ["--dem", str(tmp_path / "nowhere.tif")],
        "zero-byte": ["--dem", str(empty)],
        "truncated": ["--dem", str(truncated)],
        "not a raster": ["--dem", str(bayreuth_dir / "landcover_osm.geojson")],
        "no CRS": ["--dem", str(no_crs)],
        "bbox outside": ["--dem", str(minden_dem), "--bbox", "0,0,1,1"],
        "all nodata": ["--dem", str(holed_tif), "--bbox", hole_bbox],
        "landcover elsewhere": [
            "--dem",
            str(gettysburg_dem),
            "--landcover",
            str(bayreuth_dir / "landcover_osm.geojson"),
            "--resolution",
            "50",
        ],
        "corrupt vector": ["--dem", str(minden_dem), "--overlay", str(broken_json)],
        "bad code table": ["--dem", str(minden_dem), "--codes", str(bad_codes)],
        "unknown slug": ["atlantis"],
    }


EXPECT = {
    "missing": ("nowhere.tif", "file not found"),
    "zero-byte": ("empty.tif", "empty file"),
    "truncated": ("truncated.tif", "corrupt"),
    "not a raster": ("landcover_osm.geojson", "expected a raster"),
    "no CRS": ("nocrs.tif", "expected a coordinate reference system, got none"),
    "bbox outside": ("dem.tif", "outside the data"),
    "all nodata": ("holed.tif", "only nodata"),
    "landcover elsewhere": ("landcover_osm.geojson", "overlapping the DEM"),
    "corrupt vector": ("broken.geojson", "unreadable"),
    "bad code table": ("codes.csv", "'jungle'"),
    "unknown slug": ("atlantis", "unknown slug"),
}


@pytest.mark.parametrize("case", sorted(EXPECT))
def test_bad_input_one_line_error_exit_1_nothing_written(case, bad, run_cli, tmp_path):
    parent = tmp_path / "outputs"
    parent.mkdir()
    out_dir = parent / "bf"
    code, out, err = run_cli("build", *bad[case], "--out", out_dir)
    name, problem = EXPECT[case]
    assert code == 1, (out, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("Error: ") and name in lines[0] and problem in lines[0], lines[0]
    assert "Traceback" not in err
    assert list(parent.iterdir()) == []  # no output dir, no temporary left behind


def test_failed_build_leaves_an_existing_output_untouched(run_cli, tmp_path, minden_dem):
    out_dir = tmp_path / "bf"
    assert run_cli("build", "--dem", minden_dem, "--resolution", "100", "--out", out_dir)[0] == 0
    before = {p.name: p.read_bytes() for p in out_dir.iterdir()}
    code, _, err = run_cli("build", "--dem", minden_dem, "--bbox", "0,0,1,1", "--out", out_dir)
    assert code == 1 and "outside the data" in err
    assert {p.name: p.read_bytes() for p in out_dir.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bf"]


@pytest.mark.parametrize(
    "args",
    [
        ["--dem", "x.tif", "--bbox", "1,2,3"],  # malformed bbox
        ["gettysburg", "--dem", "x.tif"],  # both a slug and a DEM
        [],  # neither
        ["gettysburg", "--step", "0"],
    ],
)
def test_usage_errors_exit_2_without_traceback(args, run_cli, tmp_path):
    code, _, err = run_cli("build", *args, "--out", tmp_path / "o")
    assert code == 2 and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_unknown_landcover_code_is_an_error_unless_unknown_as(
    run_cli, tmp_path, osm_worldcover_tif, bayreuth_dir
):
    """docs/building.md: an unknown land-cover code stops the build; --unknown-as CLASS maps it."""
    with rasterio.open(osm_worldcover_tif) as ds:
        arr = ds.read(1)
    arr[np.where(arr == 30)] = 33  # meadow -> a code WorldCover does not have
    lc = write_like(osm_worldcover_tif, tmp_path / "lc.tif", data=arr)
    args = ["build", "--dem", bayreuth_dir / "dem.tif", "--landcover", lc, "--codes", "worldcover"]
    args += ["--resolution", "50", "--out", tmp_path / "o"]
    code, _, err = run_cli(*args)
    assert code == 1 and err.count("\n") == 1
    assert f"Error: {lc}: " in err and "33: " in err and "--unknown-as" in err
    assert not (tmp_path / "o").exists()
    code, _, err = run_cli(*args, "--unknown-as", "open")
    assert code == 0
    assert "Warning:" in err and "33:" in err and "'open'" in err
    shutil.rmtree(tmp_path / "o")
