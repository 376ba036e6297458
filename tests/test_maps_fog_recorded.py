"""One fog of war (6.2): the engine records what each side sees at the end of every bound
(``seen`` in the snapshot) and the playback shows exactly that: a side's view holds its own
bases and the enemy formations it saw, counts the ones hidden, and shows no enemy loss it
could not see. Teutoburg (``teutoburg_run``: woods, a bog and a wall) is a battle where the
Romans must not see everyone."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from maps.battlelog import load_battle_log
from maps.playback import playback_data
from scenario_builder.battlefield import Battlefield

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def real(teutoburg_run: Path):
    log = load_battle_log(teutoburg_run / "battle_log.json")
    bf = Battlefield.load(teutoburg_run / "battlefield")
    return log, playback_data(bf, log, fog=False)  # fog=False: the record is used all the same


def test_engine_records_what_each_side_sees_every_bound(real) -> None:
    log, _ = real
    side_of = {f["id"]: f["side"] for f in log["formations"]}
    hidden_somewhere = False
    for bound in log["bounds"]:
        snap = bound["snapshot"]
        assert set(snap["seen"]) == {s["id"] for s in log["sides"]}
        for side, ids in snap["seen"].items():
            assert ids == sorted(ids)
            for f in ids:  # only enemies, only formations still on the table
                assert side_of.get(f, snap["formations"].get(f, {}).get("wing_of")) != side
                assert snap["formations"][f]["morale"] != "destroyed"
            enemies = {
                f
                for f, st in snap["formations"].items()
                if st["morale"] != "destroyed"
                and f not in ids
                and (side_of.get(f) or side_of.get(st.get("wing_of"))) not in (side, None)
            }
            hidden_somewhere |= bool(enemies)
    assert hidden_somewhere  # woods and the wall hide someone at some bound


def test_playback_shows_exactly_the_recorded_fog(real) -> None:
    log, data = real
    assert data["fogSource"] == "engine" and data["fog"] is True
    bases = log["bases"]
    side_index = {s["id"]: i for i, s in enumerate(log["sides"])}
    for bound, out in zip(log["bounds"], data["bounds"], strict=True):
        snap = bound["snapshot"]
        for side, seen in snap["seen"].items():
            want = sorted(
                i
                for i, b in enumerate(bases)
                if b["id"] in snap["bases"]
                and b["side"] != side
                and (snap["bases"][b["id"]].get("formation") or b["formation"]) in seen
            )
            assert out["v"][side] == want
            k = str(side_index[side]) if str(side_index[side]) in out["h"] else side_index[side]
            assert out["h"][k] >= 0
            for other, n in out["ls"][k].items():  # never more than were lost
                assert n <= snap["losses"][other]
    assert any(out["h"][k] > 0 for out in data["bounds"] for k in out["h"])


def test_a_side_never_counts_losses_it_did_not_see(teutoburg_run: Path) -> None:
    """The real log with the Romans blind from bound 3 on: German bases that fall after that are
    in the umpire's losses, never in the Roman view's."""
    import copy

    log = load_battle_log(teutoburg_run / "battle_log.json")
    bf = Battlefield.load(teutoburg_run / "battlefield")
    blind = copy.deepcopy(log)
    romans, germans = (s["id"] for s in log["sides"])
    before = log["bounds"][2]["snapshot"]["losses"][germans]
    for b in blind["bounds"][3:]:
        b["snapshot"]["seen"][romans] = []
    data = playback_data(bf, blind, fog=False)
    german_forms = {f["id"] for f in data["forms"] if f["s"] == 1}
    for b, out in zip(blind["bounds"][3:], data["bounds"][3:], strict=True):
        assert out["ls"][0][germans] <= before  # nothing new counted while blind
        on_table = {
            f
            for f, st in b["snapshot"]["formations"].items()
            if f in german_forms and st["morale"] != "destroyed"
        }
        assert out["h"][0] == len(on_table)  # every German formation counted as hidden
    assert blind["bounds"][-1]["snapshot"]["losses"][germans] > before


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium not installed")
def test_side_view_is_unmistakable_in_a_browser(
    run_cli, teutoburg_run: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    log = load_battle_log(teutoburg_run / "battle_log.json")
    out = tmp_path / "playback.html"
    assert run_cli("map", teutoburg_run, "--out", out)[0] == 0
    data = json.loads(
        out.read_text().split('id="sb-playback-data">', 1)[1].split("</script>", 1)[0]
    )
    k = max(range(len(data["bounds"])), key=lambda b: data["bounds"][b]["h"].get("0", 0))
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1200, "height": 850})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(out.as_uri())
        page.wait_for_load_state("load")
        page.evaluate(f"window.sbPlayback.draw({k})")
        umpire = page.locator("path.sb-side-1").count()
        assert "sb-fog" not in page.locator(".folium-map").first.get_attribute("class")
        page.locator("#sb-side").select_option("0")
        fogline = page.locator("#sb-fogline").inner_text()
        shown = page.locator("path.sb-side-1").count()
        cls = page.locator(".folium-map").first.get_attribute("class")
        losses = page.locator("#sb-losses").inner_text()
        browser.close()
    hidden = data["bounds"][k]["h"]["0"]
    assert hidden > 0
    st, prev = data["bounds"][k]["s"], data["bounds"][k - 1]["s"] if k else ""
    drawn = [  # the page draws living bases, and the dead only in the bound they fall
        i
        for i in data["bounds"][k]["v"][log["sides"][0]["id"]]
        if st[i] not in "d-" or (st[i] == "d" and prev and prev[i] not in "d-")
    ]
    assert shown == len(drawn) < umpire
    assert f"{hidden} enemy formation" in fogline and "what the battle saw" in fogline
    assert "sb-fog" in cls  # the ground shaded
    assert "seen" in losses
    assert errors == []
