"""The offline pages in a real browser (Debian's headless Chromium through Playwright).

No console errors, no network requests beyond the file itself, and stepping the playback of a real
battle (``teutoburg_run`` in conftest) moves the drawn bases and draws its messengers and events.
Screenshots are kept in ``test-artifacts/playback*.png``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

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


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def _open(browser, page_path: Path):
    page = browser.new_page(viewport={"width": 1200, "height": 850})
    problems: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("requestfailed", lambda r: problems.append(f"failed {r.url[:120]}"))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_path.as_uri())
    page.wait_for_load_state("load")
    return page, problems, requests


@pytest.fixture(scope="module")
def run_dir(teutoburg_run: Path) -> Path:
    return teutoburg_run


def test_offline_battlefield_map_loads_cleanly(
    browser, run_cli, run_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "map.html"
    assert run_cli("map", run_dir / "battlefield", "--out", out, "--offline")[0] == 0
    page, problems, requests = _open(browser, out)
    assert page.locator(".leaflet-image-layer").count() >= 3
    assert page.locator(".sb-legend").is_visible()
    assert page.locator(".leaflet-control-scale").count() == 1
    assert page.locator(".sb-measure").count() == 1
    assert problems == []
    assert [r for r in requests if not r.startswith(("data:", "file:"))] == []
    page.close()


def test_offline_playback_steps_bound_by_bound(
    browser, run_cli, run_dir: Path, tmp_path: Path
) -> None:
    log = json.loads((run_dir / "battle_log.json").read_text())
    last = len(log["bounds"]) - 1
    out = tmp_path / "playback.html"
    assert run_cli("map", run_dir, "--out", out, "--offline")[0] == 0
    page, problems, requests = _open(browser, out)
    bases = page.locator("path.sb-base")
    assert bases.count() == len(log["bounds"][0]["snapshot"]["bases"])
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "playback.png"))
    page.locator(".leaflet-control-zoom-in").click()  # closer, so moves are whole pixels
    page.wait_for_timeout(400)
    before = bases.evaluate_all("els => els.map(e => e.getAttribute('d'))")
    assert "bound 0" in page.locator("#sb-bound").inner_text()
    for _ in range(3):
        page.locator("#sb-next").click()
    after = bases.evaluate_all("els => els.map(e => e.getAttribute('d'))")
    assert "bound 3" in page.locator("#sb-bound").inner_text()
    assert sum(a != b for a, b in zip(before, after)) > len(before) // 4
    # every bound draws without error; messengers in flight and event markers show somewhere
    seen = {"messengers": 0, "markers": 0, "lines": 0}
    for k in range(last + 1):
        page.evaluate(f"window.sbPlayback.draw({k})")
        seen["messengers"] += page.locator("path.sb-messenger").count()
        lines = page.locator("path.sb-event-melee, path.sb-event-shot").count()
        seen["lines"] += lines
        seen["markers"] += page.locator("div.sb-event").count()  # event glyphs
        if k == 5:
            page.screenshot(path=str(ARTIFACTS / "playback_bound5.png"))
    assert all(seen.values()), seen
    page.locator("#sb-slider").fill(str(last))
    page.locator("#sb-slider").dispatch_event("input")
    assert f"bound {last}" in page.locator("#sb-bound").inner_text()
    assert "losses:" in page.locator("#sb-losses").inner_text()
    assert "result:" in page.locator("#sb-result").inner_text()
    page.locator("#sb-slider").fill("6")
    page.locator("#sb-slider").dispatch_event("input")
    everyone = page.locator("path.sb-base").count()
    page.locator("#sb-side").select_option("0")  # the Roman view: fog of war
    own = page.locator("path.sb-side-0").count()
    enemy = page.locator("path.sb-side-1").count()
    assert own > 0 and enemy < everyone - own
    page.locator("#sb-side").select_option("-1")
    assert page.locator("path.sb-base").count() == everyone
    page.screenshot(path=str(ARTIFACTS / "playback_bound6.png"))
    assert problems == []
    assert [r for r in requests if not r.startswith(("data:", "file:"))] == []
    page.close()


# Counts Leaflet's animated zooms from the first script on (Leaflet's bundle assigns window.L).
COUNT_ZOOM_ANIMATIONS = """
(() => { let real; window.__zoomAnims = 0;
  Object.defineProperty(window, 'L', { configurable: true, get() { return real; }, set(v) {
    real = v;
    if (v && v.Map && !v.Map.prototype.__counted) {
      const orig = v.Map.prototype._animateZoom;
      v.Map.prototype._animateZoom = function () {
        window.__zoomAnims++; return orig.apply(this, arguments); };
      v.Map.prototype.__counted = true; } } }); })();
"""


def test_playback_first_view_is_set_without_a_zoom_animation(
    browser, run_cli, run_dir: Path, tmp_path: Path
) -> None:
    """Regression: folium's animated fit to the whole battlefield was interrupted by the
    playback's own fit to the armies, and headless Chromium then left most contour lines
    unpainted. The first view must be one synchronous view change."""
    out = tmp_path / "playback.html"
    assert run_cli("map", run_dir, "--out", out, "--offline")[0] == 0
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.add_init_script(COUNT_ZOOM_ANIMATIONS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(out.as_uri())
    page.wait_for_timeout(800)
    assert page.evaluate("() => L.Map.prototype.__counted === true"), "counter not installed"
    assert page.evaluate("() => window.__zoomAnims") == 0
    assert errors == []
    page.close()
