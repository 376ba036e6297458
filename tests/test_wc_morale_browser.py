"""A War & Conquest morale battle's playback in a real browser (Debian's headless Chromium,
Playwright): Flodden under ``2mm-earth-v0.9+wc-morale`` at mid-battle, every event in words with
its dice, W&C's own tests and Strategy Roll worded by their classes, the fighting drawn."""

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


def test_flodden_wc_morale_playback_reads_w_and_c_in_words_and_draws_the_fighting(
    run_cli: Any, tmp_path: Path
) -> None:
    """Seed 1, bound 12: Argyll's Highlanders beat Stanley's bowmen in melee; the bowmen's W&C
    morale test (lost combat) reads its dice, score and MV, the Strategy Roll each side's die;
    no event falls back to a list of fields; shooting and melee are lines, the test a marker."""
    from playwright.sync_api import sync_playwright

    run_dir = tmp_path / "flodden_wc"
    code, _, err = run_cli(
        "run",
        "flodden_1513",
        "--ruleset",
        "2mm-earth-v0.9+wc-morale",
        "--seed",
        "1",
        "--max-bounds",
        "14",
        "--out",
        run_dir,
    )
    assert code == 0, err
    out = tmp_path / "playback.html"
    assert run_cli("map", run_dir, "--out", out, "--offline")[0] == 0
    log = json.loads((run_dir / "battle_log.json").read_text())
    bound = next(k for k, b in enumerate(log["bounds"]) if b["bound"] == 12)
    types = [e["type"] for e in log["bounds"][bound]["events"]]
    assert "wc_test" in types and "wc_strategy" in types and "melee" in types, types
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
        # a sentence each: never "wc_test; ..." field lists, never an internal id
        assert not [t for t, k in zip(items, types, strict=True) if t.startswith(k + ";")], items
        assert not [t for t in items if "sc_" in t or "en_" in t], items
        tests = [t for t, k in zip(items, types, strict=True) if k == "wc_test"]
        assert tests and all(
            "W&C morale test" in t and "rolled " in t and "against MV " in t for t in tests
        ), tests
        (roll,) = [t for t, k in zip(items, types, strict=True) if k == "wc_strategy"]
        assert "Scots (James IV) " in roll and "English (Surrey) " in roll, roll
        assert "Strategic Advantage" in roll
        assert page.locator("path.sb-line-shot").count() >= 1
        assert page.locator("path.sb-line-melee").count() >= 1
        # the test is drawn where the bowmen stood, with the panic test's triangle
        assert page.locator(".sb-event-wc_test.sb-glyph-tri").count() == len(tests)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "flodden_wc_morale_bound12.png"))
        assert problems == []
        browser.close()
