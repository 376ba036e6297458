"""Maps a wargamer can read, in a real browser (Debian's headless Chromium, Playwright), on a
real battle (``teutoburg_run`` in conftest: Romans v Germans at Kalkriese, with its overlay's
place names, a wing split and messengers):

labels present and never overlapping at the opening zoom, formations named on the map and in
the event list, a key of the symbols, keyboard stepping, toggles, a collapsible panel, no focus
box after measuring, no play controls in a deployment preview, a first view that keeps every
base clear of the panel and legend (and Flodden's deployment preview, the demo's first view),
and pages that work with the network cut even when tiles were asked for.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed"),
]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

VISIBLE_LABEL_RECTS = """() => Array.from(document.querySelectorAll('.sb-label'))
  .filter(e => e.style.visibility !== 'hidden')
  .map(e => { const r = e.getBoundingClientRect();
    return {t: e.textContent, c: e.className, l: r.left, r: r.right, u: r.top, b: r.bottom}; })
  .filter(r => r.r > r.l && r.b > r.u && r.r > 0 && r.l < innerWidth
               && r.b > 0 && r.u < innerHeight)"""


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def pages(run_cli_module, teutoburg_run: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("readable")
    made = {
        "map": out / "map.html",
        "playback": out / "playback.html",
        "online": out / "online.html",
    }
    assert run_cli_module("map", teutoburg_run / "battlefield", "--out", made["map"])[0] == 0
    assert run_cli_module("map", teutoburg_run, "--out", made["playback"])[0] == 0
    assert run_cli_module("map", teutoburg_run, "--out", made["online"], "--online")[0] == 0
    return made


@pytest.fixture(scope="module")
def run_cli_module():
    """``scenario-builder ARGS`` in-process (module-scoped, so pages are written once)."""
    from scenario_builder.cli import main

    def run(*args: Any) -> tuple[int, str, str]:
        try:
            main([str(a) for a in args])
            return 0, "", ""
        except SystemExit as exc:
            return (exc.code if isinstance(exc.code, int) else 1), "", str(exc)

    return run


def _open(browser, path: Path, *, block_network: bool = False):
    page = browser.new_page(viewport={"width": 1200, "height": 850})
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    if block_network:
        page.route(re.compile(r"^https?://"), lambda route: route.abort())
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)
    return page, problems


def _overlaps(rects: list[dict]) -> list[tuple[str, str]]:
    out = []
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            if a["l"] < b["r"] and b["l"] < a["r"] and a["u"] < b["b"] and b["u"] < a["b"]:
                out.append((a["t"], b["t"]))
    return out


def test_battlefield_map_labels_names_and_fit(browser, pages: dict) -> None:
    """Contour labels and the overlay's place names at the opening zoom, none overlapping;
    the battlefield fills the window (fractional zoom), roads/walls drawn and in the legend."""
    page, problems = _open(browser, pages["map"])
    rects = page.evaluate(VISIBLE_LABEL_RECTS)
    contour = [r for r in rects if "sb-contour-label" in r["c"]]
    places = [r["t"] for r in rects if "sb-place-label" in r["c"]]
    assert len(contour) >= 10
    assert any(p.startswith("Großes Moor") for p in places), places
    assert _overlaps(rects) == []
    box = page.locator(".leaflet-image-layer").first.bounding_box()
    assert box["width"] > 0.8 * 1200 or box["height"] > 0.8 * 850, box  # fitted, not a stamp
    legend = page.locator(".sb-legend").inner_text()
    assert "wall" in legend and "track" in legend
    # zoom in twice: labels re-declutter, still none overlapping
    page.locator(".leaflet-control-zoom-in").click()
    page.locator(".leaflet-control-zoom-in").click()
    page.wait_for_timeout(600)
    assert _overlaps(page.evaluate(VISIBLE_LABEL_RECTS)) == []
    assert problems == []
    page.close()


def test_measuring_leaves_no_focus_box(browser, pages: dict) -> None:
    page, problems = _open(browser, pages["map"])
    page.locator(".sb-measure-btn").click()
    page.mouse.click(600, 400)
    page.mouse.click(700, 450)
    page.wait_for_timeout(200)
    outline = page.evaluate(
        "() => { const e = document.activeElement, s = getComputedStyle(e);"
        " return [e.className, s.outlineStyle, s.outlineWidth]; }"
    )
    assert outline[1] == "none" or outline[2] == "0px", outline
    assert page.locator(".sb-measure-out").inner_text().strip() != ""
    assert problems == []
    page.close()


def test_playback_names_formations_on_the_map_and_in_the_event_list(
    browser, pages: dict, teutoburg_run: Path
) -> None:
    log = json.loads((teutoburg_run / "battle_log.json").read_text())
    ids = [f["id"] for f in log["formations"]]
    names = {f["name"] for f in log["formations"]}
    page, problems = _open(browser, pages["playback"])
    rects = page.evaluate(VISIBLE_LABEL_RECTS)
    shown = [r["t"] for r in rects if "sb-form-label" in r["c"]]
    assert len(shown) >= 5, shown
    assert _overlaps(rects) == []
    for k in range(len(log["bounds"])):
        page.evaluate(f"window.sbPlayback.draw({k})")
        events = page.locator("#sb-events").evaluate("e => e.textContent")
        for fid in ids:  # no internal id left in the list a reader sees
            assert not re.search(rf"(?<![\w.]){re.escape(fid)}(?![\w])", events), (k, fid)
    page.evaluate("window.sbPlayback.draw(5)")
    events = page.locator("#sb-events").evaluate("e => e.textContent")
    assert any(n in events for n in names)
    key = page.locator("#sb-key").evaluate("e => e.textContent")
    for word in ("character", "panic test", "shooting", "melee", "messenger", "routing"):
        assert word in key
    assert problems == []
    page.close()


TROOPS_AND_BOXES = """() => {
  const rect = e => { const r = e.getBoundingClientRect();
    return {t: e.getAttribute('class') || e.className,
            l: r.left, r: r.right, u: r.top, b: r.bottom}; };
  const sel = '.sb-playback, .sb-legend, .leaflet-control-zoom, .leaflet-control-layers';
  return {
    boxes: Array.from(document.querySelectorAll(sel)).map(rect),
    troops: Array.from(document.querySelectorAll('path.sb-base')).map(rect)
      .filter(r => r.r > r.l && r.b > r.u),
    names: Array.from(document.querySelectorAll('.sb-form-label'))
      .filter(e => e.style.visibility !== 'hidden')
      .map(e => Object.assign(rect(e), {text: e.textContent}))
      .filter(r => r.r > r.l && r.b > r.u),
  };
}"""


@pytest.fixture(scope="module")
def flodden_deployment(run_cli_module, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Flodden's deployment preview: the demo battle's first view (its armies spread over the
    whole width of the ground, the Scots' left at the bottom left, under the panel once)."""
    out = tmp_path_factory.mktemp("flodden") / "deploy.html"
    code, _, err = run_cli_module("map", "flodden_1513", "--out", out)
    assert code == 0, err
    return out


@pytest.mark.parametrize("size", [(1200, 850), (1400, 900), (1000, 700)])
@pytest.mark.parametrize("which", ["playback", "flodden"])
def test_playback_first_view_keeps_troops_clear_of_the_panel_and_legend(
    browser, pages: dict, flodden_deployment: Path, which: str, size: tuple[int, int]
) -> None:
    """The first view fits every base in the part of the window that the play panel
    (bottom left), the legend (bottom right) and the map's buttons leave free: none is drawn
    under them, and all are in the window (maps/playback.js fitClear)."""
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto((flodden_deployment if which == "flodden" else pages["playback"]).as_uri())
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)
    got = page.evaluate(TROOPS_AND_BOXES)
    assert len(got["troops"]) >= 10 and len(got["boxes"]) >= 3, got
    for r in got["troops"]:
        assert r["l"] >= 0 and r["r"] <= size[0] and r["u"] >= 0 and r["b"] <= size[1], r
    under = _overlaps_between(got["troops"], got["boxes"])
    assert under == [], under
    # the formations' names too, where the labels' declutter shows them
    assert got["names"] and _overlaps_between(got["names"], got["boxes"]) == []
    # and the largest formation's name is among them (labels.js: more bases, higher priority)
    data = json.loads(page.locator("#sb-playback-data").evaluate("e => e.textContent"))
    counts: dict[int, int] = {}
    for k in data["bases"]["f"]:
        counts[k] = counts.get(k, 0) + 1
    big = data["forms"][max(counts, key=lambda k: (counts[k], -k))]
    shown = [r["text"] for r in got["names"]]
    starts = (big["name"], big["short"].rstrip("\u2026"))
    assert any(t.startswith(starts) for t in shown), (big["name"], shown)
    assert problems == []
    page.close()


SET_VIEW = """([lat, lon, z]) => {
  const k = Object.keys(window).find(k => k.startsWith('map_') && window[k] instanceof L.Map);
  window[k].setView([lat, lon], z, {animate: false}); }"""

CONTROLS = """() => Array.from(document.querySelectorAll('.leaflet-control'))
  .map(e => { const r = e.getBoundingClientRect();
    return {t: e.className, l: r.left, r: r.right, u: r.top, b: r.bottom}; })
  .filter(r => r.r > r.l && r.b > r.u)"""


@pytest.mark.parametrize("zoom", [13, 14, 15])
def test_crowded_line_of_battle_names_every_formation(
    browser, flodden_deployment: Path, zoom: int
) -> None:
    """Flodden's deployment round the English field guns (3 bases between the Admiral's
    vanguard and Surrey's rearguard): a name whose place below its bases is taken moves above
    or beside them (labels.js, data-near) instead of vanishing, so the guns are named at zoom
    13 to 15 and, at 13 and 14 where both armies are in view, all 17 formations; no label
    overlaps another or sits under the panel, the legend or a button."""
    from engine.scenario import load_scenario

    sc = load_scenario("flodden_1513")
    guns = next(f for side in sc.sides for f in side.formations if f.name == "English field guns")
    assert guns.position.lonlat is not None
    lon, lat = guns.position.lonlat
    page, problems = _open(browser, flodden_deployment)
    page.evaluate(SET_VIEW, [lat, lon, zoom])
    page.wait_for_timeout(600)
    rects = page.evaluate(VISIBLE_LABEL_RECTS)
    names = [r["t"] for r in rects if "sb-form-label" in r["c"]]
    assert "English field guns" in names, names
    if zoom <= 14:
        assert len(names) == 17, names
    assert _overlaps(rects) == []
    assert _overlaps_between(rects, page.evaluate(CONTROLS)) == []
    assert problems == []
    page.close()


@pytest.fixture(scope="module")
def flodden_playback(run_cli_module, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's battle played back: Flodden, seed 7."""
    out = tmp_path_factory.mktemp("flodden_run")
    code, _, err = run_cli_module("run", "flodden_1513", "--seed", "7", "--out", out / "run")
    assert code == 0, err
    code, _, err = run_cli_module("map", out / "run", "--out", out / "playback.html")
    assert code == 0, err
    return out / "playback.html"


@pytest.mark.parametrize("size", [(1200, 850), (1000, 700)])
@pytest.mark.parametrize("which", ["flodden", "playback"])
def test_open_event_list_leaves_the_bases_clear(
    browser, pages: dict, flodden_playback: Path, which: str, size: tuple[int, int]
) -> None:
    """The event list, opened, makes the panel taller than the first view kept free (Flodden
    seed 7, bound 6: Borthwick's guns under it): the map moves (playback.js keepClear) so that
    at every bound, stepped with the list open, no base is under the panel or the legend and
    every base that was in view still is."""
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto((flodden_playback if which == "flodden" else pages["playback"]).as_uri())
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)
    before = page.evaluate(TROOPS_AND_BOXES)
    page.locator(".sb-playback details summary").first.click()
    page.wait_for_timeout(200)
    count = page.evaluate("window.sbPlayback.count")
    grown = False
    for k in range(count):
        page.evaluate(f"window.sbPlayback.draw({k})")
        page.wait_for_timeout(50)
        got = page.evaluate(TROOPS_AND_BOXES)
        panel = next(b for b in got["boxes"] if "sb-playback" in b["t"])
        was = next(b for b in before["boxes"] if "sb-playback" in b["t"])
        grown = grown or panel["u"] < was["u"] - 50
        assert _overlaps_between(got["troops"], got["boxes"]) == [], k
        assert all(
            r["l"] >= 0 and r["r"] <= size[0] and r["u"] >= 0 and r["b"] <= size[1]
            for r in got["troops"]
        ), k
    assert grown  # the list did open over the map
    assert problems == []
    page.close()


def test_steep_ground_contours_thin_out_as_the_map_zooms_out(
    browser, flodden_deployment: Path
) -> None:
    """Flodden's south face: at zoom 14 the page hides the intermediate contour runs the
    ground is too steep for (maps.contour_thinning: each run's zoom, applied on every zoom) and
    their labels; at zoom 18 every run is drawn again."""
    page, problems = _open(browser, flodden_deployment)
    hidden = {}
    for zoom in (14, 18):
        page.evaluate(SET_VIEW, [55.612, -2.172, zoom])
        page.wait_for_timeout(400)
        hidden[zoom] = page.evaluate(
            "() => [document.querySelectorAll('path[stroke=\"none\"]').length,"
            " Array.from(document.querySelectorAll('.sb-contour-label'))"
            ".filter(e => e.style.display === 'none').length]"
        )
    assert hidden[14][0] > 100 and hidden[14][1] > 0, hidden
    assert hidden[18] == [0, 0], hidden
    assert problems == []
    page.close()


def _overlaps_between(rects: list[dict], boxes: list[dict]) -> list[tuple[str, str]]:
    return [
        (a["t"], b["t"])
        for a in rects
        for b in boxes
        if a["l"] < b["r"] and b["l"] < a["r"] and a["u"] < b["b"] and b["u"] < a["b"]
    ]


def test_playback_keyboard_toggles_and_collapsible_panel(browser, pages: dict) -> None:
    page, problems = _open(browser, pages["playback"])
    cur = "() => window.sbPlayback.current()"
    page.locator("#map, .folium-map").first.click(position={"x": 600, "y": 200})
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(cur) == 2
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(cur) == 1
    page.keyboard.press("Space")
    assert page.evaluate("() => window.sbPlayback.playing()") is True
    page.keyboard.press("Space")
    assert page.evaluate("() => window.sbPlayback.playing()") is False
    page.keyboard.press("End")
    last = page.evaluate(cur)
    assert last == page.evaluate("() => window.sbPlayback.count") - 1
    # find a bound with shooting, events and messengers, then switch each off
    counts = {}
    for k in range(last + 1):
        page.evaluate(f"window.sbPlayback.draw({k})")
        c = page.evaluate(
            "() => [document.querySelectorAll('path.sb-event-shot').length,"
            " document.querySelectorAll('div.sb-event').length,"
            " document.querySelectorAll('path.sb-messenger').length]"
        )
        counts[k] = c
    for i, (toggle, selector) in enumerate(
        [
            ("shooting", "path.sb-event-shot"),
            ("events", "div.sb-event"),
            ("messengers", "path.sb-messenger"),
        ]
    ):
        k = max(counts, key=lambda b: counts[b][i])
        assert counts[k][i] > 0, (toggle, counts)
        page.evaluate(f"window.sbPlayback.draw({k})")
        page.locator(f"#sb-show-{toggle}").uncheck()
        assert page.locator(selector).count() == 0, toggle
        page.locator(f"#sb-show-{toggle}").check()
        assert page.locator(selector).count() == counts[k][i], toggle
    page.locator("#sb-show-names").uncheck()
    assert page.locator(".sb-form-label").count() == 0
    page.locator("#sb-show-names").check()
    assert page.locator(".sb-form-label").count() > 0
    assert page.locator("#sb-side").is_visible()
    page.locator("#sb-collapse").click()
    assert not page.locator("#sb-side").is_visible()
    assert page.locator("#sb-bound").is_visible()  # the bound still shows
    page.locator("#sb-collapse").click()
    assert page.locator("#sb-side").is_visible()
    assert problems == []
    page.close()


def test_online_page_works_with_the_network_cut(browser, pages: dict) -> None:
    """``--online`` only adds tile layers: with every http(s) request refused, Leaflet (inlined)
    and the playback still run."""
    page, problems = _open(browser, pages["online"], block_network=True)
    problems = [p for p in problems if "ERR_FAILED" not in p and "net::" not in p]
    assert page.evaluate("() => typeof L !== 'undefined' && !!window.sbPlayback")
    assert page.locator("path.sb-base").count() > 0
    assert problems == []
    page.close()


def test_deployment_preview_has_no_dead_controls(browser, run_cli_module, tmp_path: Path) -> None:
    out = tmp_path / "deploy.html"
    code, _, err = run_cli_module("map", "flodden_1513", "--out", out)
    assert code == 0, err
    page, problems = _open(browser, out)
    for dead in ("#sb-play", "#sb-prev", "#sb-next", "#sb-slider"):
        assert page.locator(dead).count() == 0, dead
    assert "deployment" in page.locator("#sb-bound").inner_text()
    page.keyboard.press("ArrowRight")  # nothing to step to, and no error
    assert page.evaluate("() => window.sbPlayback.current()") == 0
    assert page.locator(".sb-form-label").count() > 0
    assert problems == []
    page.close()
