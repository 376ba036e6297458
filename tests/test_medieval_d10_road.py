"""medieval-d10, MOVEMENT CHART "March on a Road or Track" bonus in a normal move, on the
Flodden overlay's English vanguard track (Twizel Bridge - Branxbrig, Barr 2001): TERRAIN CHART
note **, "A unit must be on a road / track for an entire Game Turn, to claim the Road Bonus
addition to its March Rate". Before, no normal move ever took it.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets.medieval_d10.moves import advance_to, road_march
from engine.rulesets.medieval_d10.state import Mode
from engine.rulesets.medieval_d10.terrain import Terrain
from engine.scenario import load_scenario


@pytest.fixture(scope="module")
def flodden(built_flodden: Any) -> Any:
    return built_flodden.battlefield


def _game(bf: Any) -> Any:
    b = Battle(bf, load_scenario("flodden_1513"), Dice(1), ruleset="medieval-d10")
    next(iter(b.phases()))
    return b.ctx.game


def _on_the_track(bf: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    # a straight stretch of the track's line in the overlay, 750 m long
    return bf.to_xy(-2.1745, 55.642), bf.to_xy(-2.1735, 55.6352)


def test_a_whole_move_on_the_track_takes_the_road_bonus(flodden: Any) -> None:
    game = _game(flodden)
    a, b = _on_the_track(flodden)
    u = game.units["en_stanley"]
    u.x, u.y = a
    assert game.terrain_at(*a)[0] is Terrain.ROAD_TRACK
    rate, bonus = game.allowance(u), game.m(u.unit.bonus_cm())
    moved = advance_to(game, u, b[0], b[1], rate)
    assert moved == pytest.approx(rate + bonus)  # 16 cm + 6 cm at 25 mm: 100.6 m
    assert [e["unit"] for e in game.events if e["type"] == "road_march"] == ["en_stanley"]


def test_no_bonus_off_the_track_or_at_half_speed(flodden: Any) -> None:
    game = _game(flodden)
    a, b = _on_the_track(flodden)
    u = game.units["en_stanley"]
    # starting 60 m off the track: not on it for the whole turn
    u.x, u.y = a[0] - 60.0, a[1]
    assert game.terrain_at(u.x, u.y)[0] is not Terrain.ROAD_TRACK
    assert road_march(game, u, [b], game.allowance(u)) == game.allowance(u)
    u.x, u.y = a
    u.mode = Mode.HALF_SPEED
    assert road_march(game, u, [b], game.allowance(u)) == game.allowance(u)
    assert not [e for e in game.events if e["type"] == "road_march"]
