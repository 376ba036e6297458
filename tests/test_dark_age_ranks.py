"""Dark Age 5.2-5.3 (``003_e8e36df29227b52b.txt``): formed units keep their formation, so a
shieldwall holed by the combat game's melee closes up in the next movement phase
(engine/rulesets/dark_age/ranks.py), on the Maldon 991 ground (data/scenarios/maldon_991.yaml)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import forward
from engine.movement import update_contacts
from engine.rulesets import get_ruleset
from engine.rulesets.dark_age.battle import chapter_view
from engine.rulesets.dark_age.formations import Formation, valid_shape
from engine.rulesets.dark_age.ranks import CLOSE_UP_MAX_M, close_ranks, has_hole
from engine.scenario import load_scenario
from engine.state import BaseStatus


@pytest.fixture(scope="module")
def maldon() -> tuple[Any, Any]:
    from scenario_builder.battle import build_battlefield

    sc = load_scenario("maldon_991")
    return sc, get_ruleset("dark-age").ground(build_battlefield(sc).battlefield)


def _fight(sc: Any, ground: Any, seed: int) -> Battle:
    from scenario_builder.battle import commanders

    rs = get_ruleset("dark-age")
    return Battle(ground, sc, Dice(seed), ruleset=rs, commanders=commanders(sc, ground, rs))


def _kill(f: Any, *slots: tuple[int, int]) -> None:
    for b in f.bases:
        if (b.rank, b.file) in slots:
            b.status = BaseStatus.DEAD


def _front_edge(f: Any) -> tuple[float, float]:
    o = f.obb()
    fx, fy = forward(f.facing)
    return o.cx + o.hd * fx, o.cy + o.hd * fy


def _ranks(f: Any) -> list[int]:
    counts: dict[int, int] = {}
    for b in f.alive_bases:
        counts[b.rank] = counts.get(b.rank, 0) + 1
    return [counts[r] for r in sorted(counts)]


def test_5_3_a_holed_shieldwall_closes_up_front_edge_kept(maldon: tuple[Any, Any]) -> None:
    """5.3 "all bases side by side, in contact with each other": the right-hand fyrd (8 stands,
    4 wide) loses three front-rank stands; standing, it closes up into a full front rank of 4
    and a rear rank of 1, its front edge where it was, no stand further than a javelin
    throw (5.10's least move)."""
    sc, ground = maldon
    battle = Battle(ground, sc, Dice(1))
    ctx, state = battle.ctx, battle.state
    fyrd = state.formations["en_fyrd_right"]
    _kill(fyrd, (0, 0), (0, 1), (0, 2))
    assert has_hole(fyrd) and _ranks(fyrd) == [1, 4]
    assert not valid_shape(Formation.SHIELDWALL, _ranks(fyrd))
    edge = _front_edge(fyrd)
    before = {b.id: (b.x, b.y) for b in fyrd.alive_bases}
    ctx.plans = {}
    events = close_ranks(ctx, lambda f: chapter_view(f)[2], moving=set())
    assert [(e.formation, e.before, e.after) for e in events] == [("en_fyrd_right", (1, 4), (4, 1))]
    assert not has_hole(fyrd) and _ranks(fyrd) == [4, 1]
    assert valid_shape(Formation.SHIELDWALL, _ranks(fyrd))
    assert _front_edge(fyrd) == pytest.approx(edge, abs=1e-6)
    moved = [math.hypot(b.x - before[b.id][0], b.y - before[b.id][1]) for b in fyrd.alive_bases]
    assert max(moved) <= CLOSE_UP_MAX_M + 1e-6 and events[0].moved_m == pytest.approx(max(moved))
    # the layout is the formation's own: placing it again leaves every stand where it is
    now = {b.id: (b.x, b.y) for b in fyrd.alive_bases}
    fyrd.place()
    # flattened: pytest.approx compares no nested containers (a TypeError from pytest 9.2)
    again = {b.id: (b.x, b.y) for b in fyrd.alive_bases}
    assert sorted(again) == sorted(now)
    assert [c for k in sorted(again) for c in again[k]] == pytest.approx(
        [c for k in sorted(now) for c in now[k]]
    )
    # a unit that is about to move keeps its ranks until it stops (as 2mm Earth 3.1)
    left = state.formations["en_fyrd_left"]
    _kill(left, (0, 3))
    assert close_ranks(ctx, lambda f: chapter_view(f)[2], moving={"en_fyrd_left"}) == []
    assert has_hole(left)


def test_5_3_a_stand_goes_no_further_than_a_javelin_throw(maldon: tuple[Any, Any]) -> None:
    """Two stands of Godric's four-wide line left at its ends would each go a base width (40 m)
    to stand abreast, more than a javelin throw (25 m): the line stays as it is. A six-stand
    retinue (3 wide) that lost its front rank's middle stand closes it from the rank behind, a
    base depth (20 m)."""
    sc, ground = maldon
    battle = Battle(ground, sc, Dice(1))
    godric = battle.state.formations["en_godric"]
    hird = battle.state.formations["en_hearth"]
    _kill(godric, (0, 1), (0, 2))
    _kill(hird, (0, 1))
    assert has_hole(godric) and has_hole(hird)
    (e,) = close_ranks(battle.ctx, lambda f: chapter_view(f)[2], moving=set())
    assert (e.formation, e.before, e.after) == ("en_hearth", (2, 3), (3, 2))
    assert e.moved_m == pytest.approx(hird.base_d)
    assert has_hole(godric) and _ranks(godric) == [2]


def test_5_3_closing_up_never_loses_a_contact_nor_overlaps(maldon: tuple[Any, Any]) -> None:
    """A Viking line touching the holed English line at a living stand stays in contact."""
    sc, ground = maldon
    battle = Battle(ground, sc, Dice(1))
    state = battle.state
    fyrd, crew = state.formations["en_fyrd_right"], state.formations["vk_lith_1"]
    # bring the crews face to face with the fyrd: facing it, front edges touching
    fx, fy = forward(fyrd.facing)
    gap = fyrd.obb().hd + crew.obb().hd
    crew.set_pose(fyrd.cx + gap * fx, fyrd.cy + gap * fy, (fyrd.facing + 180.0) % 360.0)
    _kill(fyrd, (0, 1), (0, 2))
    battle.ctx.base_pairs = update_contacts(state)
    assert state.contacts["en_fyrd_right"] == ("vk_lith_1",)
    close_ranks(battle.ctx, lambda f: chapter_view(f)[2], moving=set())
    battle.ctx.base_pairs = update_contacts(state)
    assert state.contacts["en_fyrd_right"] == ("vk_lith_1",)
    assert not has_hole(fyrd)
    from engine.testing import overlapping_pairs

    assert overlapping_pairs(state) == []


def test_maldon_replays_close_ranks_and_fight_it_out(maldon: tuple[Any, Any]) -> None:
    """Before 5.2-5.3 were played, Maldon seed 1 deadlocked from bound 21: shieldwalls touching
    corner-on where both had lost the corner stand, no base in contact, nothing moved or
    fought. Now holed lines close up as they fight: the first of seeds 1-8 in which one does
    is decided, and every closing-up is legal (5.3) and within a javelin throw."""
    sc, ground = maldon
    for seed in range(1, 9):
        battle = _fight(sc, ground, seed)
        while not battle.finished:
            battle.step()
        closed = [e for r in battle.log.bounds for e in r.events if e.type == "closed_ranks"]
        if closed and battle.result["winner"] is not None:
            break
    else:
        pytest.fail("no decided Maldon replay in seeds 1-8 closed its ranks")
    for e in closed:
        assert e.formation_type in ("shieldwall", "column", "cuneus")
        if e.formation_type == "shieldwall":
            assert valid_shape(Formation.SHIELDWALL, list(e.after)), e
        assert 0.0 < e.moved_m <= CLOSE_UP_MAX_M
