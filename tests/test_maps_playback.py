"""Battlefield map and playback pages on real battles and real ground.

The playback runs on a real run directory (``teutoburg_run`` in conftest: ``scenario-builder run
teutoburg_ad9`` with a scripted wing split); the map and fog checks use the real Bayreuth build.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pyproj
import pytest

from maps.battlelog import load_battle_log
from maps.playback import _event_text, playback_data
from maps.reproject import LonLatFit
from maps.visibility import SightProofs, observer_bases, seen_by
from scenario_builder.battlefield import Battlefield


@pytest.fixture(scope="module")
def bf(built_bayreuth):
    return built_bayreuth.battlefield


@pytest.fixture(scope="module")
def bf_dir(built_bayreuth, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bf") / "battlefield"
    built_bayreuth.save(d)
    return d


@pytest.fixture(scope="module")
def real(teutoburg_run: Path) -> tuple[Battlefield, dict, dict]:
    """The real run's battlefield, its log, and the playback data drawn from them."""
    bf = Battlefield.load(teutoburg_run / "battlefield")
    log = load_battle_log(teutoburg_run / "battle_log.json")
    return bf, log, playback_data(bf, log)


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


@pytest.mark.parametrize("site", ["bayreuth", "teutoburg"])
@pytest.mark.parametrize("step_cells", [1, 8])
def test_6_2_sight_proofs_agree_with_line_of_sight(
    site: str, step_cells: int, built_bayreuth, built_teutoburg
) -> None:
    """Every pair the shortcut settles (seen or hidden) is what the exact test says."""
    ground = (built_bayreuth if site == "bayreuth" else built_teutoburg).battlefield
    rng = np.random.default_rng(11)
    minx, miny, maxx, maxy = ground.bounds
    n = 3000
    a = np.column_stack([rng.uniform(minx, maxx, n), rng.uniform(miny, maxy, n)])
    # short and long lines: 25 m .. 4 km
    ang, length = rng.uniform(0, 2 * np.pi, n), np.exp(rng.uniform(np.log(25), np.log(4000), n))
    b = a + np.column_stack([np.cos(ang), np.sin(ang)]) * length[:, None]
    keep = np.asarray(ground.contains(b[:, 0], b[:, 1]), bool)
    a, b = a[keep], b[keep]
    got = SightProofs(ground, step_cells=step_cells).settle(a, b)
    exact = ground.line_of_sight_many(a, b)
    settled = got >= 0
    assert (got[settled] == exact[settled]).all()
    assert (got == 1).any() and (got == 0).any()  # both kinds of proof at work
    if step_cells == 1:
        assert settled.mean() > 0.3


def test_6_3_sight_limit_cuts_the_view(bf) -> None:
    x, y = bf.centre
    obs = np.array([[x, y]])
    tgt = np.array([[x + d, y] for d in (100.0, 400.0, 1400.0, 1600.0)])
    free = seen_by(bf, obs, tgt)
    limited = seen_by(bf, obs, tgt, limit_m=1500.0)
    assert limited.tolist() == [bool(v) and d <= 1500 for v, d in zip(free, (100, 400, 1400, 1600))]


def test_observer_bases_are_centre_and_front_ends() -> None:
    # a 4 x 2 block facing east (90 degrees): front rank at the larger x
    bases = {}
    for i in range(8):
        rank, file = divmod(i, 4)
        bases[f"f.{i + 1}"] = {
            "x": 100.0 - rank * 20,
            "y": 60.0 - file * 40,
            "facing": 90.0,
            "formation": "f",
        }
    bases["g.1"] = {"x": 0.0, "y": 0.0, "facing": 0.0, "formation": "g"}
    picked = observer_bases({"bases": bases}, sorted(bases))
    assert "g.1" in picked  # small formations look from every base
    front = [b for b in picked if b.startswith("f.")]
    assert {"f.1", "f.4"} <= set(front) and len(front) == 3
    assert all(bases[b]["x"] == 100.0 for b in {"f.1", "f.4"})


def test_playback_of_a_real_battle_follows_every_snapshot(real) -> None:
    _, log, data = real
    ids = data["bases"]["id"]
    assert len(data["bounds"]) == len(log["bounds"]) > 5
    for b, src in zip(data["bounds"], log["bounds"]):
        snap = src["snapshot"]
        assert len(b["p"]) == 3 * len(ids) and len(b["s"]) == len(ids)
        assert b["l"] == snap["losses"]
        for i, bid in enumerate(ids):
            s = snap["bases"].get(bid)
            if s is None:
                assert b["s"][i] == "-"
                continue
            assert b["p"][3 * i] / 10 + data["proj"]["cx"] == pytest.approx(s["x"], abs=0.05)
            assert b["p"][3 * i + 1] / 10 + data["proj"]["cy"] == pytest.approx(s["y"], abs=0.05)
            assert b["s"][i] == {"ok": "o", "injured": "i", "dead": "d"}[s["state"]]
    states = {c for b in data["bounds"] for c in b["s"]}
    assert {"o", "i", "d"} <= states  # a real battle injures and kills


def test_4_2_wings_split_in_battle_are_drawn_as_formations(real) -> None:
    _, log, data = real
    header = {f["id"] for f in log["formations"]}
    wings = {f for b in log["bounds"] for f in b["snapshot"]["formations"]} - header
    # not in the header's formations list: the General's wing order, a character-led split
    # (4.2) and injured bases falling out of a retreat (11.1)
    assert "rm_leg_xviii_w2" in wings
    split = {
        w
        for b in log["bounds"]
        for e in b["events"]
        if e["type"] == "wing_split"
        for w in e["wings"]
    }
    assert wings <= split
    forms = {f["id"]: f for f in data["forms"]}
    sides = [s["id"] for s in data["sides"]]
    ids = data["bases"]["id"]
    for wid in sorted(wings):
        assert sides[forms[wid]["s"]] == "romans"
        w = data["forms"].index(forms[wid])
        for b, src in zip(data["bounds"], log["bounds"]):
            snap = src["snapshot"]
            in_wing = {bid for bid, s in snap["bases"].items() if s["formation"] == wid}
            assert {ids[int(i)] for i, f in b.get("f", {}).items() if f == w} == in_wing
            if wid in snap["formations"]:
                assert in_wing and b["m"][w] != "-"
            else:
                assert b["m"][w] == "-"


def test_messengers_in_flight_drawn_with_route_and_progress(real) -> None:
    _, log, data = real
    cx, cy = data["proj"]["cx"], data["proj"]["cy"]
    flying = 0
    for b, src in zip(data["bounds"], log["bounds"]):
        snap_msgs = src["snapshot"].get("messengers", [])
        assert len(b["g"]) == len(snap_msgs)
        for m, s in zip(b["g"], snap_msgs):
            flying += 1
            route = np.array(s["route"])
            assert np.allclose(np.array(m["r"]).reshape(-1, 2) / 10 + (cx, cy), route, atol=0.06)
            at = np.array(m["p"]) / 10 + (cx, cy)
            # the messenger's place lies on its route, as far along as travelled / cost says
            seg = np.hypot(*np.diff(route, axis=0).T)
            d = [_point_segment(at, route[k], route[k + 1]) for k in range(len(route) - 1)]
            assert min(d) < 0.2
            assert f"{s['travelled_m']:.0f} of {s['cost_m']:.0f} m" in m["x"]
            assert seg.sum() > 0
    assert flying > 0


def _point_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = 0.0 if not ab.any() else float(np.clip(np.dot(p - a, ab) / np.dot(ab, ab), 0, 1))
    return float(np.hypot(*(a + t * ab - p)))


def test_every_event_of_a_real_log_reads_with_its_dice(real) -> None:
    _, log, data = real
    names = {f["id"]: f["name"] for f in data["forms"]}
    base_form = {b["id"]: b["formation"] for b in log["bases"]}
    kinds = {e["type"] for b in log["bounds"] for e in b["events"]}
    # (no order is refused in this run since a character-led formation may split, 4.2)
    assert {
        "wing_split",
        "order_received",
        "messenger_rerouted",
        "panic_test",
        "rout",
        "destroyed",
        "melee",
        "killed",
    } <= kinds
    for b, src in zip(data["bounds"], log["bounds"]):
        assert [e["t"] for e in b["e"]] == [e["type"] for e in src["events"]]
        for item, ev in zip(b["e"], src["events"]):
            text = item["x"]
            assert text and "{" not in text
            for key in ("formation", "target", "to"):  # named as the scenario names them
                if isinstance(ev.get(key), str):
                    assert names.get(ev[key], ev[key]) in text, (key, text)
                    assert ev[key] not in names or not re.search(
                        rf"(?<![\w.]){re.escape(ev[key])}(?![\w])", text
                    ), (key, text)  # never the internal id
            if isinstance(ev.get("base"), str):
                assert f"{names[base_form[ev['base']]]} base " in text, text
            if "dice" in ev:
                assert "dice [" + ", ".join(map(str, ev["dice"]["faces"])) + "]" in text
            if ev["type"] in ("shot", "melee"):
                assert "l" in item  # drawn as a line between the two formations
            if ev["type"] in ("panic_test", "rout", "wing_split", "order_refused"):
                assert "k" in item  # drawn as a marker with the text as popup
    texts = " ".join(e["x"] for b in data["bounds"] for e in b["e"])
    # 10.5 outcomes read as arrows, and a rout reads as a sentence (since main's engine changes
    # this battle's rout does not come from a panic test, so "-> rout" need not appear)
    assert re.search("panic test 10.5 .*\u2192 (none|retreat|rout)", texts)
    assert " routs: " in texts


def test_unknown_or_odd_events_still_read() -> None:
    assert _event_text({"type": "earthquake", "formation": "f", "magnitude": 7}) == (
        "earthquake; f; magnitude 7"
    )
    assert _event_text({"type": "rout"}) == "rout"  # known type missing its fields
    assert _event_text({}) == "event"
    odd = _event_text({"type": "shot", "formation": "a", "target": "b", "dice": "2d6[3,5] x"})
    assert "dice 2d6[3,5] x" in odd


def test_first_view_fits_the_armies(real) -> None:
    bf, log, data = real
    x0, y0, x1, y1 = (v / 10 for v in data["fit"])
    cx, cy = data["proj"]["cx"], data["proj"]["cy"]
    xs = [s["x"] for b in log["bounds"] for s in b["snapshot"]["bases"].values()]
    ys = [s["y"] for b in log["bounds"] for s in b["snapshot"]["bases"].values()]
    assert x0 + cx <= min(xs) and x1 + cx >= max(xs)
    assert y0 + cy <= min(ys) and y1 + cy >= max(ys)
    minx, miny, maxx, maxy = bf.bounds
    assert (x1 - x0) * (y1 - y0) < 0.5 * (maxx - minx) * (maxy - miny)


@pytest.mark.slow  # a CLI subprocess end to end: the full run keeps it, the quick lane not
@pytest.mark.parametrize("offline", [True, False])
def test_map_command_writes_battlefield_map(
    run_cli, bf_dir: Path, tmp_path: Path, offline: bool
) -> None:
    """Offline by default; ``--online`` adds tile layers but still inlines Leaflet (the page
    never needs a CDN to work)."""
    out = tmp_path / "map.html"
    args = ["map", bf_dir, "--out", out] + ([] if offline else ["--online"])
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
        assert not re.search(r"<script[^>]+src=", page)  # Leaflet inlined all the same
        assert "Leaflet 1.9.4" in page


def test_map_command_detects_a_run_dir(run_cli, teutoburg_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "playback.html"
    code, stdout, err = run_cli("map", teutoburg_run, "--out", out, "--offline")
    assert code == 0, err
    assert "playback" in stdout
    page = out.read_text()
    block = re.search(r'id="sb-playback-data">(.*?)</script>', page, re.S).group(1)
    data = json.loads(block)
    log = json.loads((teutoburg_run / "battle_log.json").read_text())
    assert len(data["bounds"]) == len(log["bounds"]) and data["fog"] is True
    # fog of war: each side sees some, not all, of the enemy at some bound on this wooded ground
    n_enemy = {s["id"]: sum(b["side"] != s["id"] for b in log["bases"]) for s in log["sides"]}
    assert any(0 < len(b["v"][sid]) < n for b in data["bounds"] for sid, n in n_enemy.items())


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
        # battlelog/2: a later bound's changes are checked as they stand in the file
        "bad_changed_base": {
            "format": "battlelog/2",
            "sides": [{"id": "a"}],
            "bases": [{"id": "b1", "side": "a"}],
            "bounds": [
                {"bound": 0, "snapshot": {"bases": {"b1": {"x": 1.0, "y": 2.0}}}},
                {"bound": 1, "changes": {"bases": {"b1": {"x": 1.0}}}},
            ],
        },
        "unknown_removed_base": {
            "format": "battlelog/2",
            "sides": [{"id": "a"}],
            "bases": [{"id": "b1", "side": "a"}],
            "bounds": [
                {"bound": 0, "snapshot": {"bases": {"b1": {"x": 1.0, "y": 2.0}}}},
                {"bound": 1, "changes": {"removed": {"bases": ["b9"]}}},
            ],
        },
        "changes_not_an_object": {
            "format": "battlelog/2",
            "sides": [{"id": "a"}],
            "bases": [{"id": "b1", "side": "a"}],
            "bounds": [
                {"bound": 0, "snapshot": {"bases": {"b1": {"x": 1.0, "y": 2.0}}}},
                {"bound": 1, "changes": []},
            ],
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


def _page(m) -> str:
    """A rendered page with folium's per-element random ids made uniform."""
    from maps.leaflet_offline import root_figure

    return re.sub(r"_[0-9a-f]{32}", "_id", root_figure(m).render())


@pytest.mark.parametrize("offline", [True, False])
def test_a_shared_base_map_draws_the_same_page(real, offline: bool) -> None:
    """The demo draws the base map (rasters, contours, roads) once for both of its
    pages; a page on the shared base is the page drawn afresh, online (the hillshade at 0.55
    under tiles) and offline."""
    from maps.battlefield_map import battlefield_map, draw_base_map
    from maps.playback import playback_map

    bf, log, _ = real
    base = draw_base_map(bf)
    fresh = _page(battlefield_map(bf, offline=offline, title="t"))
    assert _page(battlefield_map(bf, offline=offline, title="t", base=base)) == fresh
    assert "image/png;base64" in fresh and "Contours (height levels)" in fresh
    shared = _page(playback_map(bf, log, offline=offline, base=base))
    assert shared == _page(playback_map(bf, log, offline=offline))
