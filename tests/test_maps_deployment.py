"""``scenario-builder map SCENARIO``: a deployment preview (bound 0) for scenario authors."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from engine.scenario import load_scenario
from scenario_builder.paths import data_dir

CHROMIUM = "/usr/bin/chromium"


def _playback_data(html: str) -> dict:
    m = re.search(r'<script[^>]*id="sb-playback-data"[^>]*>(.*?)</script>', html, re.S)
    assert m, "no embedded playback data"
    return json.loads(m.group(1))


def test_preview_of_a_shipped_scenario_shows_every_base_at_bound_0(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "deploy.html"
    code, stdout, err = run_cli("map", "teutoburg_ad9", "--out", out, "--offline")
    assert code == 0, err
    assert "deployment preview" in stdout
    data = _playback_data(out.read_text())
    assert len(data["bounds"]) == 1, "a preview is the deployment only: no bound is fought"
    # the panel says so, not "no winner (no decision after 0 bounds)"
    assert data["resultText"] == "deployment (bound 0): not fought"
    assert data["result"]["winner"] is None
    sc = load_scenario("teutoburg_ad9")
    n_bases = sum(f.bases for s in sc.sides for f in s.formations)
    assert len(data["bases"]["id"]) == n_bases


@pytest.mark.slow  # the CLI end to end; the quick lane keeps the shipped-scenario preview
def test_preview_of_a_scenario_file(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "deploy.html"
    path = data_dir() / "scenarios" / "flodden_1513.yaml"
    code, _, err = run_cli("map", path, "--out", out, "--offline", "--no-fog")
    assert code == 0, err
    assert out.stat().st_size > 100_000


def test_preview_of_a_broken_scenario_is_one_line_and_writes_nothing(
    run_cli, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    text = (data_dir() / "scenarios" / "flodden_1513.yaml").read_text()
    bad.write_text(text.replace("bases: 8", "bases: -3", 1))
    out = tmp_path / "deploy.html"
    code, _, err = run_cli("map", bad, "--out", out)
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1
    assert "bad.yaml" in err and "line" in err
    assert not out.exists()
    code, _, err = run_cli("map", "no_such_battle", "--out", out)
    assert code == 1 and "no_such_battle" in err and not out.exists()


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed")
def test_preview_panel_says_deployment_in_a_browser(run_cli, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    out = tmp_path / "deploy.html"
    code, _, err = run_cli("map", "flodden_1513", "--out", out, "--offline")
    assert code == 0, err
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1200, "height": 850})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(out.as_uri())
        page.wait_for_load_state("load")
        text = page.locator("#sb-result").inner_text()
        browser.close()
    assert text == "deployment (bound 0): not fought"
    assert not errors


@pytest.mark.slow  # Chacabuco's 576 levels make an 11 MB page: the full run keeps it
def test_preview_names_and_marks_the_formations_that_arrive_later(run_cli, tmp_path: Path) -> None:
    """Chacabuco's plan file holds Soler's division and its grenadiers off the table until
    bound 30 (a plan's ``arrives``): the preview draws none of their bases at bound 0 (they are
    not there), says in the panel when and where they come on, and marks their entry points."""
    import math

    import pyproj

    from scenario_builder.battle import build_battlefield

    out = tmp_path / "deploy.html"
    code, _, err = run_cli("map", "chacabuco_1817", "--out", out, "--offline", "--no-fog")
    assert code == 0, err
    html = out.read_text()
    data = _playback_data(html)
    sc = load_scenario("chacabuco_1817")
    plan = sc.plan_of("patriots")
    assert plan is not None
    due = {fp.formation: fp.arrives for fp in plan.formations if fp.arrives is not None}
    assert set(due) == {"pt_soler", "pt_soler_horse"}
    got = {a["id"]: a for a in data["arrivals"]}
    assert set(got) == set(due)
    bf = build_battlefield(sc).battlefield
    to_xy = pyproj.Transformer.from_crs("EPSG:4326", bf.crs, always_xy=True)
    names = {f.id: f.name for s in sc.sides for f in s.formations}
    for fid, arr in due.items():
        a = got[fid]
        assert (a["bound"], a["edge"], a["side"]) == (arr.bound, arr.edge, "patriots")
        # marked at the plan's entry point (its lon/lat, back in the battlefield's metres)
        want = plan.place(arr.point, bf.to_xy)
        assert math.dist(to_xy.transform(*a["lonlat"]), want) < 1.0
        assert f"{names[fid]} (bound 30, at its point)" in data["resultText"]
        assert f"{names[fid]}: arrives bound 30, at its point" in html  # the marker's label
    assert data["resultText"].startswith("deployment (bound 0): not fought; arriving later: ")
    # and none of their bases stands on the table at bound 0
    ids = data["bases"]["id"]
    [bound0] = data["bounds"]
    on_table = {ids[i] for i, st in enumerate(bound0["s"]) if st != "-"}  # "-": not in the snapshot
    soler = {b for b in ids if b.startswith(("pt_soler.", "pt_soler_horse."))}
    assert soler and not soler & on_table


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed")
def test_preview_arrival_markers_show_in_a_browser(run_cli, tmp_path: Path) -> None:
    """The arrival markers are drawn in a real browser without breaking the page (a marker
    group listed in the layer control before it is declared stops the page's script)."""
    from playwright.sync_api import sync_playwright

    out = tmp_path / "deploy.html"
    code, _, err = run_cli("map", "chacabuco_1817", "--out", out, "--offline", "--no-fog")
    assert code == 0, err
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1200, "height": 850})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(out.as_uri())
        page.wait_for_load_state("load")
        result = page.locator("#sb-result").inner_text(timeout=20_000)
        labels = page.locator(".leaflet-tooltip").all_inner_texts()
        in_view = page.evaluate(
            "() => [...document.querySelectorAll('.leaflet-tooltip')].filter(t => {"
            " const r = t.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth"
            " && r.top >= 0 && r.bottom <= innerHeight; }).length"
        )
        browser.close()
    assert not errors, errors
    assert "arriving later: Soler's division" in result
    assert sorted(t for t in labels if "arrives bound 30" in t) == [
        "Grenadier squadrons with Soler: arrives bound 30, at its point",
        "Soler's division: 1st Cazadores, battalion 11: arrives bound 30, at its point",
    ]
    assert in_view >= 2  # the first view takes in the entry points
