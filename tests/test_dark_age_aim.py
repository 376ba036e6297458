"""Dark Age 5.15 and 5.17 in the commander's aim (``003_e8e36df29227b52b.txt``): "Normal moves
by formed units must be in the direction of the unit's facing with no more than 22½ deviation";
a wheel "is the usual method of changing the direction of a unit's facing", "Cost: 1 DP if in
shieldwall". A formed unit whose enemy stays within the deviation goes on without wheeling and
keeps the enemy it was going for; one whose enemy lies further round wheels and pays
(docs/rules-interpretations.md, "Dark Age: a formed unit keeps its aim"). Played on Maldon 991
(data/scenarios/maldon_991.yaml), seed 1, where the Viking shieldwalls charge the English."""

from __future__ import annotations

from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import bearing
from engine.rulesets import get_ruleset
from engine.rulesets.dark_age.movement import angle_diff
from engine.scenario import load_scenario

BOUNDS = 4


@pytest.fixture(scope="module")
def fought() -> tuple[Battle, dict[int, dict[str, tuple[float, float, float]]]]:
    """Maldon seed 1 fought 4 bounds; each formation's pose at each bound's start."""
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991")
    rs = get_ruleset("dark-age")
    ground = rs.ground(build_battlefield(sc).battlefield)
    b = Battle(ground, sc, Dice(1), ruleset=rs, commanders=commanders(sc, ground, rs))
    poses: dict[int, dict[str, tuple[float, float, float]]] = {}
    for bound in range(1, BOUNDS + 1):
        poses[bound] = {f.id: (f.cx, f.cy, f.facing) for f in b.state.formations.values()}
        b.step()
    return b, poses


def _events(b: Battle, bound: int, kind: str, fid: str) -> list[Any]:
    (rec,) = [r for r in b.log.bounds if r.bound == bound]
    return [e for e in rec.events if e.type == kind and getattr(e, "formation", "") == fid]


def _wheel_dps(b: Battle, bound: int, fid: str) -> int:
    return sum("wheel" in e.reason for e in _events(b, bound, "disorder", fid))


def test_5_15_a_shieldwall_charging_within_the_deviation_does_not_wheel(fought: Any) -> None:
    """Olaf's retinue (A Grade shieldwall, facing 225) charges the English bowmen 4 degrees
    off its front: it goes on at 225 bound after bound, no wheel DP (before, it re-aimed a
    tenth of a degree each bound and took 1 DP for each). (Bound 4 it takes a lane round the
    bowmen in its way, :mod:`engine.jams`: no target, no turn either.)"""
    b, poses = fought
    for bound in range(1, BOUNDS + 1):
        x, y, facing = poses[bound]["vk_hird"]
        (plan,) = _events(b, bound, "planned_move", "vk_hird")
        assert _wheel_dps(b, bound, "vk_hird") == 0
        if plan.target is None:
            continue
        g = poses[bound][plan.target]
        assert angle_diff(facing, bearing(x, y, g[0], g[1])) <= 22.5
    end = poses[BOUNDS]["vk_hird"][2]
    assert b.state.formations["vk_hird"].facing == pytest.approx(end) == pytest.approx(225.0)


def test_5_17_an_enemy_beyond_the_deviation_is_wheeled_to_at_a_dp(fought: Any) -> None:
    """The southern ship crews (facing 225) charge the bowmen 29 degrees round on bound 1:
    beyond 5.15's 22.5, so they wheel toward them (5.17) and take the shieldwall's DP."""
    b, poses = fought
    x, y, facing = poses[1]["vk_lith_1"]
    (plan,) = _events(b, 1, "planned_move", "vk_lith_1")
    g = poses[1][plan.target]
    assert angle_diff(facing, bearing(x, y, g[0], g[1])) > 22.5
    assert angle_diff(poses[2]["vk_lith_1"][2], facing) > 1.0
    assert _wheel_dps(b, 1, "vk_lith_1") == 1


def test_5_15_a_unit_keeps_the_enemy_it_was_going_for(fought: Any) -> None:
    """Bound 2: the commander would send the southern crews at the Essex fyrd instead, but the
    bowmen they wheeled to are still within 22.5 degrees of their front: they keep them (an
    ``aim_kept`` event) and neither turn nor pay a wheel DP."""
    b, poses = fought
    (kept,) = _events(b, 2, "aim_kept", "vk_lith_1")
    (plan,) = _events(b, 2, "planned_move", "vk_lith_1")
    assert (kept.target, kept.instead, plan.target) == (
        "en_bowmen",
        "en_fyrd_right",
        "en_fyrd_right",
    )
    x, y, facing = poses[2]["vk_lith_1"]
    g = poses[2]["en_bowmen"]
    assert angle_diff(facing, bearing(x, y, g[0], g[1])) <= 22.5
    assert _wheel_dps(b, 2, "vk_lith_1") == 0
    assert poses[3]["vk_lith_1"][2] == pytest.approx(facing)
    assert "keeps its aim on en_bowmen" in kept.describe()
