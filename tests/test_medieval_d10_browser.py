"""A medieval-d10 battle's playback in a real browser (Debian's headless Chromium, Playwright):
Flodden fought under the medieval d10 game, drawn offline, stepped turn by turn without errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed"),
]
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def test_medieval_d10_playback_steps_turn_by_turn(run_cli: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    run_dir = tmp_path / "flodden_d10"
    code, _, err = run_cli(
        "run",
        "flodden_1513",
        "--ruleset",
        "medieval-d10",
        "--seed",
        "1",
        "--max-bounds",
        "8",
        "--out",
        run_dir,
    )
    assert code == 0, err
    log = json.loads((run_dir / "battle_log.json").read_text())
    assert log["ruleset"] == "medieval-d10"
    out = tmp_path / "playback.html"
    assert run_cli("map", run_dir, "--out", out, "--offline")[0] == 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 850})
        problems: list[str] = []
        requests: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(out.as_uri())
        page.wait_for_load_state("load")
        bases = page.locator("path.sb-base")
        # one drawn base per figure (and gun model) of the deployment
        assert bases.count() == len(log["bounds"][0]["snapshot"]["bases"])
        page.locator(".leaflet-control-zoom-in").click()
        page.wait_for_timeout(400)
        before = bases.evaluate_all("els => els.map(e => e.getAttribute('d'))")
        for k in range(len(log["bounds"])):
            page.evaluate(f"window.sbPlayback.draw({k})")
        after = bases.evaluate_all("els => els.map(e => e.getAttribute('d'))")
        assert sum(a != b for a, b in zip(before, after, strict=False)) > 0  # the Scots advanced
        assert problems == []
        assert [r for r in requests if not r.startswith(("data:", "file:"))] == []
        browser.close()


def test_medieval_d10_playback_legend_shows_its_terrain_classes(
    run_cli: Any, tmp_path: Path
) -> None:
    """The playback draws the ground as the battle's ruleset read it: the
    legend and the layer control name the TERRAIN CHART's classes and the DEM's slopes, not 2mm
    Earth's 7.3 classes; the slopes layer switches on from the layer control."""
    from playwright.sync_api import sync_playwright

    from engine.rulesets import get_ruleset
    from scenario_builder.battlefield import Battlefield

    run_dir = tmp_path / "flodden_d10"
    code, _, err = run_cli(
        "run",
        "flodden_1513",
        "--ruleset",
        "medieval-d10",
        "--seed",
        "2",
        "--max-bounds",
        "2",
        "--out",
        run_dir,
    )
    assert code == 0, err
    out = tmp_path / "playback.html"
    assert run_cli("map", run_dir, "--out", out, "--offline")[0] == 0
    view = get_ruleset("medieval-d10").ground(Battlefield.load(run_dir / "battlefield"))
    names = view.meta["legend"]["move"]
    present = sorted(names[int(c)].replace("_", " ") for c in set(view.layer("move").flat) if c)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 850})
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(out.as_uri())
        page.wait_for_load_state("load")
        legend = page.locator(".sb-legend")
        assert legend.is_visible()
        text = legend.inner_text()
        assert "medieval-d10" in text and "Terrain (TERRAIN CHART)" in text
        assert "Movement (7.3)" not in text and "impractical" not in text
        lines = [ln.strip() for ln in text.splitlines()]
        for label in present:  # marsh, built up, road track, impassable ... as on the ground
            assert label in lines, label
        assert "gentle slope (3-10°)" in lines and "steep slope (10° and over)" in lines
        # the swatches are painted in the palette's colours (what the overlays are drawn in)
        marsh = legend.locator("div", has_text="marsh").last.locator("span")
        assert marsh.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(30, 90, 90)"
        page.locator(".leaflet-control-layers").hover()
        control = page.locator(".leaflet-control-layers-overlays")
        assert "Terrain classes (TERRAIN CHART)" in control.inner_text()
        slopes = control.locator("label", has_text="Slopes (TERRAIN CHART)").locator("input")
        assert not slopes.is_checked()
        before = len(page.locator(".leaflet-image-layer").all())
        slopes.check()
        page.wait_for_timeout(300)
        assert len(page.locator(".leaflet-image-layer").all()) == before + 1
        page.mouse.move(10, 800)
        page.wait_for_timeout(300)
        page.screenshot(path=str(tmp_path / "medieval_playback.png"))
        assert problems == []
        browser.close()


def test_towton_playback_reads_its_events_in_words_and_draws_the_fighting(
    run_cli: Any, tmp_path: Path
) -> None:
    """Towton (medieval-d10, seed 1) at mid-battle, turn 12 of 20: the event list open reads
    each event in words with its dice (FIRING CHART "need 8, rolled 3"), never the old
    "medieval; kind ..."; the archers' shooting and the melees are drawn as lines; the
    formation popups name figures left and lost; zoomed out, no 9 m figure is a speck."""
    from playwright.sync_api import sync_playwright

    run_dir = tmp_path / "towton"
    code, _, err = run_cli(
        "run", "towton_1461", "--seed", "1", "--max-bounds", "14", "--out", run_dir
    )
    assert code == 0, err
    out = tmp_path / "playback.html"
    assert run_cli("map", run_dir, "--out", out, "--offline")[0] == 0
    log = json.loads((run_dir / "battle_log.json").read_text())
    bound = next(k for k, b in enumerate(log["bounds"]) if b["bound"] == 12)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 850})
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(out.as_uri())
        page.wait_for_load_state("load")
        page.evaluate(f"window.sbPlayback.draw({bound})")
        page.locator("details:has(#sb-events) > summary").click()
        items = page.locator("#sb-events li").all_inner_texts()
        assert len(items) == len(log["bounds"][bound]["events"]) > 0
        assert not [t for t in items if "medieval" in t or "kind " in t or "d10_" in t]
        shots = [t for t in items if " shoot at " in t]
        melees = [t for t in items if t.startswith("melee, ")]
        assert shots and melees, items
        # names, not ids; the dice and the score needed in the words
        assert all("need " in t and "rolled " in t for t in shots + melees), shots + melees
        assert not [t for t in items if "yk_" in t or "ln_" in t], items
        assert page.locator("path.sb-line-shot").count() >= 1
        assert page.locator("path.sb-line-melee").count() >= len(melees)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "towton_playback_turn12.png"))
        # and closer, on the first melee: figures as blocks, the fight's lines, the labels
        page.evaluate(
            """() => { const m = Object.values(window).find(v => v instanceof L.Map);
            let line = null;
            m.eachLayer(l => { const el = l.getElement && l.getElement();
              if (!line && el && el.classList.contains('sb-line-melee')) line = l; });
            m.setView(line.getBounds().getCenter(), m.getZoom() + 3, {animate: false}); }"""
        )
        page.wait_for_timeout(300)
        assert page.locator("path.sb-line-melee").count() >= len(melees)
        page.screenshot(path=str(ARTIFACTS / "towton_playback_turn12_melee.png"))
        # a formation's popup says its figures (the book's own record)
        page.evaluate(
            "() => { const el = document.querySelector('path.sb-base');"
            " el.dispatchEvent(new MouseEvent('click', {bubbles: true})); }"
        )
        assert " figures" in page.locator(".leaflet-popup-content").inner_text()
        # zoomed well out, every figure is still a few pixels across
        for _ in range(3):
            page.locator(".leaflet-control-zoom-out").click()
            page.wait_for_timeout(300)
        # (Leaflet empties the path of a base outside the view and clips one in the renderer's
        # padding round it at the padding's edge: only bases wholly in the window are measured)
        sizes = page.locator("path.sb-base").evaluate_all(
            "els => els.filter(e => /L/.test(e.getAttribute('d') || '')).map(e =>"
            " e.getBoundingClientRect()).filter(r => r.left >= 0 && r.top >= 0"
            " && r.right <= window.innerWidth && r.bottom <= window.innerHeight)"
            ".map(r => Math.min(r.width, r.height))"
        )
        assert sizes and min(sizes) >= 4.5, min(sizes)
        assert problems == []
        browser.close()
