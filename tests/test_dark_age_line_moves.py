"""A Battle Line moving as one body on Maldon's shipped ground (data/scenarios/maldon_991), the
English wihaga (Godric's men, the two fyrds and the hearth-troop) ordered forward:

- 5.5 "Unformed units which are within 1 javelin throw of formed units from the same command
  are considered to be part of that formation and may move together with it": the English
  bowmen, unformed, 20 m before the line, move on the line's roll and its way;
- 5.17 "A Battle Line of units in shieldwall wheel as one long single body": the line turns
  as one rigid body on the front corner of its right end, as far as the roll carries its
  furthest point, and every unit pays the shieldwall's DP.

Readings: docs/rules-interpretations.md, "Dark Age: a Battle Line moving as one body"."""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine.battle import Battle
from engine.command.enemies import gap
from engine.dice import Dice
from engine.geometry import corners
from engine.rulesets import get_ruleset
from engine.rulesets.dark_age.line_moves import FOLLOW_GAP_M
from engine.rulesets.dark_age.movement import JAVELIN_THROW_M
from engine.scenario import load_scenario

DA = "dark-age"
LINE = ("en_godric", "en_fyrd_left", "en_hearth", "en_fyrd_right")


def _battle(seed: int, order: str) -> Battle:
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991")
    rs = get_ruleset(DA)
    ground = rs.ground(build_battlefield(sc).battlefield)
    sc = sc.model_copy(deep=True)
    for f in sc.sides[0].formations:
        if f.id in (*LINE, "en_bowmen"):
            f.order = order
    return Battle(ground, sc, Dice(seed), ruleset=rs, commanders=commanders(sc, ground, rs))


def _events(b: Battle, bound: int, kind: str) -> list[Any]:
    (rec,) = [r for r in b.log.bounds if r.bound == bound]
    return [e for e in rec.events if e.type == kind]


def test_5_5_the_bowmen_before_the_line_move_with_it() -> None:
    """Seed 1, bound 1 (all told to advance): the bowmen stand within a javelin throw of the
    hearth-troop and both fyrds, so they move on the wihaga's one roll (5.9) - no die of their
    own - and go its way, as far as it goes."""
    b = _battle(1, "advance")
    st = b.state
    near = [u for u in LINE if gap(st.formations["en_bowmen"], st.formations[u]) <= FOLLOW_GAP_M]
    assert near == ["en_fyrd_left", "en_hearth", "en_fyrd_right"]
    b.step()
    (roll,) = _events(b, 1, "command_move_roll")
    assert tuple(roll.units) == (*LINE, "en_bowmen")
    assert not [d for d in b.dice.history if d.purpose.endswith("move en_bowmen")]
    moved = {e.formation: e for e in _events(b, 1, "moved") if e.formation.startswith("en_")}
    lead = moved["en_hearth"]
    bow = moved["en_bowmen"]
    assert bow.distance_m == pytest.approx(lead.distance_m) == roll.allowance * JAVELIN_THROW_M
    way = math.atan2(bow.to[0] - bow.from_xy[0], bow.to[1] - bow.from_xy[1])
    assert math.degrees(way) % 360.0 == pytest.approx(lead.facing, abs=1e-6)


@pytest.fixture(scope="module")
def wheeled() -> tuple[Battle, dict[str, Any], dict[str, Any]]:
    """Seed 2, all told to attack: the line's poses as bound 2 begins and as it ends."""
    b = _battle(2, "attack")
    b.step()
    start = {u: b.state.formations[u].obb() for u in LINE}
    b.step()
    return b, start, {u: b.state.formations[u].obb() for u in LINE}


def test_5_17_the_shieldwall_line_wheels_as_one_body(wheeled: Any) -> None:
    """Bound 2: its way to the Viking bowmen lies beyond 5.15's deviation, so the four units
    turn by one angle about the front-right corner of the right-hand fyrd: that corner stays
    put and every distance between the units' corners is kept (a rigid body)."""
    b, start, end = wheeled
    made = [e for e in _events(b, 2, "manoeuvre") if e.formation in LINE]
    assert sorted(e.formation for e in made) == sorted(LINE)
    assert all(e.section == "5.17" and "en_fyrd_right's right end" in e.manoeuvre for e in made)
    turns = {round((end[u].facing - start[u].facing + 180.0) % 360.0 - 180.0, 6) for u in LINE}
    assert len(turns) == 1 and next(iter(turns)) > 0.5
    pivot0 = corners(start["en_fyrd_right"])[1]
    pivot1 = corners(end["en_fyrd_right"])[1]
    assert math.dist(pivot0, pivot1) < 1e-6
    for a in LINE:
        for c in LINE:
            ca0, cc0 = corners(start[a]), corners(start[c])
            ca1, cc1 = corners(end[a]), corners(end[c])
            assert math.dist(ca0[0], cc0[3]) == pytest.approx(math.dist(ca1[0], cc1[3]), abs=1e-6)


def test_5_17_the_wheel_goes_no_further_than_the_roll_and_costs_each_a_dp(wheeled: Any) -> None:
    """The furthest point of the line (Godric's rear-left corner, at the outside end) goes no
    further than the line's one roll; each unit, in shieldwall, takes 5.17's DP; the line is
    still one (5.5)."""
    b, start, end = wheeled
    (roll,) = _events(b, 2, "command_move_roll")
    far = max(math.dist(corners(start[u])[k], corners(end[u])[k]) for u in LINE for k in range(4))
    assert far <= roll.allowance * JAVELIN_THROW_M + 1e-6
    dps = {e.formation for e in _events(b, 2, "disorder") if "wheel in shieldwall" in e.reason}
    assert dps == set(LINE)
    assert not _events(b, 2, "command_formation_broken")
