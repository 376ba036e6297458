"""The offline pages in a real browser (Debian's headless Chromium through Playwright).

No console errors, no network requests beyond the file itself, and stepping the playback moves
the drawn bases. A screenshot is kept in ``test-artifacts/playback.png``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from maps.testing import write_run_dir

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
def run_dir(built_bayreuth, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_run_dir(
        built_bayreuth.battlefield, tmp_path_factory.mktemp("run"), bases_per_side=48, bounds=6
    )


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
    out = tmp_path / "playback.html"
    assert run_cli("map", run_dir, "--out", out, "--offline")[0] == 0
    page, problems, requests = _open(browser, out)
    bases = page.locator("path.sb-base")
    assert bases.count() == 96
    page.locator(".leaflet-control-zoom-in").click()  # closer, so moves are whole pixels
    page.wait_for_timeout(400)
    before = bases.evaluate_all("els => els.map(e => e.getAttribute('d'))")
    assert "bound 0" in page.locator("#sb-bound").inner_text()
    page.locator("#sb-next").click()
    after = bases.evaluate_all("els => els.map(e => e.getAttribute('d'))")
    assert "bound 1" in page.locator("#sb-bound").inner_text()
    assert sum(a != b for a, b in zip(before, after)) > len(before) // 2
    page.locator("#sb-slider").fill("5")
    page.locator("#sb-slider").dispatch_event("input")
    assert "bound 5" in page.locator("#sb-bound").inner_text()
    assert "losses:" in page.locator("#sb-losses").inner_text()
    everyone = page.locator("path.sb-base").count()
    page.locator("#sb-side").select_option("0")  # the northern army's view: fog of war
    own = page.locator("path.sb-side-0").count()
    enemy = page.locator("path.sb-side-1").count()
    assert own > 0 and enemy <= everyone - own
    page.locator("#sb-side").select_option("-1")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "playback.png"))
    assert problems == []
    assert [r for r in requests if not r.startswith(("data:", "file:"))] == []
    page.close()
