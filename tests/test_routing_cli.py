"""``scenario-builder route`` on a real built battlefield (the Bayreuth pair: SRTM + OSM forest),
through the real entry point; every bad input gives one line, a non-zero exit and no file."""

from __future__ import annotations

import json
from pathlib import Path

import geopandas as gpd
import pytest
from shapely.geometry import Point, box


@pytest.fixture(scope="module")
def bf_dir(built_bayreuth, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bayreuth") / "bf"
    built_bayreuth.save(out)
    return out


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIO_BUILDER_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def ends(built_bayreuth) -> tuple[str, str, tuple[float, float]]:
    cx, cy = built_bayreuth.battlefield.centre
    return f"{cx - 2000},{cy - 500}", f"{cx + 2000},{cy + 500}", (cx, cy)


def test_route_text_output(run_cli, bf_dir, ends) -> None:
    code, out, err = run_cli("route", bf_dir, "--from", ends[0], "--to", ends[1])
    assert code == 0, err
    assert "cost" in out and "length" in out and "at triple" in out and "vertices" in out
    assert out.count("\n") >= 7


def test_route_json_matches_the_api(run_cli, bf_dir, ends, built_bayreuth, tmp_path) -> None:
    from scenario_builder.routing import RouteGraph

    code, out, err = run_cli("route", bf_dir, "--from", ends[0], "--to", ends[1], "--json")
    assert code == 0, err
    got = json.loads(out)
    a = tuple(float(v) for v in ends[0].split(","))
    b = tuple(float(v) for v in ends[1].split(","))
    r = RouteGraph.from_battlefield(built_bayreuth.battlefield).route(a, b)
    assert got["cost_m"] == pytest.approx(r.cost_m, abs=0.01)
    assert got["length_m"] == pytest.approx(r.length_m, abs=0.01)
    assert got["n_vertices"] == len(got["path"]) == r.n_vertices
    assert got["path"][0] == [round(a[0], 2), round(a[1], 2)]
    assert got["crs"] == "EPSG:32632"
    assert list((tmp_path / "cache" / "routing").glob("routegraph-*.pickle"))  # graph cached


def test_route_in_lonlat(run_cli, bf_dir, built_bayreuth) -> None:
    bf = built_bayreuth.battlefield
    w, s, e, n = bf.bounds_lonlat()
    a = f"{w + 0.02},{s + 0.02}"
    b = f"{e - 0.02},{n - 0.02}"
    code, out, err = run_cli(
        "route", bf_dir, "--from", a, "--to", b, "--crs", "EPSG:4326", "--json"
    )
    assert code == 0, err
    got = json.loads(out)
    assert got["path"][0] == pytest.approx([w + 0.02, s + 0.02])
    assert got["path"][-1] == pytest.approx([e - 0.02, n - 0.02])
    assert got["cost_m"] > 5000  # a few km across the map


def test_route_around_enemy_file_and_map(run_cli, bf_dir, ends, tmp_path, built_bayreuth) -> None:
    cx, cy = ends[2]
    enemy = tmp_path / "enemy.geojson"
    gpd.GeoDataFrame(
        geometry=[box(cx - 30, cy - 1500, cx + 30, cy + 1500)], crs=built_bayreuth.battlefield.crs
    ).to_file(enemy)
    html = tmp_path / "maps" / "route.html"
    code, out, err = run_cli(
        "route",
        bf_dir,
        "--from",
        ends[0],
        "--to",
        ends[1],
        "--enemy",
        enemy,
        "--json",
        "--map",
        html,
    )
    assert code == 0, err
    got = json.loads(out)
    code, out2, _ = run_cli("route", bf_dir, "--from", ends[0], "--to", ends[1], "--json")
    assert got["cost_m"] > json.loads(out2)["cost_m"]  # the enemy forced a detour
    assert got["enemy_polygons"] == 1
    text = html.read_text()
    assert "L.polyline" in text or "polyline" in text.lower()
    assert "tile.openstreetmap" not in text and "<script src=" not in text  # offline, no tiles
    assert [p.name for p in html.parent.iterdir()] == ["route.html"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "1,a", "--to", "2,3"], "--from: expected X,Y"),
        (["--from", "1,2,3", "--to", "2,3"], "--from: expected X,Y"),
        (["--from", "nan,1", "--to", "2,3"], "--from: expected finite"),
        (["--from", "1,2", "--to", "3,4"], "off the battlefield"),
        (["--crs", "EPSG:99999", "--from", "1,2", "--to", "3,4"], "--crs: expected a CRS"),
    ],
)
def test_route_bad_input(run_cli, bf_dir, tmp_path, args, message) -> None:
    html = tmp_path / "route.html"
    code, _out, err = run_cli("route", bf_dir, *args, "--map", html)
    assert code != 0
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not html.exists() and list(tmp_path.glob(".route.html*")) == []


def test_route_missing_battlefield(run_cli, tmp_path) -> None:
    code, _, err = run_cli("route", tmp_path / "nope", "--from", "1,2", "--to", "3,4")
    assert code == 1 and "not a directory" in err and err.count("\n") == 1


def test_route_enclosed_start(run_cli, bf_dir, ends, tmp_path, built_bayreuth) -> None:
    cx, cy = ends[2]
    ring = Point(cx - 2000, cy - 500).buffer(200).difference(Point(cx - 2000, cy - 500).buffer(150))
    enemy = tmp_path / "ring.gpkg"
    gpd.GeoDataFrame(geometry=[ring], crs=built_bayreuth.battlefield.crs).to_file(enemy)
    code, _, err = run_cli("route", bf_dir, "--from", ends[0], "--to", ends[1], "--enemy", enemy)
    assert code == 1 and "no route" in err and err.count("\n") == 1


def _bad_enemy_files(tmp: Path, crs) -> list[tuple[Path, str]]:
    missing = tmp / "missing.geojson"
    garbage = tmp / "garbage.geojson"
    garbage.write_text("{not json")
    points = tmp / "points.geojson"
    gpd.GeoDataFrame(geometry=[Point(0, 0)], crs="EPSG:4326").to_file(points)
    metres = tmp / "metres.geojson"
    metres.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "features": [
                    {
                        "type": "Feature",
                        "properties": {},
                        "geometry": {
                            "type": "Polygon",
                            "coordinates": [
                                [
                                    [681000, 5541000],
                                    [681400, 5541000],
                                    [681400, 5544500],
                                    [681000, 5541000],
                                ]
                            ],
                        },
                    }
                ],
            }
        )
    )
    empty = tmp / "empty.geojson"
    empty.write_text(json.dumps({"type": "FeatureCollection", "features": []}))
    return [
        (missing, "no such file"),
        (garbage, "cannot read"),
        (points, "expected Polygon/MultiPolygon"),
        (metres, "expected lon/lat"),
        (empty, "no geometries"),
    ]


def test_route_bad_enemy_files(run_cli, bf_dir, ends, tmp_path, built_bayreuth) -> None:
    for path, message in _bad_enemy_files(tmp_path, built_bayreuth.battlefield.crs):
        html = tmp_path / "m.html"
        code, _, err = run_cli(
            "route", bf_dir, "--from", ends[0], "--to", ends[1], "--enemy", path, "--map", html
        )
        assert code == 1, path
        assert message in err and path.name in err, err
        assert err.count("\n") == 1
        assert not html.exists()
