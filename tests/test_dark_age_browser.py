"""A ``dark-age`` battle's playback in a real browser (Debian's headless Chromium, Playwright):
Maldon 991 on its OS Terrain 50 ground, stepped bound by bound; every formation's label shows
the Dark Age chapter's formation type (5.1-5.4) and its disorder points (5.11-5.28) as the
BattleLog's snapshot records them (``Ruleset.formation_record``)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from maps.battlelog import load_battle_log

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
BOUNDS = 6


def test_dark_age_playback_shows_formation_types_and_dps(run_cli: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    run_dir = tmp_path / "maldon"
    code, _, err = run_cli(
        "run", "maldon_991", "--seed", "1", "--max-bounds", str(BOUNDS), "--out", run_dir
    )
    assert code == 0, err
    log = load_battle_log(run_dir / "battle_log.json")  # every bound's whole snapshot
    assert log["ruleset"] == "dark-age"
    last = log["bounds"][-1]["snapshot"]["formations"]
    # the English stand in shieldwall (5.3), the bowmen are unformed (5.2); Vikings that
    # advanced have taken DPs (5.11) by the last bound
    assert last["en_hearth"]["formation_type"] == "shieldwall"
    assert log["bounds"][0]["snapshot"]["formations"]["en_bowmen"]["formation_type"] == "unformed"
    assert any(v["dps"] > 0 for k, v in last.items() if k.startswith("vk_"))
    names = {f["id"]: f["name"] for f in log["formations"]}
    out = tmp_path / "playback.html"
    assert run_cli("map", run_dir, "--out", out, "--offline")[0] == 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 850})
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(out.as_uri())
        page.wait_for_load_state("load")
        for _ in range(3):  # zoom in so the labels carry the full names
            page.locator(".leaflet-control-zoom-in").click()
            page.wait_for_timeout(300)
        for k in range(len(log["bounds"])):
            page.evaluate(f"window.sbPlayback.draw({k})")
        page.wait_for_timeout(300)
        labels = page.locator(".sb-form-label").all_inner_texts()
        page.screenshot(path=str(tmp_path / "maldon_playback.png"))
        shown = {}
        for text in labels:
            if not text.strip():
                continue  # hidden where labels overlap (maps/labels.js declutter)
            m = re.match(r"(.*) \u00b7 ([a-z ]+), (\d+) DP$", text.strip())
            assert m, f"label without formation type and DPs: {text!r}"
            shown[m.group(1)] = (m.group(2), int(m.group(3)))
        # every living formation's label says what the log's last snapshot says
        alive = {f: v for f, v in last.items() if v["morale"] != "destroyed"}
        short = {names[f] for f in alive}
        assert shown, labels
        for f, v in alive.items():
            hit = [s for s in shown if names[f].startswith(s.rstrip("\u2026 ")) or s == names[f]]
            if hit:
                assert shown[hit[0]] == (v["formation_type"], v["dps"]), (f, shown[hit[0]], v)
        assert len(shown) >= len(short) // 2
        # a base's popup carries the same record
        bases = page.locator("path.sb-base")
        inside = [
            i
            for i in range(bases.count())
            if (bb := bases.nth(i).bounding_box())
            and 0 < bb["x"] < 1100
            and 0 < bb["y"] < 800
            and bb["width"] > 3
        ]
        assert inside, "no base on screen"
        bases.nth(inside[0]).click(force=True)
        popup = page.locator(".leaflet-popup-content").inner_text()
        assert re.search(r"\((shieldwall|unformed|column|cuneus)[^)]*\d+ DP\)", popup), popup
        assert problems == []
        browser.close()
