"""2mm Earth v0.9 rules played in whole battles on shipped ground (data/scenarios/*.yaml):
11.1 injured troops slowing a retreat in one-rank lines, 10.2 "all seen friendlies
retreating", 10.4 the joining character's L, 9.3 the rash order roll, 11.3 Pike & Shot wings
held to 4.2's two bases (docs/rules-interpretations.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.log import WingSplit
from engine.rulesets import get_ruleset
from engine.rulesets.two_mm_earth.charts import MoveClass
from engine.scenario import load_scenario
from engine.state import BaseStatus, Formation, Morale
from scenario_builder.battle import commanders


@pytest.fixture(scope="module")
def flodden(built_flodden: Any) -> tuple[Any, Any]:
    return built_flodden.battlefield, load_scenario("flodden_1513")


def _battle(bf: Any, sc: Any, seed: int) -> Battle:
    """The battle ``scenario-builder run`` fights: the ruleset's automatic commanders."""
    rs = get_ruleset(sc.ruleset)
    return Battle(bf, sc, Dice(seed), ruleset=rs, commanders=commanders(sc, bf, rs))


def _one_rank(f: Formation) -> bool:
    return len({b.rank for b in f.alive_bases}) == 1 and not f.loose


def _bounds(b: Battle) -> Iterator[tuple[str, dict[str, bool]]]:
    """Each phase of the whole battle, with which formations stood as one-rank lines as the
    phase began."""
    while not b.finished:
        lines = {f.id: _one_rank(f) for f in b.state.active()}
        for phase in b.phases():
            yield phase, lines
            lines = {f.id: _one_rank(f) for f in b.state.active()}


def test_11_1_one_rank_lines_leave_their_injured_behind_in_a_whole_battle(flodden) -> None:
    # Flodden, seed 1: the Scottish lines broken by the English bows retreat and rout with
    # injured and unhurt bases side by side. 11.1 "Those bases not injured ... do not suffer a
    # movement penalty (injured troops DO)": the line parts where injured and unhurt meet, the
    # injured groups at half speed, the unhurt at full, every base where it stood
    bf, sc = flodden
    b = _battle(bf, sc, 1)
    rs = b.ruleset
    parted: list[tuple[int, tuple[str, ...]]] = []
    for phase, lines in _bounds(b):
        if phase != "execute_moves":
            continue
        for e in b.ctx.events:
            if not isinstance(e, WingSplit) or e.phase != "execute_moves":
                continue
            if not lines.get(e.formation) or not any("_inj" in w for w in e.wings):
                continue
            parted.append((b.state.bound, e.wings))
            groups = [b.state.formations[w] for w in e.wings]
            for g in groups:
                assert g.morale in (Morale.RETREATING, Morale.ROUTING)
                states = {x.status for x in g.alive_bases}
                assert len(states) == 1, (g.id, states)  # each group all injured or all unhurt
                hurt = states == {BaseStatus.INJURED}
                assert ("_inj" in g.id) is hurt
                # halved for the injured (1.1 / 11.1), not for the unhurt
                speed = rs.formation_speed_m(g)(MoveClass.PLAIN)
                full = rs.unit_speed_m(g.alive_bases[0].profile, MoveClass.PLAIN)
                assert speed == pytest.approx(full / 2.0 if hurt else full), g.id
    assert parted, "no one-rank line parted under 11.1"
    assert any(len(w) >= 2 for _, w in parted)
