"""Composed rulesets on real shipped ground: ``2mm-earth-v0.9+wc-morale`` (Flodden) and
``dark-age`` (Teutoburg / Kalkriese), each part from a named book, ``check_ruleset`` passing, and
the logs showing W&C's tests and the Dark Age chapter's rolled moves and DPs."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.rulesets.compose import Composition, Part
from engine.rulesets.dark_age.movement import JAVELIN_THROW_M
from engine.scenario import load_scenario
from engine.testing import attack_everything, check_ruleset
from scenario_builder.errors import RulesetError

ROOT = Path(__file__).resolve().parents[1]
WC = "2mm-earth-v0.9+wc-morale"
DA = "dark-age"


@pytest.fixture(scope="module")
def flodden(built_flodden) -> tuple[Any, Any]:
    return built_flodden.battlefield, attack_everything(load_scenario("flodden_1513"))


@pytest.fixture(scope="module")
def teutoburg(built_teutoburg) -> tuple[Any, Any]:
    sc = attack_everything(load_scenario("teutoburg_ad9"))
    return built_teutoburg.battlefield, sc


def _events(log_json: str) -> list[dict[str, Any]]:
    data = json.loads(log_json)
    return [e | {"bound": b["bound"]} for b in data["bounds"] for e in b["events"]]


def test_every_part_comes_from_a_named_book() -> None:
    wc, da = get_ruleset(WC).describe(), get_ruleset(DA).describe()
    assert [c["part"] for c in wc["composition"]] == [p.value for p in Part]
    by_part = {c["part"]: c for c in da["composition"]}
    assert by_part["movement and formations"]["seed"] == "003_e8e36df29227b52b.txt"
    assert by_part["morale and command"]["seed"] == "004_3e419fecf92d7f8f.txt"
    # the chapters the Dark Age seed lacks come from a complete game, named
    assert (
        by_part["combat"]["book"]
        == by_part["turn sequence"]["book"]
        == ("Battle for 2mm Earth v0.9")
    )
    assert da["scales"]["javelin_throw_m"] == 25.0 and da["scales"]["wc_inch_m"] == 25.4
    assert "difficult" in da["terrain_classes"]["move"]
    with pytest.raises(RulesetError, match="must come from a named complete game"):
        Composition(
            "half",
            {Part.MORALE_AND_COMMAND: get_ruleset(WC).composition.modules[Part.MORALE_AND_COMMAND]},
        )


def test_check_ruleset_wc_morale_on_flodden(flodden: tuple[Any, Any]) -> None:
    bf, sc = flodden
    report = check_ruleset(WC, sc, seed=4, battlefield=bf)
    assert report.result is not None and report.phases == report.bounds * 10
    assert report.events.get("wc_test", 0) > 0 and "panic_test" not in report.events


def test_wc_morale_tests_in_the_log_follow_the_book(flodden: tuple[Any, Any]) -> None:
    bf, sc = flodden
    events = _events(Battle(bf, sc, Dice(4), ruleset=WC).run(25).to_json())
    tests = [e for e in events if e["type"] == "wc_test"]
    assert tests and not [e for e in events if e["type"] == "panic_test"]  # no 10.5 tests
    for e in tests:
        faces = e["dice"]["faces"]
        kept = sorted(faces)[:2]
        assert len(faces) in (2, 3) and e["score"] == sum(kept)
        if e["phase"] == "resolution":
            assert e["test"] == "morale"
            hero = kept == [1, 1] and "lost combat" in e["triggers"] and e["mv"] < 2
            passed = e["score"] <= e["mv"] or hero
            assert (e["outcome"] == "pass") == passed, e
        else:
            assert e["phase"] == "end" and len(faces) == 2  # rallies and last chances: 2d6
            assert e["test"] in ("rally", "last chance")
            assert (e["outcome"] in ("rallied", "stand")) == (e["score"] <= e["mv"])
    # a unit that fled is routing until it rallies (then disordered: "retreat"), and the
    # disorder ends at the start of its next round
    routs = [e for e in events if e["type"] == "rout"]
    assert routs and all(e["phase"] == "resolution" for e in routs)


def test_check_ruleset_dark_age_on_teutoburg(teutoburg: tuple[Any, Any]) -> None:
    bf, sc = teutoburg
    # hooks=False: check_hooks' flipped order_needs_roll asks chart 9.3 for a die it never
    # rolled on this scenario (2mm-earth-v0.9 fails the same way here); the hooks of every
    # registered ruleset are checked on Flodden (test_engine_battle)
    report = check_ruleset(DA, sc, seed=2, battlefield=bf, max_bounds=15, hooks=False)
    assert report.bounds >= 1 and report.events.get("disorder", 0) > 0


def test_dark_age_moves_are_rolled_javelin_throws_and_dps_only_grow(
    teutoburg: tuple[Any, Any],
) -> None:
    bf, sc = teutoburg
    one = Battle(bf, sc, Dice(2), ruleset=DA).run(12).to_json()
    assert one == Battle(bf, sc, Dice(2), ruleset=DA).run(12).to_json()  # determinism
    events = _events(one)
    moved = [e for e in events if e["type"] == "moved"]
    assert moved
    # 5.21: a unit that turned about moves on what its roll has left over the turn
    turned = {(e["bound"], e["formation"]) for e in events if e["type"] == "manoeuvre"}
    # 5.12: a skirmishers' fall back before formed enemy is a move of its own, not rolled
    fell_back = {(e["bound"], e["formation"]) for e in events if e["type"] == "skirmish_fall_back"}
    for e in moved:
        if (e["bound"], e["formation"]) in fell_back and e["phase"] == "execute_moves":
            jt = e["allowance_m"] / JAVELIN_THROW_M
            if jt != pytest.approx(round(jt)):
                continue
        if (e["bound"], e["formation"]) in turned:
            assert e["allowance_m"] <= 3 * JAVELIN_THROW_M, e  # at most half of 5 or 6 jt
            continue
        jt = e["allowance_m"] / JAVELIN_THROW_M
        assert jt == pytest.approx(round(jt)) and 1 <= round(jt) <= 6, e  # 5.9-5.10
        assert e["distance_m"] <= e["allowance_m"] + 0.05
    totals: dict[str, list[int]] = defaultdict(list)
    for e in events:
        if e["type"] == "disorder":
            assert e["dps"] >= 1 and e["formation_type"] in ("shieldwall", "cuneus")
            totals[e["formation"]].append(e["total"])
    assert totals
    assert all(t == sorted(t) for t in totals.values())


def test_odds_cli_for_the_new_procedures() -> None:
    from click.testing import CliRunner

    from scenario_builder.cli.odds import odds

    def run(*args: str) -> dict[str, Any]:
        result = CliRunner().invoke(odds, list(args))
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    wc = run("--wc-morale", "7")
    assert wc["tests"]["2d6"]["pass"] == "7/12"  # 21 of 36
    assert wc["tests"]["3d6 keep two lowest"]["pass"] == "29/36"  # 174 of 216
    assert run("--wc-morale", "1")["tests"]["2d6"]["combat_with_hero_of_the_day"] == "1/36"
    assert run("--flee-pursuit")["destroyed"] == "721/1296"
    da = run("--dark-age-move", "heavy_infantry", "--grade", "B", "--formation", "shieldwall")
    assert da["dp_chance"] == "1/3" and da["allowance_jt"]["1"] == "1/3"  # d6 1-2 -> 1 jt
    bad = CliRunner().invoke(odds, ["--dark-age-move", "ogre"])
    assert bad.exit_code != 0 and "expected --dark-age-move one of" in str(bad.exception)


def test_rulesets_cli_prints_each_part_and_its_book() -> None:
    from click.testing import CliRunner

    from scenario_builder.cli.rulesets import rulesets

    result = CliRunner().invoke(rulesets, ["--json"])
    assert result.exit_code == 0, result.output
    by_name = {d["name"]: d for d in json.loads(result.output)}
    assert [c["module"] for c in by_name["dark-age"]["composition"]] == [
        "2mm-earth-v0.9",
        "dark-age-movement",
        "2mm-earth-v0.9",
        "wc-morale",
        "2mm-earth-v0.9",  # the DP effects (2mm Earth 11.1), a supplement
    ]
    assert "composition" not in by_name["2mm-earth-v0.9"]  # one complete game
    text = CliRunner().invoke(rulesets, [], terminal_width=240).output
    assert "dark-age is composed of" in text and "War & Conquest" in text


# -- the W&C phases on small scenarios (tests/data/troops rules lists, flat Minden ground) -----

RULES_ARMIES = (
    str(ROOT / "tests/data/troops/rules_red.yaml"),
    str(ROOT / "tests/data/troops/rules_blue.yaml"),
)


@pytest.fixture(scope="module")
def minden(built_minden) -> Any:
    return built_minden.battlefield


def _wc_battle(minden: Any, red: list[dict[str, Any]], blue: list[dict[str, Any]]) -> Battle:
    from engine.testing import flat_origin, make_scenario

    sc = make_scenario(red, blue, armies=RULES_ARMIES, origin=flat_origin(minden))
    return Battle(minden, sc, Dice(1), ruleset=WC)


def test_wc_rally_minus_one_per_enemy_within_10_inches_then_disorder_ends(minden: Any) -> None:
    from engine.dice import ScriptedDice
    from engine.rulesets.war_and_conquest import battle as wc
    from engine.state import Morale

    # red R4 foot: MV 7; a blue formation 200 m (7.9") away counts, one 400 m away does not
    b = _wc_battle(
        minden,
        [{"id": "r", "profile": "inf", "bases": 4, "at": (0, 0)}],
        [
            {"id": "near", "profile": "inf", "bases": 2, "at": (0, 200), "facing": 180},
            {"id": "far", "profile": "inf", "bases": 2, "at": (300, 400), "facing": 180},
        ],
    )
    ctx = b.ctx
    r = b.state.formations["r"]
    r.morale = Morale.ROUTING
    # this turn's Strategy Roll (none made yet), the rally's 3+3, then End Phase 4's Strategy
    # Roll for the next turn
    ctx.dice = ScriptedDice([1, 2, 3, 3, 4, 1])
    events = wc.end_phase(ctx, wc.TWO_MM_EARTH, "end")
    (test,) = [e for e in events if e.type == "wc_test"]
    assert (test.test, test.mv, test.score, test.outcome) == ("rally", 6, 6, "rallied")
    assert test.triggers == ('1 enemy within 10" (-1)',)
    assert [e.bound for e in events if e.type == "wc_strategy"] == [
        b.state.bound,
        b.state.bound + 1,
    ]
    assert r.morale is Morale.RETREATING  # rallied, disordered until its next round
    b.state.bound += 1
    wc.start_round(ctx, "orders")
    assert r.morale is Morale.STEADY


def test_wc_fleeing_friend_within_5_inches_makes_a_unit_test(minden: Any) -> None:
    from engine.dice import ScriptedDice
    from engine.rulesets.war_and_conquest import battle as wc
    from engine.state import Morale

    # two red formations side by side (leaders 100 m = 3.9" apart); one flees: the other tests
    b = _wc_battle(
        minden,
        [
            {"id": "a", "profile": "inf", "bases": 2, "at": (0, 0)},
            {"id": "b", "profile": "inf", "bases": 2, "at": (100, 0)},
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
    )
    ctx = b.ctx
    b.state.formations["a"].morale = Morale.ROUTING
    # Strategic Advantage roll-off blue 5 v red 2, then b's 3d6 [6, 6, 6] keeps 12 > MV 7
    ctx.dice = ScriptedDice([5, 2, 6, 6, 6])
    events = wc.resolution_phase(ctx, wc.TWO_MM_EARTH, "resolution")
    (test,) = [e for e in events if e.type == "wc_test"]
    assert test.formation == "b" and test.triggers == ("fleeing friend",)
    assert len(test.dice.faces) == 3 and test.outcome == "flee"
    assert b.state.formations["b"].morale is Morale.ROUTING
