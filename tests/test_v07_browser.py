"""A *Battle for 2mm Earth* v0.7 battle's playback in a real browser (Debian's headless Chromium,
Playwright): Teutoburg under ``2mm-earth-v0.7``, every event a sentence, its morale tests named
as v0.7 names them (5.2's rout test, not v0.9's 10.5 panic test), the melee drawn."""

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
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def test_teutoburg_v07_playback_names_its_own_rout_test(run_cli: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    run_dir = tmp_path / "teutoburg_v07"
    code, _, err = run_cli(
        *["run", "teutoburg_ad9", "--ruleset", "2mm-earth-v0.7", "--seed", "1"],
        *["--max-bounds", "12", "--out", str(run_dir)],
    )
    assert code == 0, err
    out = tmp_path / "playback.html"
    assert run_cli("map", run_dir, "--out", out, "--offline")[0] == 0
    log = json.loads((run_dir / "battle_log.json").read_text())
    # the first bound with a rout test and a melee
    bound = next(
        k
        for k, b in enumerate(log["bounds"])
        if {"panic_test", "melee"} <= {e["type"] for e in b["events"]}
    )
    types = [e["type"] for e in log["bounds"][bound]["events"]]
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
        assert len(items) == len(types)
        assert not [t for t, k in zip(items, types, strict=True) if t.startswith(k + ";")], items
        tests = [t for t, k in zip(items, types, strict=True) if k == "panic_test"]
        assert tests and all("rout test 5.2" in t and "dice [" in t for t in tests), tests
        assert not [t for t in items if "10.5" in t], items
        assert page.locator("path.sb-line-melee").count() >= 1
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "teutoburg_v07_playback.png"))
        assert problems == []
        browser.close()
