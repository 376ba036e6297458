"""medieval-d10, The Control Test (Impetuous Troops): reasons 3-5, the impetuous sights, on the
shipped Flodden ground with its own troops.

Only reasons 1, 2 and 6 (melee winners and retakes) were ever taken. Reason 4, "The unit is D
or E class troops (or any Irregular troops), seeing an enemy unit break into rout, within
charge reach", is played here with Argyll's Highlanders (D class, Irregular) and an English
unit breaking in front of them; a failed test sends them after it, "an Impetuous Charge /
Pursuit towards the enemy unit causing them to test", in phase 3 of the next turn.
docs/rules-interpretations.md, "Control tests: the impetuous sights".
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets.medieval_d10.compulsory import phase_compulsory
from engine.rulesets.medieval_d10.control import impetuous_cause, phase_control
from engine.rulesets.medieval_d10.morale import set_rout
from engine.rulesets.medieval_d10.state import Mode
from engine.scenario import load_scenario

NAME = "medieval-d10"


class _Loaded(Dice):
    """Seeded dice whose control-test d10 comes up ``face``; the rest left to chance."""

    def __init__(self, seed: int, face: int) -> None:
        super().__init__(seed)
        self.face = face

    def _faces(self, n: int, sides: int, purpose: str) -> tuple[int, ...]:
        if purpose.endswith("control control") or purpose.endswith(" control"):
            return (self.face,) * n
        return super()._faces(n, sides, purpose)


def _game(bf: Any, face: int) -> Any:
    b = Battle(bf, load_scenario("flodden_1513"), _Loaded(1, face), ruleset=NAME)
    next(iter(b.phases()))
    return b, b.ctx.game


def _a_rout_before_the_highlanders(game: Any) -> tuple[Any, Any]:
    hl, foe = game.units["sc_argyll"], game.units["en_stanley_bows"]
    # the English bowmen break 60 m in front of the Highlanders (charge reach: 16 cm + 6 cm
    # for D class Loose-order foot, 100 m at 25 mm)
    fx, fy = hl.forward()
    d = 60 + game.size(hl)[1] / 2 + game.size(foe)[1] / 2
    foe.x, foe.y = hl.x + fx * d, hl.y + fy * d
    assert 55 < game.gap(hl, foe) < game.allowance(hl, bonus=True)
    set_rout(game, foe, "a test")
    return hl, foe


@pytest.fixture(scope="module")
def flodden(built_flodden: Any) -> Any:
    return built_flodden.battlefield


def test_irregulars_seeing_an_enemy_rout_in_reach_test_and_charge_after_it(flodden: Any) -> None:
    _b, game = _game(flodden, 10)  # a 10: +5, the test fails
    hl, foe = _a_rout_before_the_highlanders(game)
    assert impetuous_cause(game, hl) == ("saw an enemy break into rout within charge reach", foe)
    phase_control(game)
    (test,) = [e for e in game.events if e["type"] == "control" and e["unit"] == "sc_argyll"]
    assert test["reason"].startswith("saw an enemy break into rout") and not test["passed"]
    assert hl.mode is Mode.PURSUING and hl.target == foe.id
    # phase 3 of the next turn: they go after it at charge speed
    game.begin_turn()
    phase_compulsory(game)
    (chase,) = [e for e in game.events if e["type"] == "pursue" and e["unit"] == "sc_argyll"]
    assert chase["target"] == foe.id and chase["metres"] > 0


def test_the_chart_total_decides_even_on_a_one(flodden: Any) -> None:
    # a 1 is the least factor; D class (+1), Irregular (+1), the routing enemy within 150 yds
    # (+1) and Argyll, a Rash commander with them (+1 for -2), still take them over 3
    _b, game = _game(flodden, 1)
    hl, _foe = _a_rout_before_the_highlanders(game)
    phase_control(game)
    (test,) = [e for e in game.events if e["type"] == "control" and e["unit"] == "sc_argyll"]
    # THE CONTROL TEST CHART: a 1 is a +1 factor; 3 or lower passes
    assert test["face"] == 1 and test["total"] == 1 + test["modifier"]
    assert test["passed"] is (test["total"] <= 3)
    assert (hl.mode is Mode.PURSUING) is (not test["passed"])
    assert test["modifier"] >= 3 and not test["passed"]


def test_no_test_without_a_cause(flodden: Any) -> None:
    _b, game = _game(flodden, 10)
    # as deployed nobody has shot, routed or come within charge reach of a cavalry unit
    assert all(impetuous_cause(game, u) is None for u in game.alive())
    phase_control(game)
    assert not [e for e in game.events if e["type"] == "control"]
