"""Every command that takes coordinates reads lon/lat or map metres, says which,
and reports a bad position in the coordinates the user wrote (with file and line for a file).

On the shipped Flodden site (SRTM 3", data/battlefields/flodden, provenance in data/SOURCES.md):
``build --bbox`` and ``print --bbox`` in degrees and in the metres of the battlefield's UTM grid
(EPSG:32630) cover the same ground; an orders file (``run --orders``) with a position in lon/lat
fights the same battle as one with the same position in metres.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rasterio.warp import transform_bounds

from scenario_builder.errors import ScenarioFileError

UTM = "EPSG:32630"  # Flodden's built grid (scenario_builder.dem.utm_crs of the site)
# a 2 x 2 km box on the English approach, in the built grid's metres
METRES = (549000.0, 6161000.0, 551000.0, 6163000.0)


def _degrees(box: tuple[float, ...]) -> str:
    """The lon/lat box inside the metres one (its corners transformed, the inner rectangle)."""
    w, s, e, n = transform_bounds(UTM, "EPSG:4326", *box, densify_pts=21)
    return f"{w:.6f},{s:.6f},{e:.6f},{n:.6f}"


def _text(box: tuple[float, ...]) -> str:
    return ",".join(f"{v:.0f}" for v in box)


@pytest.fixture(scope="module")
def coarse_flodden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Flodden built at 50 m: a real battlefield folder to print from."""
    from scenario_builder.build import build_site

    out = tmp_path_factory.mktemp("flodden50") / "bf"
    build_site("flodden", resolution=50.0).save(out)
    return out


def test_build_bbox_in_metres_or_degrees_builds_that_ground_and_says_which(run_cli, tmp_path):
    code, out, err = run_cli(
        "build", "flodden", "--bbox", _text(METRES), "--resolution", "100", "--out", tmp_path / "m"
    )
    assert code == 0, err
    assert f"read --bbox {_text(METRES)} as metres in {UTM} (guessed: --crs to choose)" in out
    meta = json.loads((tmp_path / "m" / "battlefield.json").read_text())
    assert meta["crs"] == UTM
    x0, y0, x1, y1 = meta["bounds"]
    # inside the box, snapped inward to whole 100 m cells (a cell more where the DEM's degree
    # grid, turned against the UTM grid, leaves a corner short)
    assert METRES[0] <= x0 <= METRES[0] + 200 and METRES[2] - 200 <= x1 <= METRES[2]
    assert METRES[1] <= y0 <= METRES[1] + 200 and METRES[3] - 200 <= y1 <= METRES[3]

    deg = _degrees(METRES)
    code, out, err = run_cli(
        "build", "flodden", "--bbox", deg, "--resolution", "100", "--out", tmp_path / "d"
    )
    assert code == 0, err
    assert f"read --bbox {deg} as lon,lat (guessed: --crs to choose)" in out
    lonlat = json.loads((tmp_path / "d" / "battlefield.json").read_text())["bounds"]
    # the same ground within a cell (the degree box encloses the metres one)
    assert all(abs(a - b) <= 100 for a, b in zip(lonlat, meta["bounds"], strict=True))


def test_build_bbox_with_crs_and_off_the_dem(run_cli, tmp_path):
    code, out, err = run_cli(
        "build",
        "flodden",
        "--bbox",
        _text(METRES),
        "--crs",
        UTM,
        "--resolution",
        "100",
        "--out",
        tmp_path / "c",
    )
    assert code == 0, err
    assert f"as metres in {UTM} (from --crs)" in out
    # metres of a box 30 km away: neither on the DEM in metres nor degrees-sized numbers
    far = (METRES[0] + 30_000, METRES[1], METRES[2] + 30_000, METRES[3])
    code, out, err = run_cli("build", "flodden", "--bbox", _text(far), "--out", tmp_path / "f")
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 1 and len(lines) == 1, err
    assert lines[0].startswith(f"Error: --bbox: {_text(far)} is off the DEM, read as lon,lat")
    assert f"m in {UTM} (give --crs to say which)" in lines[0]
    assert not (tmp_path / "f").exists()
    # degrees given as metres with --crs: the box misses the data, reported in those metres
    code, _, err = run_cli(
        "build", "flodden", "--bbox", _degrees(METRES), "--crs", UTM, "--out", tmp_path / "g"
    )
    assert code == 1 and "is outside the data (547" in err and not (tmp_path / "g").exists()


def test_print_bbox_in_metres_or_degrees_prints_the_same_table(run_cli, coarse_flodden, tmp_path):
    def table(*bbox_args: str) -> tuple[str, str]:
        code, out, err = run_cli(
            "print", coarse_flodden, "--scale", "1:10000", *bbox_args, "--out", tmp_path / "x.pdf"
        )
        assert code == 0, err
        read, wrote = out.strip().splitlines()
        return read, wrote.split(": ", 1)[1]

    read_m, size_m = table("--bbox", _text(METRES))
    assert read_m == f"read --bbox {_text(METRES)} as metres in {UTM} (guessed: --crs to choose)"
    assert "table 0.20 x 0.20 m at 1:10000" in size_m  # 2 km at 1:10000
    read_c, size_c = table("--bbox", _text(METRES), "--crs", UTM)
    assert read_c.endswith("(from --crs)") and size_c == size_m
    read_d, size_d = table("--bbox", _degrees(METRES))
    assert "as lon,lat (guessed" in read_d and size_d == size_m
    # off the battlefield in metres: the battlefield's extent in both, one line, nothing written
    code, _, err = run_cli(
        "print", coarse_flodden, "--bbox", "1000,1000,2000,2000", "--out", tmp_path / "y.pdf"
    )
    assert code == 1 and err.startswith("Error: --bbox: 1000,1000,2000,2000 is off the battlefield")
    assert err.count("\n") == 1 and not (tmp_path / "y.pdf").exists()


ORDERS = '1: ["hold en_edmund"]\n2:\n  - "advance en_surrey to {at}"\n'


def _fight(orders: Path, built) -> str:
    from engine.scenario import load_scenario
    from scenario_builder.battle import fight

    log, _ = fight(load_scenario("flodden_1513"), built, 3, max_bounds=3, orders_file=str(orders))
    return log.to_json()


def test_orders_position_in_lonlat_is_the_same_order_as_in_metres(tmp_path, built_flodden):
    bf = built_flodden.battlefield
    lon, lat = -2.1790, 55.6215  # between the armies
    x, y = bf.to_xy(lon, lat)
    in_degrees = tmp_path / "deg.yaml"
    in_degrees.write_text(ORDERS.format(at=f"{lon},{lat}"), encoding="utf-8")
    in_metres = tmp_path / "m.yaml"
    in_metres.write_text(ORDERS.format(at=f"{x!r},{y!r}"), encoding="utf-8")
    log = _fight(in_degrees, built_flodden)
    assert log == _fight(in_metres, built_flodden)
    assert f"advance en_surrey to {float(x)},{float(y)}" in log  # issued in metres


def test_orders_position_off_the_battlefield_names_file_line_and_position(tmp_path, built_flodden):
    bad = tmp_path / "plan.yaml"
    bad.write_text(ORDERS.format(at="2.179,55.6215"), encoding="utf-8")  # east for west
    with pytest.raises(ScenarioFileError) as exc:
        _fight(bad, built_flodden)
    msg = str(exc.value)
    assert msg.startswith(
        f"{bad}: line 3: order 'advance en_surrey to 2.179,55.6215': 2.179,55.6215 is off the "
        "battlefield, read as lon,lat or as metres: it spans lon -2.24"
    )
    assert "\n" not in msg and f"m in {UTM}" in msg


def test_run_says_how_it_read_the_orders_positions(run_cli, tmp_path):
    orders = tmp_path / "plan.yaml"
    orders.write_text(
        '1: ["advance en_edmund to -2.1905,55.6250"]\n'
        '2:\n  - "attack en_surrey to 551000,6163500"\n',
        encoding="utf-8",
    )
    code, out, err = run_cli(
        "run", "flodden_1513", "--max-bounds", "1", "--orders", orders, "--out", tmp_path / "r"
    )
    assert code == 0, err
    assert f"read --orders positions as lon,lat (1), metres in {UTM} (1)" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--crs", UTM], "--crs says what --bbox is in; give --bbox too"),
        (["--bbox", _text(METRES), "--crs", "EPSG:99999"], "--crs: expected a CRS such as"),
        (["--bbox", "3,2,1,4"], "expected W < E and S < N, got '3,2,1,4'"),
    ],
)
def test_bad_bbox_or_crs_is_one_line_naming_the_option(
    run_cli, coarse_flodden, tmp_path, args, message
):
    for command in (
        ["build", "flodden", *args, "--out", tmp_path / "b"],
        ["print", coarse_flodden, *args, "--out", tmp_path / "p.pdf"],
    ):
        code, _, err = run_cli(*command)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        # one error line (a usage error, exit 2, has click's usage lines above it)
        assert (code, len(lines)) in ((1, 1), (2, 1), (2, 3)), (command, err)
        assert lines[-1].startswith("Error: ") and message in lines[-1], (command, err)
        assert "Traceback" not in err and list(tmp_path.iterdir()) == []
