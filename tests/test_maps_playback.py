"""Battlefield map and playback pages on a real built battlefield (Bayreuth DEM + OSM).

The battle log here is ``maps.testing.synthetic_battle_log``: bases placed on the real ground and
moved by a script, a fixture for drawing, not a battle result.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pyproj
import pytest

from maps.playback import playback_data
from maps.reproject import LonLatFit
from maps.testing import synthetic_battle_log, write_run_dir
from maps.visibility import seen_by


@pytest.fixture(scope="module")
def bf(built_bayreuth):
    return built_bayreuth.battlefield


@pytest.fixture(scope="module")
def bf_dir(built_bayreuth, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bf") / "battlefield"
    built_bayreuth.save(d)
    return d


@pytest.fixture(scope="module")
def run_dir(bf, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_run_dir(bf, tmp_path_factory.mktemp("run"), bases_per_side=36, bounds=5)


def test_lonlat_fit_keeps_bases_true_size(bf) -> None:
    fit = LonLatFit.fit(bf.crs, bf.bounds)
    assert fit.max_error_m < 0.05
    x, y = bf.centre
    geod = pyproj.Geod(ellps="WGS84")
    lon, lat = fit(np.array([x - 20, x + 20]), np.array([y, y]))
    _, _, frontage = geod.inv(lon[0], lat[0], lon[1], lat[1])
    scale = pyproj.Proj(bf.crs).get_factors(*bf.to_lonlat(x, y)).meridional_scale
    assert frontage * scale == pytest.approx(40.0, abs=0.05)  # 40 m of grid, on the ellipsoid


def test_6_2_fog_of_war_matches_line_of_sight_pair_by_pair(bf) -> None:
    rng = np.random.default_rng(3)
    minx, miny, maxx, maxy = bf.bounds
    obs = np.column_stack([rng.uniform(minx, maxx, 12), rng.uniform(miny, maxy, 12)])
    tgt = np.column_stack([rng.uniform(minx, maxx, 40), rng.uniform(miny, maxy, 40)])
    expected = [any(bf.line_of_sight(tuple(o), tuple(t)) for o in obs) for t in tgt]
    got = seen_by(bf, obs, tgt).tolist()
    assert got == expected
    assert 0 < sum(got) < len(got)  # a real, hilly and wooded map: some hidden, some seen


def test_playback_data_is_compact_and_complete(bf) -> None:
    log = synthetic_battle_log(bf, bases_per_side=24, bounds=4)
    data = playback_data(bf, log)
    n = len(log["bases"])
    assert len(data["bounds"]) == 5
    for b, src in zip(data["bounds"], log["bounds"]):
        assert len(b["p"]) == 3 * n and len(b["s"]) == n
        assert b["l"] == src["snapshot"]["losses"]
        assert set(b["v"]) == {"north", "south"}
        i = data["bases"]["id"].index(log["bases"][0]["id"])
        s = src["snapshot"]["bases"][log["bases"][0]["id"]]
        x = b["p"][3 * i] / 10 + data["proj"]["cx"]
        assert x == pytest.approx(s["x"], abs=0.05)
    shots = [e for b in data["bounds"] for e in b["e"] if e["t"] == "shot"]
    assert shots and all("l" in e and "dice [" in e["x"] for e in shots)
    assert any(b["g"] for b in data["bounds"])  # messengers with routes


@pytest.mark.parametrize("offline", [True, False])
def test_map_command_writes_battlefield_map(
    run_cli, bf_dir: Path, tmp_path: Path, offline: bool
) -> None:
    out = tmp_path / "map.html"
    args = ["map", bf_dir, "--out", out] + (["--offline"] if offline else [])
    code, _stdout, err = run_cli(*args)
    assert code == 0, err
    page = out.read_text()
    assert "Movement (7.3)" in page and "Height levels (6.2)" in page
    assert "L.control.measureDistance" in page and "control.scale" in page
    assert page.count("data:image/png;base64") >= 4  # hillshade, levels, movement, cover
    if offline:
        assert not re.search(r"<script[^>]+src=|<link[^>]+href=\"http", page)
        assert "openstreetmap" not in page.lower().replace("© openstreetmap", "")
    else:
        assert "tile.openstreetmap.org" in page


def test_map_command_detects_a_run_dir(run_cli, run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "playback.html"
    code, stdout, err = run_cli("map", run_dir, "--out", out, "--offline")
    assert code == 0, err and "playback" in stdout
    page = out.read_text()
    block = re.search(r'id="sb-playback-data">(.*?)</script>', page, re.S).group(1)
    data = json.loads(block)
    assert len(data["bounds"]) == 6 and data["fog"] is True


def _broken_logs() -> dict[str, object]:
    return {
        "not_json": "{nope",
        "wrong_format": {"format": "other/9", "sides": [], "bases": [], "bounds": []},
        "no_bounds": {"format": "battlelog/1", "sides": [], "bases": [], "bounds": []},
        "bad_base": {
            "format": "battlelog/1",
            "sides": [{"id": "a"}],
            "bases": [{"id": "b1", "side": "a"}],
            "bounds": [{"bound": 0, "snapshot": {"bases": {"b1": {"x": "far"}}}}],
        },
        "unknown_side": {
            "format": "battlelog/1",
            "sides": [{"id": "a"}],
            "bases": [{"id": "b1", "side": "z"}],
            "bounds": [],
        },
    }


@pytest.mark.parametrize("kind", sorted(_broken_logs()))
def test_malformed_log_is_one_line_error_and_no_output(
    run_cli, bf_dir: Path, tmp_path: Path, kind: str
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "battlefield").symlink_to(bf_dir, target_is_directory=True)
    body = _broken_logs()[kind]
    (run / "battle_log.json").write_text(body if isinstance(body, str) else json.dumps(body))
    out = tmp_path / "o" / "p.html"
    code, _, err = run_cli("map", run, "--out", out)
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1
    assert "battle_log.json" in err
    assert not out.parent.exists()


@pytest.mark.parametrize("kind", ["missing", "empty", "file"])
def test_map_of_a_non_battlefield_fails_cleanly(run_cli, tmp_path: Path, kind: str) -> None:
    target = tmp_path / "d"
    if kind == "empty":
        target.mkdir()
    elif kind == "file":
        target.write_text("x")
    out = tmp_path / "o" / "m.html"
    code, _, err = run_cli("map", target, "--out", out)
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1
    assert not out.parent.exists()
