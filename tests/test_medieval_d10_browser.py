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
