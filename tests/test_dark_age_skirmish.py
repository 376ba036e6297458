"""Dark Age 5.12, skirmishing: "Unformed light troops must fall back to maintain desired
skirmishing distance in face of an approach by formed enemy" (the example: placed one javelin
throw from the enemy's new position), played in whole battles of Maldon (OS Terrain 50) as the
``run`` command fights them.

Before 5.12 was played, Maldon seeds 5 and 7 each had the bowmen caught in melee by a
shieldwall that walked into them (4 melee events each) and destroyed there.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.rulesets.dark_age.battle import chapter_view
from engine.rulesets.dark_age.formations import Formation, is_light
from engine.rulesets.dark_age.skirmish import SKIRMISH_DISTANCE_M
from engine.scenario import load_scenario
from engine.testing import check_ruleset

DA = "dark-age"
BOWMEN = {"vk_archers", "en_bowmen"}


def _fight(seed: int) -> Battle:
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991")
    rs = get_ruleset(DA)
    ground = rs.ground(build_battlefield(sc).battlefield)
    b = Battle(ground, sc, Dice(seed), ruleset=rs, commanders=commanders(sc, ground, rs))
    b.run()
    return b


@pytest.fixture(scope="module")
def seed5() -> Battle:
    return _fight(5)


def _events(b: Battle, *types: str) -> list[tuple[int, Any]]:
    return [(r.bound, e) for r in b.log.bounds for e in r.events if e.type in types]


def test_the_viking_bowmen_fall_back_before_the_hearth_troop_seed_5(seed5: Battle) -> None:
    backs = [
        (bd, e) for bd, e in _events(seed5, "skirmish_fall_back") if e.formation == "vk_archers"
    ]
    # (bounds 3 and 4 until formed units kept their aim within 5.15's deviation: the hearth
    # troop now turns on the ship crews at bound 4 instead of following the bowmen)
    assert [(bd, e.enemy) for bd, e in backs][:1] == [(3, "en_hearth")]
    for _bd, e in backs:
        # one javelin throw from the enemy's new position, or said to be caught short of it
        assert not e.caught and e.gap_m >= SKIRMISH_DISTANCE_M - 0.1
    # bound 3: the shieldwall came on to their front; they went back, a move of their own the
    # bound's moves show
    moved = [e for bd, e in _events(seed5, "moved") if bd == 3 and e.formation == "vk_archers"]
    assert moved and moved[-1].distance_m == pytest.approx(backs[0][1].distance_m, abs=0.01)
    # and were never caught in a melee
    melees = [e for _bd, e in _events(seed5, "melee") if BOWMEN & {e.formation, e.target}]
    assert melees == []


def test_only_unformed_light_troops_fall_back_and_only_before_formed_enemy(
    seed5: Battle,
) -> None:
    backs = _events(seed5, "skirmish_fall_back")
    assert backs
    # the chapter's view of each as deployed (a unit wiped out later has no bases to view)
    from scenario_builder.battle import build_battlefield

    sc = load_scenario("maldon_991")
    rs = get_ruleset(DA)
    fresh = Battle(rs.ground(build_battlefield(sc).battlefield), sc, Dice(5), ruleset=rs).state
    for _bd, e in backs:
        troop, _grade, form = chapter_view(fresh.formations[e.formation])
        assert form is Formation.UNFORMED and is_light(troop), e
        assert chapter_view(fresh.formations[e.enemy])[2] not in (
            Formation.UNFORMED,
            Formation.SINGLE_MODEL,
        ), e
    assert {e.formation for _bd, e in backs} <= BOWMEN


def test_maldon_seed_7_the_bowmen_are_no_longer_caught_in_melee() -> None:
    """No formed enemy walks into the bowmen: 5.12 is "in face of an approach by formed
    enemy", and pursuers are unformed (5.2), so the one melee seed 7 now has with them (the
    hearth troop's pursuit of Olaf's retinue ends against the Viking bowmen, bound 14) is
    the only kind left."""
    b = _fight(7)
    assert _events(b, "skirmish_fall_back")
    plans = {(bd, e.formation): e.kind for bd, e in _events(b, "planned_move")}
    melees = [(bd, e) for bd, e in _events(b, "melee") if BOWMEN & {e.formation, e.target}]
    for bd, e in melees:
        enemy = e.target if e.formation in BOWMEN else e.formation
        assert plans.get((bd, enemy)) == "pursue", (bd, e)


def test_check_ruleset_counts_the_fall_back_in_the_bounds_moves() -> None:
    # the allowance check after every phase sees the fall back as a move besides the roll
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991")
    rs = get_ruleset(DA)
    report = check_ruleset(
        DA,
        sc,
        seed=5,
        battlefield=rs.ground(build_battlefield(sc).battlefield),
        max_bounds=8,
        hooks=False,  # the hooks are checked on Flodden (test_engine_battle)
        commanders=lambda s, bf: commanders(s, bf, rs),
    )
    assert report.events.get("skirmish_fall_back", 0) >= 1
