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
    from scenario_builder.cli.run import build_battlefield

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
    from scenario_builder.cli.run import _commanders

    sc, ground = maldon
    rs = get_ruleset("dark-age")
    battle = Battle(ground, sc, Dice(4), ruleset=rs,
                    commanders=_commanders(sc, ground, None, None, rs))  # fmt: skip
    battle.step()
    assert battle.ctx.move_rules.pivot_wheels
    assert not get_ruleset("2mm-earth-v0.9")._move_rules().pivot_wheels
    while not battle.finished and battle.state.bound < 10:
        battle.step()
    wheels = [e for r in battle.log.bounds for e in r.events
              if e.type == "disorder" and "wheel" in e.reason]  # fmt: skip
    assert wheels and all(e.formation_type == "shieldwall" for e in wheels)
