"""medieval-d10, MORALE reason 7 ("has just seen previously unseen enemy, for the first time")
on Towton's ground (OS Terrain 50, the shipped scenario): sight between two units is mutual,
one line between them as a table sights it, so a turn's look asks each pair of enemy units
once and both units' notes come from that one answer.

docs/rules-interpretations.md, "Sight between two units is mutual".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets.medieval_d10.morale import look
from engine.scenario import load_scenario


@pytest.mark.parametrize(
    ("site", "scenario"), [("towton", "towton_1461"), ("flodden", "flodden_1513")]
)
def test_the_first_look_asks_each_pair_once_and_both_ends_agree(
    site: str, scenario: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Towton under its snowstorm (fog: pair by pair) and Flodden (one batch of lines)."""
    from scenario_builder.build import build_site

    bf = build_site(site).battlefield
    battle = Battle(bf, load_scenario(scenario), Dice(1), ruleset="medieval-d10")
    next(iter(battle.phases()))
    game = battle.ctx.game
    first, other = game.sides
    ours, theirs = list(game.alive(first)), list(game.alive(other))
    for u in game.units.values():
        u.seen = None  # the deployment's look again: every pair is asked
    asked: list[tuple[int, int]] = []
    real = game.sight_of_grid

    def spy(a: Any, b: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        asked.extend(zip(rows.tolist(), cols.tolist(), strict=True))
        return np.asarray(real(a, b, rows, cols))

    monkeypatch.setattr(game, "sight_of_grid", spy)
    look(game)
    assert sorted(asked) == sorted(set(asked))  # no pair twice
    assert len(asked) == len(ours) * len(theirs)  # one line a pair, not one each way
    fog = game.special.fog_m
    mutual = 0
    for u in ours:
        for e in theirs:
            # each way over the real ground, line by line: the terrain gives the same answer,
            # which is what lets one line serve both units
            there = bool(bf.line_of_sight((u.x, u.y), (e.x, e.y)))
            assert there == bool(bf.line_of_sight((e.x, e.y), (u.x, u.y))), (u.id, e.id)
            there = there and (fog is None or game.gap(u, e) <= fog)
            assert (e.id in u.seen) == there and (u.id in e.seen) == there, (u.id, e.id)
            mutual += there
    assert mutual > 0, "some enemy is in sight at the deployment"
