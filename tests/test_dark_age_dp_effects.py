"""``dark-age``: what DPs do (from 2mm Earth v0.9, 11.1, the composition's combat game), the
rally that clears them, and 5.27 interpenetration in battle, on the Maldon 991 ground
(data/scenarios/maldon_991.yaml, OS Terrain 50)."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest
from click.testing import CliRunner

from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import forward, obb_array, separation
from engine.movement import MovePlan, MoveRules, execute_move
from engine.rulesets import get_ruleset
from engine.rulesets.compose import DARK_AGE_MOVEMENT, TWO_MM_EARTH_V09, Composition, Part
from engine.rulesets.dark_age.battle import interpenetrations, may_pass
from engine.rulesets.dark_age.movement import DisorderPoints
from engine.rulesets.dark_age.rulesets import DISORDERED_R, DarkAge
from engine.scenario import load_scenario
from engine.state import Morale
from scenario_builder.errors import RulesetError


@pytest.fixture(scope="module")
def maldon() -> tuple[Any, Any]:
    from scenario_builder.battle import build_battlefield

    sc = load_scenario("maldon_991")
    return sc, get_ruleset("dark-age").ground(build_battlefield(sc).battlefield)


def _fight(sc: Any, ground: Any, seed: int, rs: Any = None) -> Battle:
    from scenario_builder.battle import commanders

    rs = rs or get_ruleset("dark-age")
    return Battle(ground, sc, Dice(seed), ruleset=rs, commanders=commanders(sc, ground, rs))


@pytest.fixture(scope="module")
def rallied(maldon: tuple[Any, Any]) -> tuple[int, Battle]:
    """The first Maldon replay (seeds 1-8) in which a unit carrying DPs rallies."""
    sc, ground = maldon
    for seed in range(1, 9):
        battle = _fight(sc, ground, seed)
        while not battle.finished:
            battle.step()
        if any(e.type == "disorder_cleared" for r in battle.log.bounds for e in r.events):
            return seed, battle
    pytest.fail("no unit carrying DPs rallied in Maldon seeds 1-8")


def test_the_composition_names_where_dp_effects_come_from() -> None:
    """The seed lacks the DP chapter: the effects are a named complete game's rule, printed."""
    rows = get_ruleset("dark-age").describe()["composition"]
    dp = rows[-1]
    assert dp["part"] == "disorder point effects" and dp["module"] == "2mm-earth-v0.9"
    assert "11.1" in dp["book"] and dp["seed"] == "000_0c8039cfa3bb8dc6.txt"
    from scenario_builder.cli.rulesets import rulesets

    out = CliRunner(env={"COLUMNS": "400"}).invoke(rulesets, []).output
    assert "disorder point effects" in out
    with pytest.raises(RulesetError, match="named complete game"):
        Composition(
            "x",
            {p: TWO_MM_EARTH_V09 for p in Part},
            supplements={"dp": (DARK_AGE_MOVEMENT, "5.11")},
        )


def test_dp_effect_is_2mm_earth_11_1_minus_one_r(maldon: tuple[Any, Any]) -> None:
    """A steady unit carrying DPs loses 1 R (2mm Earth 11.1, the retreating penalty); none
    without DPs, and nothing added to a retreating or routing unit's own -1 / -2."""
    sc, ground = maldon
    battle = Battle(ground, sc, Dice(1))
    rs, ctx = battle.ruleset, battle.ctx
    fyrd = battle.state.formations["en_fyrd_right"]
    assert rs.resilience_modifier(ctx, fyrd) == 0
    ctx.dps["en_fyrd_right"] = DisorderPoints().incur(2)
    assert rs.resilience_modifier(ctx, fyrd) == DISORDERED_R == -1
    fyrd.morale = Morale.RETREATING
    assert rs.resilience_modifier(ctx, fyrd) == 0


def test_dps_change_the_maldon_melee_and_a_rally_clears_them(
    maldon: tuple[Any, Any], rallied: tuple[int, Battle]
) -> None:
    """Maldon (the first of seeds 1-8 with a rally): units take DPs moving (5.11, 5.17,
    5.27); struck while carrying them,
    they are at -1 R, so the same battle without the effect differs; a unit that rallies in
    W&C's End phase has no DPs in that bound's snapshot."""
    sc, ground = maldon
    seed, battle = rallied
    bounds = battle.log.bounds
    disorder = [e for r in bounds for e in r.events if e.type == "disorder"]
    assert disorder
    # a melee against a unit carrying DPs at the start of the bound
    hit_disordered = [
        (r.bound, e.target)
        for prev, r in itertools.pairwise(bounds)
        for e in r.events
        if e.type == "melee" and prev.snapshot["formations"].get(e.target, {}).get("dps", 0) > 0
    ]
    assert hit_disordered, "no melee against a unit carrying DPs"
    plain = type("DarkAgeNoDPEffect", (DarkAge,), {"resilience_modifier": lambda s, c, t: 0})()
    other = _fight(sc, ground, seed, plain)
    while not other.finished and other.state.bound < battle.state.bound:
        other.step()
    assert [r.to_dict() for r in other.log.bounds] != [r.to_dict() for r in bounds]
    cleared = [(r.bound, e) for r in bounds for e in r.events if e.type == "disorder_cleared"]
    for bound, e in cleared:
        snap = next(r.snapshot for r in bounds if r.bound == bound)
        assert snap["formations"][e.formation]["dps"] == 0 and e.dps > 0


def test_5_27_a_shieldwall_passes_through_its_bowmen(maldon: tuple[Any, Any]) -> None:
    """5.27: Byrhtnoth's hearth-troop advancing through the English bowmen in front of it
    (unformed, one stand deep, stationary: no DPs, the book's first example) ends clear of
    them; 2mm Earth's sweep (no ``passes``) stops it at their rear. Through a formed friend,
    each formed unit takes 1 DP."""
    sc, ground = maldon
    battle = Battle(ground, sc, Dice(1))
    state, ctx = battle.state, battle.ctx
    hearth, bowmen = state.formations["en_hearth"], state.formations["en_bowmen"]
    rules = MoveRules(lambda f: lambda c: 100.0, 25.0, 90.0)
    start = (hearth.cx, hearth.cy, hearth.facing)
    plan = MovePlan("en_hearth", "advance", bearing=hearth.facing)
    blocked = execute_move(battle.bf, state, hearth, plan, rules=rules)
    assert blocked.halted == "blocked" and blocked.contact_with == "en_bowmen"
    hearth.set_pose(*start)
    ctx.start_facing = {"en_hearth": hearth.facing}
    res = execute_move(
        battle.bf,
        state,
        hearth,
        MovePlan("en_hearth", "advance", bearing=hearth.facing),
        rules=dataclasses.replace(rules, passes=may_pass),
    )
    assert res.distance_m > blocked.distance_m
    gaps = separation(hearth.obb(), obb_array([b.obb() for b in bowmen.alive_bases]))
    assert gaps.min() >= -0.5  # it may pass through them, never stop on them
    from engine.log import Moved

    moved = Moved(
        "execute_moves",
        "en_hearth",
        res.start[:2],
        res.end[:2],
        res.end[2],
        res.distance_m,
        res.allowance_m,
        res.halted,
    )
    (e,) = interpenetrations(ctx, [moved], "execute_moves")
    assert (e.formation, e.through, e.dps, e.through_dps) == ("en_hearth", "en_bowmen", 0, 0)
    # a formed friend in the way: Godric's men put in front of the left-hand fyrd
    fyrd, godric = state.formations["en_fyrd_left"], state.formations["en_godric"]
    fx, fy = forward(fyrd.facing)
    gap = fyrd.obb().hd + godric.obb().hd + 5.0
    godric.set_pose(fyrd.cx + gap * fx, fyrd.cy + gap * fy, fyrd.facing)
    ctx.start_facing = {"en_fyrd_left": fyrd.facing}
    plan = MovePlan("en_fyrd_left", "advance", bearing=fyrd.facing)
    far = MoveRules(lambda f: lambda c: 125.0, 25.0, 90.0, passes=may_pass)
    res = execute_move(battle.bf, state, fyrd, plan, rules=far)
    moved = Moved(
        "execute_moves",
        "en_fyrd_left",
        res.start[:2],
        res.end[:2],
        res.end[2],
        res.distance_m,
        res.allowance_m,
        res.halted,
    )
    events = interpenetrations(ctx, [moved], "execute_moves")
    (ip,) = [e for e in events if e.type == "interpenetration"]
    assert (ip.through, ip.dps, ip.through_dps) == ("en_godric", 1, 1)
    assert ctx.dps["en_fyrd_left"].total == 1 and ctx.dps["en_godric"].total == 1
    # the same action is charged once (5.27 second)
    interpenetrations(ctx, [moved], "execute_moves")
    assert ctx.dps["en_fyrd_left"].total == 1


def test_maldon_shows_interpenetration_in_the_log(maldon: tuple[Any, Any]) -> None:
    """In the replays, units go through friends (the bowmen stand in front of both lines)."""
    sc, ground = maldon
    found = []
    for seed in (1, 2, 3):
        battle = _fight(sc, ground, seed)
        while not battle.finished:
            battle.step()
        found += [e for r in battle.log.bounds for e in r.events if e.type == "interpenetration"]
        if found:
            break
    assert found


def test_maldon_log_shows_march_halts_then_the_charge(maldon: tuple[Any, Any]) -> None:
    """5.8 in a Maldon replay (seed 1): units closing from the deployment (some 350 m apart)
    halt at bow range in their march phase ("all units must halt", charging or not); from
    there, in their tactical phase, their charges go in and they fight."""
    sc, ground = maldon
    battle = _fight(sc, ground, 1)
    while not battle.finished and battle.state.bound < 15:
        battle.step()
    events = [(r.bound, e) for r in battle.log.bounds for e in r.events]
    halts = [(b, e) for b, e in events if e.type == "range_halt"]
    assert halts and {(e.move_phase, e.range_m) for _b, e in halts} <= {
        ("march", 100.0),
        ("tactical", 25.0),
    }
    marched = {e.formation: b for b, e in halts if e.move_phase == "march"}
    fought = {
        e.formation for b, e in events if e.type == "melee" and b > marched.get(e.formation, 99)
    }
    assert marched.keys() & fought, (marched, fought)
