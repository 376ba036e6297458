"""medieval-d10 plays on the core's state: one state model, no copy written back.

Flodden 1513 (the shipped scenario and ground) under medieval-d10, stopped between bounds: each
game unit's place, facing, figures and morale are its core ``Formation``'s, so what the game
does to a unit mid-phase (a move over the ground, figures lost to a volley, a rout, a rally) is
on the formation at once, and what the core does to the formation is the unit's at once.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets.medieval_d10.charts import Phase
from engine.rulesets.medieval_d10.fire import take_losses
from engine.rulesets.medieval_d10.moves import move_toward
from engine.rulesets.medieval_d10.ruleset import MedievalContext
from engine.rulesets.medieval_d10.state import Mode, UnitState
from engine.scenario import load_scenario
from engine.state import BaseStatus, Morale


@pytest.fixture(scope="module")
def flodden(built_flodden: Any) -> Any:
    return built_flodden.battlefield


def _two_bounds(flodden: Any) -> Battle:
    battle = Battle(flodden, load_scenario("flodden_1513"), Dice(2), ruleset="medieval-d10")
    battle.step()
    battle.step()
    return battle


def test_the_unit_keeps_no_place_facing_or_figures_of_its_own() -> None:
    # the fields of a unit are this book's own; where it stands and its figures are read
    # through properties onto the formation, never stored beside it
    names = {f.name for f in dataclasses.fields(UnitState)}
    assert {"x", "y", "facing", "figures_lost", "morale"}.isdisjoint(names)
    assert "formation" in names
    for view in ("x", "y", "facing", "unit"):
        assert isinstance(getattr(UnitState, view), property), view


def test_a_move_and_a_volley_mid_phase_are_on_the_core_formation_at_once(flodden: Any) -> None:
    battle = _two_bounds(flodden)
    ctx = battle.ctx
    assert isinstance(ctx, MedievalContext) and ctx.game is not None
    game = ctx.game
    u = next(u for u in game.alive() if u.unit.figures_left >= 6 and not u.routing)
    f = battle.state.formations[u.id]
    assert (u.x, u.y, u.facing % 360.0) == (f.cx, f.cy, f.facing)
    game.phase = Phase.A_NORMAL_MOVEMENT
    # a normal move over Flodden's ground: swept in steps, the formation placed where it ends
    version = battle.state.version
    fx, fy = u.forward()
    moved = move_toward(game, u, u.x + 60.0 * fx, u.y + 60.0 * fy, game.allowance(u))
    assert moved > 0
    assert (f.cx, f.cy, f.facing) == (u.x, u.y, u.facing)
    assert battle.state.version > version  # the core's clock of moves ticked
    fx, fy = u.forward()
    front = min(f.alive_bases, key=lambda b: (b.rank, b.file))
    ox, oy = f.slot_offset(front.rank, front.file)
    rx, ry = fy, -fx  # the formation's right, from its facing
    assert front.x == pytest.approx(f.cx + ox * rx + oy * fx)
    assert front.y == pytest.approx(f.cy + ox * ry + oy * fy)
    # two figures lost: two bases dead at once, from the rear ranks (the front fights on)
    alive = f.n_alive
    before = set(map(id, f.alive_bases))
    take_losses(game, u, 2)
    assert f.n_alive == alive - 2 == u.unit.figures_left
    new = [b for b in f.bases if id(b) in before and b.status is BaseStatus.DEAD]
    assert len(new) == 2 and min(b.rank for b in new) >= max(b.rank for b in f.alive_bases)
    assert u.unit.figures_lost == len(f.bases) - f.n_alive
    # and the other way: a base the core marks dead is a figure the game has lost
    f.alive_bases[0].status = BaseStatus.DEAD
    assert u.unit.figures_left == alive - 3
    f.set_pose(f.cx + 10.0, f.cy, 90.0)
    assert (u.x, u.y, u.facing) == (f.cx, f.cy, 90.0)
    assert u.formation is f


def test_a_rout_and_a_rally_are_the_core_morale_at_once(flodden: Any) -> None:
    # MORALE TEST RESULT: a routing unit is routing in the core's state as its mode changes;
    # rallied (its mode steady again), it is retreating to the end of the next phase, then
    # steady (the reading the copy-back played, now written as the mode changes)
    battle = _two_bounds(flodden)
    ctx = battle.ctx
    assert isinstance(ctx, MedievalContext) and ctx.game is not None
    game = ctx.game
    u = next(u for u in game.alive() if not u.routing)
    f = battle.state.formations[u.id]
    assert f.morale is Morale.STEADY
    u.mode = Mode.ROUTING
    assert f.morale is Morale.ROUTING
    u.mode = Mode.FALL_BACK  # (in the same phase: the morale as the phase began counts)
    assert f.morale is Morale.RETREATING
    u.mode = Mode.ROUTING
    game.play(Phase.WEATHER)  # the phase ends with it routing
    assert f.morale is Morale.ROUTING
    u.mode = Mode.OBEY  # rallied
    assert f.morale is Morale.RETREATING
    game.play(Phase.INITIATIVE)  # rallied in an earlier phase than this one ...
    assert f.morale is Morale.STEADY  # ... steady as this one ends
