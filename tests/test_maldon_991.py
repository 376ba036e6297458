"""Maldon 991 (data/scenarios/maldon_991.yaml) on its OS Terrain 50 ground under ``dark-age``:
the overlay traced from the DTM gives the Dark Age terrain the poem describes (the low-water
channel impassable, 5.14; the mud difficult, 5.13; the causeway a minor obstacle, 5.20), both
armies deploy on dry ground with the channel behind the Vikings, and the shieldwalls are
shieldwalls in the chapter's terms (5.3)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from shapely.geometry import shape

from engine.battle import Battle
from engine.dice import Dice
from engine.movement import footprint_classes
from engine.rulesets import get_ruleset
from engine.rulesets.dark_age.terrain import DarkAgeTerrain
from engine.scenario import load_scenario
from scenario_builder.paths import data_dir


@pytest.fixture(scope="module")
def maldon() -> tuple[Any, Any]:
    from scenario_builder.cli.run import build_battlefield

    sc = load_scenario("maldon_991")
    return sc, get_ruleset("dark-age").ground(build_battlefield(sc).battlefield)


def _overlay(name: str) -> Any:
    path = data_dir() / "battlefields" / "maldon" / "overlay.geojson"
    feats = json.loads(path.read_text(encoding="utf-8"))["features"]
    return next(shape(f["geometry"]) for f in feats if name in f["properties"]["name"])


def _move_class(ground: Any, lonlat: tuple[float, float]) -> DarkAgeTerrain:
    x, y = ground.to_xy(*lonlat)
    codes, _ = ground.codes_on_map("move", np.array([x]), np.array([y]))
    return DarkAgeTerrain(int(codes[0]))


def test_the_ground_is_the_poems_under_the_dark_age_table(maldon: tuple[Any, Any]) -> None:
    _sc, ground = maldon
    causeway = _overlay("causeway")
    mid = causeway.interpolate(0.5, normalized=True)
    assert _move_class(ground, (mid.x, mid.y)) is DarkAgeTerrain.MINOR_OBSTACLE  # 5.20
    channel = _overlay("channel").representative_point()
    assert _move_class(ground, (channel.x, channel.y)) is DarkAgeTerrain.IMPASSABLE  # 5.14
    mud = _overlay("mud").representative_point()
    assert _move_class(ground, (mud.x, mud.y)) is DarkAgeTerrain.DIFFICULT  # 5.13


def test_both_armies_deploy_on_dry_ground_in_shieldwalls(maldon: tuple[Any, Any]) -> None:
    sc, ground = maldon
    battle = Battle(ground, sc, Dice(1))
    assert battle.ruleset.name == "dark-age"
    wet = {int(DarkAgeTerrain.IMPASSABLE), int(DarkAgeTerrain.DIFFICULT)}
    for f in battle.state.formations.values():
        classes, off = footprint_classes(battle.bf, f)
        assert not off and not wet & set(classes), (f.id, classes)
    record = battle.log.bounds[0].snapshot["formations"]
    # 5.3: the war-hedge of the poem (ll. 101-102) and the Viking lines are shieldwalls, the
    # bowmen unformed (5.2); no DPs before anyone moves
    for fid in ("en_hearth", "en_fyrd_left", "en_fyrd_right", "vk_hird", "vk_lith_1"):
        assert record[fid]["formation_type"] == "shieldwall", fid
    assert record["en_bowmen"]["formation_type"] == "unformed"
    assert {v["dps"] for v in record.values()} == {0}
    # the Vikings stand between the English and the channel they crossed
    causeway = _overlay("causeway").centroid
    cx, cy = battle.bf.to_xy(causeway.x, causeway.y)

    def dist(side: str) -> float:
        pts = [(f.cx, f.cy) for f in battle.state.formations.values() if f.side == side]
        return float(np.mean([np.hypot(x - cx, y - cy) for x, y in pts]))

    assert dist("vikings") < dist("english")


def test_5_8_an_advance_halts_at_javelin_range_a_charge_does_not(maldon: tuple[Any, Any]) -> None:
    """5.8: "In the tactical phase they must halt at javelin range. Units need to initiate a
    charge (see 7.1) in order to move in to contact with enemy." On the Maldon deployment the
    right-hand fyrd advancing on the Vikings stops one javelin throw short of them."""
    from engine.geometry import distance, obb_array
    from engine.movement import MovePlan, MoveRules, execute_move
    from engine.rulesets.dark_age.battle import JAVELIN_RANGE_M, range_halts

    sc, ground = maldon
    battle = Battle(ground, sc, Dice(1))
    ctx, state = battle.ctx, battle.state
    fyrd = state.formations["en_fyrd_right"]
    vikings = [f for f in state.formations.values() if f.side == "vikings"]

    def gaps() -> dict[str, float]:
        row = distance(fyrd.obb(), obb_array([g.obb() for g in vikings]))
        return {g.id: float(d) for g, d in zip(vikings, row, strict=True)}

    before = gaps()
    ctx.plans = {
        "en_fyrd_right": MovePlan("en_fyrd_right", "advance", bearing=45.0),
        "en_fyrd_left": MovePlan("en_fyrd_left", "charge", bearing=45.0, target="vk_lith_2"),
        "en_bowmen": MovePlan("en_bowmen", "advance", bearing=225.0),  # away: no enemy in front
    }
    events = range_halts(ctx)
    assert [(e.formation, e.type) for e in events] == [("en_fyrd_right", "range_halt")]
    target = events[0].target
    assert target.startswith("vk_")
    assert ctx.plans["en_fyrd_right"].max_m == pytest.approx(before[target] - JAVELIN_RANGE_M, 1e-6)
    assert ctx.plans["en_fyrd_left"].max_m is None and ctx.plans["en_bowmen"].max_m is None
    # even with an allowance far beyond the gap, the advance ends at javelin range
    res = execute_move(battle.bf, state, fyrd, ctx.plans["en_fyrd_right"],
                       rules=MoveRules(lambda f: lambda c: 10_000.0, 25.0, 90.0))  # fmt: skip
    after = gaps()
    assert res.distance_m > 0 and after[target] < before[target]
    # never inside javelin range of any Viking; the cap is measured along the move, so on this
    # slightly oblique approach it stops a few metres outside it
    assert min(after.values()) >= JAVELIN_RANGE_M - 0.5, (res, after)
    assert after[target] <= JAVELIN_RANGE_M + 10.0, (res, after)
    # a second advance is capped again: never beyond javelin range of the nearest in front
    ctx.plans = {"en_fyrd_right": MovePlan("en_fyrd_right", "advance", bearing=45.0)}
    (again,) = range_halts(ctx)
    assert ctx.plans["en_fyrd_right"].max_m == pytest.approx(
        max(0.0, after[again.target] - JAVELIN_RANGE_M), abs=1e-6
    )


def _fight(sc: Any, ground: Any, seed: int) -> Battle:
    from scenario_builder.cli.run import _commanders

    rs = get_ruleset("dark-age")
    return Battle(ground, sc, Dice(seed), ruleset=rs,
                  commanders=_commanders(sc, ground, None, None, rs))  # fmt: skip


def test_wc_enemy_gets_plus_one_after_a_failed_test_in_a_continuing_combat(
    maldon: tuple[Any, Any],
) -> None:
    """W&C Morale Tests (engaged): a unit that fails while its combat goes on stays in it, and
    "the enemy gets +1 next round". Maldon seed 99: Olaf's fall makes the second ship crew test
    at bound 14 at MV -1; it fails in a drawn combat and holds, so bound 15's melee is at +1
    against it.
    The +1 is 2mm Earth's attack modifier (the need to hit one less, 2.2-2.3)."""
    sc, ground = maldon
    battle = _fight(sc, ground, 99)
    while battle.state.bound < 14:
        battle.step()
    tests = [e for e in battle.log.bounds[-1].events if e.type == "wc_test"]
    assert ("vk_lith_2", "hold") in {(e.formation, e.outcome) for e in tests}
    assert battle.ctx.melee_bonus_against == {"vk_lith_2": 15}
    # the +1 itself: bound 15 fought twice from the same state and dice, once with the bonus
    # the test gave and once with it taken away
    plain = _fight(sc, ground, 99)
    while plain.state.bound < 14:
        plain.step()
    plain.ctx.melee_bonus_against.clear()
    got = [e for e in _fight_bound(battle) if e.type == "melee" and e.target == "vk_lith_2"]
    want = [e for e in _fight_bound(plain) if e.type == "melee" and e.target == "vk_lith_2"]
    assert got and want
    assert got[0].dice == want[0].dice and got[0].need == max(1, want[0].need - 1)


def _fight_bound(b: Battle) -> list[Any]:
    return list(b.step().events)
