"""Reading a shipped battle on its ground, as the shipped-data tests (tests/test_data_*.py) do:
the ruleset's classes at a place or under a formation, the battle ``scenario-builder run``
fights, and the orders its log shows."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.battle import Battle
from engine.dice import Dice
from engine.log import BattleLog
from engine.movement import footprint_classes
from engine.rulesets import get_ruleset
from engine.scenario import Scenario
from scenario_builder.battle import commanders


def classes_at(bf: Any, lon: float, lat: float) -> tuple[str, str]:
    """The 7.3 movement and 7.2 cover classes of the 2mm Earth ground at (lon, lat)."""
    rs = get_ruleset("2mm-earth-v0.9")
    g = rs.ground(bf)
    names = rs.terrain_classes()
    x, y = g.to_xy(lon, lat)
    out = []
    for layer in ("move", "cover"):
        codes, inside = g.codes_on_map(layer, np.array([x]), np.array([y]))
        assert inside[0], (lon, lat)
        out.append(names[layer][int(codes[0])])
    return out[0], out[1]


def classes_under(battle: Battle) -> dict[str, set[str]]:
    """Each deployed formation's movement classes under its bases other than plain (none: all
    plain), every formation asserted on the battlefield."""
    move = battle.ruleset.terrain_classes()["move"]
    out = {}
    for f in battle.state.formations.values():
        classes, off = footprint_classes(battle.bf, f)
        assert not off, f"{f.id}: off the battlefield"
        out[f.id] = {move[int(c)] for c in classes}
    return out


def fought_as_run(sc: Scenario, bf: Any, seed: int) -> Battle:
    """The battle ``scenario-builder run`` fights: the ruleset's automatic commanders."""
    rs = get_ruleset(sc.ruleset)
    return Battle(bf, sc, Dice(seed), ruleset=rs, commanders=commanders(sc, bf, rs))


def orders_issued(log: BattleLog) -> list[tuple[int, str]]:
    """(bound, order) of every order the log shows issued."""
    return [(b.bound, e.order) for b in log.bounds for e in b.events if e.type == "order_issued"]
