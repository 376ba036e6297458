"""medieval-d10, THE MORALE TEST CHART's factor lines as a table counts them (Towton 1461, OS
Terrain 50, the shipped scenario):

- "Each friendly unit Halted / Advancing, within 150yds" and "Each friendly unit Routing /
  Falling Back, within 150yds" are two lines a unit is on one of: a friend falling back was
  counted on both (modifier 0 where the chart gives -1);
- "No other friendly units are in sight" asks for sight, not for friends alive anywhere;
- "Advancing - this Game Turn" is not earned by a rout move or a fall back (Towton seeds 1-8:
  134 of 388 tests gave a routing unit the +1 for its own rout move).

docs/rules-interpretations.md, "Morale factors: one line a unit".
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets.medieval_d10 import morale as mm
from engine.rulesets.medieval_d10.charts import MoraleColumn
from engine.rulesets.medieval_d10.morale import take_morale_test
from engine.rulesets.medieval_d10.state import Mode
from engine.scenario import load_scenario

NAME = "medieval-d10"


@pytest.fixture(scope="module")
def towton() -> Any:
    from scenario_builder.build import build_site

    return build_site("towton").battlefield


def _battle(bf: Any, seed: int) -> Battle:
    return Battle(bf, load_scenario("towton_1461"), Dice(seed), ruleset=NAME)


def _factors_of(game: Any, u: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    seen: list[dict[str, int]] = []
    real = mm.morale_modifier

    def spy(troop_class: Any, factors: dict[str, int], commander: Any) -> int:
        seen.append(dict(factors))
        return int(real(troop_class, factors, commander))

    monkeypatch.setattr(mm, "morale_modifier", spy)
    take_morale_test(game, u, MoraleColumn.OTHER, "a test")
    monkeypatch.setattr(mm, "morale_modifier", real)
    return seen[-1]


def _with_a_friend_near(bf: Any) -> tuple[Any, Any, Any]:
    battle = _battle(bf, 1)
    next(iter(battle.phases()))
    game = battle.ctx.game
    for u in game.alive():
        near = game.within_150yd(u, u.side)
        if near:
            return game, u, near[0]
    raise AssertionError("no two friends within 150 yds at Towton's deployment")


def test_a_friend_falling_back_counts_once_on_the_falling_back_line(
    towton: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    game, u, friend = _with_a_friend_near(towton)
    steady = _factors_of(game, u, monkeypatch)
    friend.mode = Mode.FALL_BACK
    back = _factors_of(game, u, monkeypatch)
    assert back["friend_halted_advancing"] == steady["friend_halted_advancing"] - 1
    assert back["friend_routing"] == steady["friend_routing"] + 1


def test_no_friends_in_sight_is_about_sight(towton: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    game, u, _friend = _with_a_friend_near(towton)
    assert _factors_of(game, u, monkeypatch)["no_friends_in_sight"] == 0
    # every friend still alive, none in sight (a fog, a ridge): the -2 line applies
    monkeypatch.setattr(game, "sees", lambda a, b: False)
    assert _factors_of(game, u, monkeypatch)["no_friends_in_sight"] == 1


def test_a_routing_unit_is_never_advancing_towton_seeds_1_and_2(
    towton: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted: list[dict[str, int]] = []
    real = mm.morale_modifier

    def spy(troop_class: Any, factors: dict[str, int], commander: Any) -> int:
        counted.append(dict(factors))
        return int(real(troop_class, factors, commander))

    monkeypatch.setattr(mm, "morale_modifier", spy)
    for seed in (1, 2):
        _battle(towton, seed).run()
    routing = [f for f in counted if f.get("routing")]
    assert routing, "the battles have rally tests of routing units"
    assert all(not f.get("advancing") for f in routing)
    assert any(f.get("advancing") for f in counted if not f.get("routing"))
