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
    from scenario_builder.battle import build_battlefield

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


def test_5_8_march_phase_halts_at_bow_range_tactical_at_javelin_range(
    maldon: tuple[Any, Any],
) -> None:
    """5.8: "During the march phase all units must halt at bow range of enemy to their front.
    In the tactical phase they must halt at javelin range. Units need to initiate a charge
    (see 7.1) in order to move in to contact with enemy." On the Maldon deployment (lines some
    350 m apart, bow range 100 m from the troop lists' bowmen) both fyrds closing on the
    Vikings, advancing or charging, march and halt at bow range; from there the advance is in
    its tactical phase and stops one javelin throw short, while a charge goes in."""
    from engine.geometry import distance, obb_array
    from engine.movement import MovePlan, MoveRules, execute_move
    from engine.rulesets.dark_age.battle import JAVELIN_RANGE_M, bow_range_m, range_halts

    sc, ground = maldon
    battle = Battle(ground, sc, Dice(1))
    ctx, state = battle.ctx, battle.state
    bow = bow_range_m(state)
    assert bow == 100.0  # the Viking and English bowmen's range_m (data/troops/*_991.yaml)
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
    assert [(e.formation, e.move_phase, e.range_m) for e in events] == [
        ("en_fyrd_left", "march", bow),
        ("en_fyrd_right", "march", bow),
    ]
    target = events[1].target
    assert target.startswith("vk_")
    assert ctx.plans["en_fyrd_right"].max_m == pytest.approx(before[target] - bow, 1e-6)
    assert ctx.plans["en_fyrd_left"].max_m is not None and ctx.plans["en_bowmen"].max_m is None
    far = MoveRules(lambda f: lambda c: 10_000.0, 25.0, 90.0)
    # even with an allowance far beyond the gap, the march ends at bow range
    res = execute_move(battle.bf, state, fyrd, ctx.plans["en_fyrd_right"], rules=far)
    after = gaps()
    assert res.distance_m > 0 and min(after.values()) >= bow - 0.5, (res, after)
    assert after[target] <= bow + 10.0, (res, after)
    # marching on while the nearest Viking to its front is beyond bow range: never inside it
    # ("to their front": the nearest whose centre is within 45 degrees of the way it goes)
    for _ in range(4):
        ctx.plans = {"en_fyrd_right": MovePlan("en_fyrd_right", "advance", bearing=45.0)}
        (again,) = range_halts(ctx)
        if again.move_phase == "tactical":
            break
        assert again.range_m == bow
        execute_move(battle.bf, state, fyrd, ctx.plans["en_fyrd_right"], rules=far)
        after = gaps()
        assert after[again.target] >= bow - 0.5, after  # an enemy off to the side may be nearer
    # at bow range: the tactical phase; an advance stops at javelin range, a charge goes in
    assert (again.move_phase, again.range_m) == ("tactical", JAVELIN_RANGE_M), again
    assert ctx.plans["en_fyrd_right"].max_m == pytest.approx(
        max(0.0, after[again.target] - JAVELIN_RANGE_M), abs=1e-6
    )
    res = execute_move(battle.bf, state, fyrd, ctx.plans["en_fyrd_right"], rules=far)
    closer = gaps()
    assert JAVELIN_RANGE_M - 0.5 <= closer[again.target] <= JAVELIN_RANGE_M + 10.0, closer
    ctx.plans = {
        "en_fyrd_right": MovePlan("en_fyrd_right", "charge", bearing=45.0, target=again.target),
    }
    assert range_halts(ctx) == [] and ctx.plans["en_fyrd_right"].max_m is None


def _fight(sc: Any, ground: Any, seed: int) -> Battle:
    from scenario_builder.battle import commanders

    rs = get_ruleset("dark-age")
    return Battle(ground, sc, Dice(seed), ruleset=rs, commanders=commanders(sc, ground, rs))


def test_wc_enemy_gets_plus_one_after_a_failed_test_in_a_continuing_combat(
    maldon: tuple[Any, Any],
) -> None:
    """W&C Morale Tests (engaged): a unit that fails while its combat goes on stays in it, and "the
    enemy gets +1 next round" (``ctx.melee_bonus_against``, set by the W&C module from
    ``engaged_failure``, whose +1 is pinned in tests/test_wc_morale.py). With the chapter's
    rules now played, no Maldon replay in seeds 1-10 has a unit fail in a drawn combat, so the
    +1 is shown on the first Maldon melee (seed 1): the same bound fought twice from the same
    state and dice, once with the bonus against the formation struck, needs one less to hit it
    (2mm Earth's attack modifier, 2.2-2.3)."""
    sc, ground = maldon
    plain, bonus = _fight(sc, ground, 1), _fight(sc, ground, 1)
    while True:
        snap = (plain.state.bound, len(plain.log.bounds))
        record = plain.step()
        melee = [e for e in record.events if e.type == "melee"]
        if melee or plain.finished:
            break
        bonus.step()
    assert melee, "no melee in Maldon seed 1"
    assert bonus.state.bound == snap[0]
    struck = melee[0].target
    bonus.ctx.melee_bonus_against[struck] = snap[0] + 1
    got = [e for e in _fight_bound(bonus) if e.type == "melee" and e.target == struck]
    want = [e for e in melee if e.target == struck]
    assert got and want
    assert got[0].dice == want[0].dice and got[0].need == max(1, want[0].need - 1)


def _fight_bound(b: Battle) -> list[Any]:
    return list(b.step().events)
