"""medieval-d10, Charges to Declare (GAME TURN SEQUENCE phase 4) over the TERRAIN CHART's
ground, played in the whole Flodden battle (OS Terrain 50 and its OpenStreetMap overlay) as
the ``run`` command fights it.

A charge goes straight at its target; ground the chart forbids on that way (a marsh: "only on
track, road or through a gap") stops it there. Before, the automatic commander declared such
a charge from the straight gap alone: at Flodden, seed 1, turn 20, Edmund Howard's archers
charged the Scots' Home contingent across a strip of marsh and moved 0 m, and did not shoot
that turn (the one charge of Flodden and Towton seeds 1-8 that neither moved nor met its
enemy).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.scenario import load_scenario


@pytest.fixture(scope="module")
def flodden_seed_1() -> list[list[dict[str, Any]]]:
    """Flodden under medieval-d10, seed 1: each bound's events."""
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("flodden_1513")
    rs = get_ruleset("medieval-d10")
    ground = rs.ground(build_battlefield(sc).battlefield)
    b = Battle(ground, sc, Dice(1), ruleset=rs, commanders=commanders(sc, ground, rs))
    log = b.run()
    return [[e if isinstance(e, dict) else e.to_dict() for e in bd.events] for bd in log.bounds]


def _by(events: list[dict[str, Any]], kind: str, unit: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind and e.get("unit") == unit]


def test_phase_4_no_charge_is_declared_across_ground_it_may_not_enter(
    flodden_seed_1: list[list[dict[str, Any]]],
) -> None:
    every = [e for bound in flodden_seed_1 for e in bound]
    # every charge either moved or was met where it stood (both sides charging)
    stuck = [e for e in every if e["type"] == "d10_charge" and e["metres"] == 0]
    assert [e for e in stuck if not e["contact"]] == []
    # Edmund Howard's archers: their way at the Home contingent crosses marsh, so they
    # declare no charge at it and shoot in their normal move instead
    assert _by(every, "d10_charge_declared", "en_edmund_bows") == []
    turn_20 = flodden_seed_1[20]
    assert _by(turn_20, "d10_fire", "en_edmund_bows")[0]["target"] == "sc_home"
