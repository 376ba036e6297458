"""The medieval d10 battle's near-unit questions, culled by its UnitTable
(engine/rulesets/medieval_d10/nearby.py), answer as the loops over every unit they replaced:
played phase by phase on real ground (the benchmark's 2 x 20 units of the Flodden troop lists on
Minden), every unit is asked each question with the table's candidates and again with every
living unit as a candidate (the old loop), and the answers must be the same. The charts'
distances: "within 150yds" (MORALE TEST CHART factors; 30 cm at 25 mm), contact, each
"Insecure" unit flank or rear, the nearest enemy (charges, compulsory moves) and the nearest
within a missile's long range (Firing Ranges Chart)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.reference import culling as culling_ref

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench_medieval_d10 import scenario

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets.medieval_d10.fire import missile_target
from engine.rulesets.medieval_d10.game import MedievalBattle
from engine.rulesets.medieval_d10.state import CONTACT_M


def _answers(game: MedievalBattle) -> list[object]:
    out: list[object] = []
    for u in game.units.values():
        if not u.alive:
            continue
        enemy = game.enemy_of(u.side)
        for ok in (False, True):
            e = game.nearest_enemy(u, routing_ok=ok)
            out.append(None if e is None else e.id)
        out.append([o.id for o in game.within_150yd(u, u.side)])
        out.append([o.id for o in game.within_150yd(u, enemy)])
        out.append(game.insecure_flanks(u))
        t = missile_target(game, u)  # FIRING CHART: the nearest enemy within long range
        out.append(None if t is None else t.id)
        out.append([o.id for o in game.nearby.near(u, CONTACT_M, enemy) if game.in_contact(u, o)])
    return out


@pytest.mark.parametrize("seed", [1, 4])
def test_culled_answers_are_the_loops_answers_phase_by_phase(built_minden, seed: int) -> None:
    bf = built_minden.battlefield
    battle = Battle(bf, scenario(bf, 20), Dice(seed), ruleset="medieval-d10")
    asked = 0
    for turn in range(1, 13):
        for n, name in enumerate(battle.phases()):
            game = battle.ctx.game
            assert isinstance(game, MedievalBattle)
            if (n + turn) % 3:  # every third phase, a different third each turn
                continue
            culled = _answers(game)
            table = game.nearby
            game.nearby = culling_ref.Everyone(game)  # type: ignore[assignment]
            try:
                everyone = _answers(game)
            finally:
                game.nearby = table
            assert culled == everyone, f"turn {turn}, after {name}"
            asked += len(culled)
    # the battle was fought and asked of often, contacts and flanks among the answers
    assert asked > 10_000


def test_the_table_follows_the_units_own_writes(built_minden) -> None:
    bf = built_minden.battlefield
    battle = Battle(bf, scenario(bf, 4), Dice(1), ruleset="medieval-d10")
    battle.step()
    game = battle.ctx.game
    assert isinstance(game, MedievalBattle)
    a, b = game.units["en_admiral"], game.units["b0"]
    reach = game.m(30)
    # b walks up to a: the table sees it without being told
    b.x, b.y = a.x, a.y + reach / 2
    assert b in game.nearby.near(a, reach, b.side)
    assert game.nearest_enemy(a) is b
    # and away again
    b.y = a.y + 50 * reach
    assert b not in game.nearby.near(a, reach, b.side)
    # a unit destroyed is no candidate (its mode is watched)
    b.y = a.y + reach / 2
    assert b in game.nearby.near(a, reach, b.side)  # the row read again here, then
    game.destroy(b, "test")
    assert b not in game.nearby.near(a, reach, b.side)


def test_alive_follows_mode_and_figures(built_minden) -> None:
    # UnitState.alive is a plain value kept by the unit's writes (mode, unit), not a field
    import dataclasses

    from engine.rulesets.medieval_d10.state import Mode, UnitState

    assert "alive" not in {f.name for f in dataclasses.fields(UnitState)}
    bf = built_minden.battlefield
    battle = Battle(bf, scenario(bf, 4), Dice(1), ruleset="medieval-d10")
    battle.step()
    game = battle.ctx.game
    assert isinstance(game, MedievalBattle)
    u = game.units["b1"]
    assert u.alive
    u.unit = u.unit.with_losses(u.unit.figures_left)  # every figure lost
    assert not u.alive
    u.unit = dataclasses.replace(u.unit, figures_lost=0)
    assert u.alive
    u.mode = Mode.DESTROYED
    assert not u.alive
