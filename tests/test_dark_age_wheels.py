"""Dark Age 5.17 in battle (``003_e8e36df29227b52b.txt``): "The unit then pivots on one end of
the line and the distance moved by the outside base is measured" - the engine's turns under
``dark-age`` pivot on the front corner of the end turned toward (``MoveRules.pivot_wheels``),
2mm Earth's turn about the centre; on the Maldon 991 deployment (data/scenarios/maldon_991.yaml)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import corners
from engine.movement import MovePlan, MoveRules, execute_move
from engine.rulesets import get_ruleset
from engine.scenario import load_scenario


@pytest.fixture(scope="module")
def maldon() -> tuple[Any, Any]:
    from scenario_builder.battle import build_battlefield

    sc = load_scenario("maldon_991")
    return sc, get_ruleset("dark-age").ground(build_battlefield(sc).battlefield)


@pytest.mark.parametrize("turn", [40.0, -40.0])
def test_5_17_a_wheel_pivots_on_the_end_it_turns_toward(
    maldon: tuple[Any, Any], turn: float
) -> None:
    """The right-hand fyrd wheels 40 degrees in place: clockwise its right front corner stays
    put, anticlockwise its left; the outside front corner moves the arc's chord, its front
    width x 2 sin(20 deg); 2mm Earth's turn keeps the centre instead."""
    sc, ground = maldon
    battle = Battle(ground, sc, Dice(1))
    state = battle.state
    fyrd = state.formations["en_fyrd_right"]
    # Maldon's English stand in one Battle Line (5.5), the hearth-troop in base contact on the
    # fyrd's left: it is stood 300 m back so that the fyrd wheels on open ground
    hearth = state.formations["en_hearth"]
    hearth.set_pose(hearth.cx - 300.0, hearth.cy - 300.0, hearth.facing)
    state.version += 1
    before = corners(fyrd.obb())  # front-left, front-right, rear-right, rear-left
    centre = (fyrd.cx, fyrd.cy)
    start = (fyrd.cx, fyrd.cy, fyrd.facing)
    plan = MovePlan(fyrd.id, "advance", goal=centre, facing=(fyrd.facing + turn) % 360.0)
    wheel = MoveRules(lambda f: lambda c: 200.0, 25.0, 90.0, pivot_wheels=True)
    res = execute_move(battle.bf, state, fyrd, plan, rules=wheel)
    assert abs((fyrd.facing - start[2] - turn + 180.0) % 360.0 - 180.0) < 1e-6
    after = corners(fyrd.obb())
    pivot, outside = (1, 0) if turn > 0 else (0, 1)
    assert np.allclose(after[pivot], before[pivot], atol=1e-6)
    width = 2.0 * fyrd.obb().hw
    chord = width * 2.0 * math.sin(math.radians(abs(turn) / 2.0))
    assert math.dist(after[outside], before[outside]) == pytest.approx(chord, abs=1e-6)
    # the move is charged as its furthest-going point, the outside rear corner (the engine's
    # "any point of the base", 6.1): a few per cent over the front corner's chord
    rear_out = 3 if turn > 0 else 2
    rear = math.dist(after[rear_out], before[rear_out])
    assert res.distance_m == pytest.approx(rear) and chord < rear < 1.05 * chord
    fyrd.set_pose(*start)
    plain = MoveRules(lambda f: lambda c: 200.0, 25.0, 90.0)
    execute_move(battle.bf, state, fyrd, plan, rules=plain)
    assert (fyrd.cx, fyrd.cy) == pytest.approx(centre)


def test_dark_age_battles_wheel_on_one_end(maldon: tuple[Any, Any]) -> None:
    """``dark-age``'s bound rules pivot (the ruleset hook), and a Maldon replay's log has
    shieldwalls wheeling (5.17's DP) while their pivot corners stay on their turn's side."""
    from scenario_builder.battle import commanders

    sc, ground = maldon
    rs = get_ruleset("dark-age")
    battle = Battle(ground, sc, Dice(4), ruleset=rs, commanders=commanders(sc, ground, rs))
    battle.step()
    assert battle.ctx.move_rules.pivot_wheels
    assert not get_ruleset("2mm-earth-v0.9")._move_rules().pivot_wheels
    while not battle.finished and battle.state.bound < 10:
        battle.step()
    wheels = [
        e
        for r in battle.log.bounds
        for e in r.events
        if e.type == "disorder" and "wheel" in e.reason
    ]
    assert wheels and all(e.formation_type == "shieldwall" for e in wheels)


def test_5_21_about_face_in_a_maldon_battle(maldon: tuple[Any, Any]) -> None:
    """5.21 About Face, as the automatic commander's move uses it: at Maldon (seed 1, bound 1)
    the right-hand fyrd (B Grade infantry in shieldwall) is sent back the way it faces from;
    it turns about where it stands (every stand keeps its place, the old rear rank is the new
    front), at no DP, then moves on half its rolled allowance (5.28: halved, rounded up); the
    log has the manoeuvre."""
    from engine.movement import MovePlan
    from engine.rulesets.dark_age.battle import chapter_view
    from engine.rulesets.dark_age.movement import JAVELIN_THROW_M, MoveKind, allowance, half_move
    from scenario_builder.battle import commanders

    sc, ground = maldon
    rs = get_ruleset("dark-age")
    battle = Battle(ground, sc, Dice(1), ruleset=rs, commanders=commanders(sc, ground, rs))
    fyrd = battle.state.formations["en_fyrd_right"]
    facing = fyrd.facing
    rear = {b.id for b in fyrd.alive_bases if b.rank == fyrd.ranks - 1}
    bound = battle.phases()
    for phase in bound:
        if phase == "shooting_damage":  # the plans as the moves will find them
            back = (facing + 180.0) % 360.0
            battle.ctx.plans["en_fyrd_right"] = MovePlan("en_fyrd_right", "advance", back)
            places = {b.id: (b.x, b.y) for b in fyrd.alive_bases}
        if phase == "execute_moves":
            break
    (e,) = [e for e in battle.ctx.events if e.type == "manoeuvre"]
    assert (e.formation, e.manoeuvre, e.section, e.dps) == (
        "en_fyrd_right",
        "about face",
        "5.21",
        0,
    )
    assert abs((fyrd.facing - facing) % 360.0 - 180.0) < 1e-6
    assert {b.id for b in fyrd.front_rank()} == rear
    _t, _f, roll = battle.ctx.move_rolls["en_fyrd_right"]
    troop, _grade, form = chapter_view(fyrd)
    full = allowance(troop, roll.face, MoveKind.NORMAL, form)
    assert roll.allowance == half_move(full)  # 5.21 takes ½ move (5.28: rounded up)
    moved = next(m for m in battle.ctx.events if m.type == "moved" and m.formation == fyrd.id)
    # the move after it: the half move, or what the roll has over the stands' turn (each
    # stand's corners go its diagonal), whichever is less
    turn = max(math.hypot(b.w, b.d) for b in fyrd.alive_bases)
    left = min(roll.allowance.least, full.least - turn / JAVELIN_THROW_M) * JAVELIN_THROW_M
    assert moved.allowance_m == pytest.approx(left)
    assert moved.distance_m > 0 and places  # it went on, backwards from where it stood
    for _ in bound:  # the rest of the same bound, then it is recorded
        pass
    logged = [x for x in battle.log.bounds[-1].events if x.type == "manoeuvre"]
    assert logged and logged[0].manoeuvre == "about face"
