"""Known-answer tests of the bound, shooting, melee and casualties (1.1, 2.x, 3.x, 8.1-8.2, 11.3).

Troops are the test lists in tests/data/troops on the real Minden DEM (a flat 700 m square found
by ``engine.testing.flat_origin``); dice are scripted, so every number below is the rule's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.battle import Battle
from engine.dice import ScriptedDice
from engine.rulesets.two_mm_earth.phases import PHASES
from engine.rulesets.two_mm_earth.rulesets import BASE_SIZE
from engine.testing import flat_origin, make_scenario

DATA = Path(__file__).parent / "data" / "troops"
ARMIES = (str(DATA / "rules_red.yaml"), str(DATA / "rules_blue.yaml"))


@pytest.fixture(scope="module")
def bf(built_minden):
    return built_minden.battlefield


@pytest.fixture(scope="module")
def origin(bf):
    return flat_origin(bf)


def battle(bf, origin, red, blue, faces, **kw):
    sc = make_scenario(red, blue, armies=ARMIES, origin=origin, **kw)
    return Battle(bf, sc, ScriptedDice(faces))


def events(record, type_):
    return [e for e in record.events if e.type == type_]


def test_1_1_phases_run_in_rulebook_order(bf, origin):
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 400), "facing": 180}],
        [],
    )
    assert tuple(b.phases()) == PHASES
    assert PHASES.index("execute_shooting") < PHASES.index("execute_moves") < PHASES.index("melee")


def test_1_1_shooting_at_half_range_or_more_is_minus_one(bf, origin):
    # archers A3 at 150 m of a 200 m range: -1 on each die; target R4 -> need 5
    b = battle(
        bf,
        origin,
        [{"id": "bows", "profile": "archers", "bases": 2, "at": (0, 0), "order": "attack"}],
        [{"id": "foot", "profile": "inf", "bases": 2, "at": (0, 170), "facing": 180}],
        [5, 4, 6],
    )
    rec = b.step()
    (shot,) = events(rec, "shot")
    assert (shot.mode, shot.n_dice, shot.need, shot.hits) == ("normal", 3, 5, 2)
    assert shot.dice.faces == (5, 4, 6)
    injured = events(rec, "injured")
    assert sorted(e.base for e in injured) == ["foot.1", "foot.2"]  # 2.4 the facing rank


def test_1_1_short_range_no_penalty(bf, origin):
    b = battle(
        bf,
        origin,
        [{"id": "bows", "profile": "archers", "bases": 2, "at": (0, 0), "order": "attack"}],
        [{"id": "foot", "profile": "inf", "bases": 2, "at": (0, 90), "facing": 180}],
        [4, 3, 1],
    )
    (shot,) = events(b.step(), "shot")
    assert (shot.need, shot.hits) == (4, 1)


def test_1_1_moving_shooters_minus_one_skirmishers_exempt():
    from engine.rulesets.two_mm_earth.profiles import load_army
    from engine.rulesets.two_mm_earth.shooting import choose_mode
    from engine.state import Formation

    army = __import__("engine.rulesets.two_mm_earth.profiles", fromlist=["load_army"]).load_army(
        ARMIES[0]
    )
    del load_army
    foot = Formation.build(
        "a",
        "red",
        "A",
        army.profile("archers"),
        n_bases=2,
        frontage=2,
        cx=0.0,
        cy=0.0,
        facing=0.0,
        **BASE_SIZE,
    )
    skirm = Formation.build(
        "s",
        "red",
        "S",
        army.profile("skirm"),
        n_bases=2,
        frontage=2,
        cx=0.0,
        cy=0.0,
        facing=0.0,
        **BASE_SIZE,
    )
    kw = dict(
        n_front=2,
        ranks=1,
        enemy_facing=2,
        resilience=4,
        half_range=False,
        into_overhead=False,
        shooter_in_overhead=False,
    )
    assert choose_mode(foot, moving=True, **kw) == ("normal", 3, -1)
    assert choose_mode(skirm, moving=True, **kw) == ("normal", 2, 0)


def test_2_1_light_troops_shoot_before_heavy(bf, origin):
    # skirmishers (initiative 5) execute before archers (initiative 3), though planned later
    b = battle(
        bf,
        origin,
        [
            {"id": "bows", "profile": "archers", "bases": 2, "at": (-100, 0), "order": "attack"},
            {"id": "skirm", "profile": "skirm", "bases": 2, "at": (100, 0), "order": "attack"},
        ],
        [{"id": "foot", "profile": "inf", "bases": 8, "at": (0, 95), "facing": 180}],
        [1] * 5,
    )
    shots = events(b.step(), "shot")
    assert [s.formation for s in shots] == ["skirm", "bows"]


def test_2_2_nmf_troops_do_not_move_and_fire(bf, origin):
    # musketeers (NM&F) ordered to advance toward an enemy in range: they move, they do not shoot
    b = battle(
        bf,
        origin,
        [{"id": "muskets", "profile": "musket", "bases": 2, "at": (0, 0), "order": "advance"}],
        [{"id": "foot", "profile": "inf", "bases": 2, "at": (0, 250), "facing": 180}],
        [],
    )
    rec = b.step()
    assert not events(rec, "shot")
    assert events(rec, "moved")


def test_2_3_resilience_is_the_score_to_match(bf, origin):
    # melee against armoured foot R5: need 5; faces 5 and 6 hit, 4 misses
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 1, "at": (0, 0), "order": "attack"}],
        [{"id": "b", "profile": "inf_r5", "bases": 1, "at": (0, 40), "facing": 180}],
        [5, 6, 4, 1, 1, 1],
    )
    rec = b.step()
    strikes = {m.formation: m for m in events(rec, "melee")}
    assert strikes["r"].need == 5 and strikes["r"].hits == 2
    assert strikes["b"].need == 4


def test_2_3_in_battle_a_need_of_seven_never_hits(bf, origin):
    # guns (ordnance only, A2, range 800 m) at armoured foot (ranged R5) 500 m away: long-range
    # ordnance is -2 (8.1), so the face needed is 7. 2.3 has no natural 6: three sixes, no hit,
    # and the target is unhurt after the bound
    b = battle(
        bf,
        origin,
        [
            {
                "id": "guns",
                "profile": "guns",
                "bases": 2,
                "at": (0, 0),
                "order": "attack",
                "target_formation": "foot",
            }
        ],
        [{"id": "foot", "profile": "inf_r5", "bases": 2, "at": (0, 530), "facing": 180}],
        [6] * 12,
    )
    rec = b.step()
    (shot,) = events(rec, "shot")
    assert shot.mode == "ordnance" and shot.need == 7
    assert set(shot.dice.faces) == {6} and shot.hits == 0
    assert not events(rec, "injured") and not events(rec, "hit")
    assert all(x.status.value == "ok" for x in b.state.formations["foot"].bases)


def test_2_4_hits_injure_the_facing_rank_then_kill():
    from engine.rulesets.two_mm_earth.damage import allocate_hits
    from engine.rulesets.two_mm_earth.profiles import load_army
    from engine.state import Formation

    p = load_army(ARMIES[1]).profile("inf")
    f = Formation.build(
        "f", "blue", "F", p, n_bases=6, frontage=3, cx=0.0, cy=0.0, facing=0.0, **BASE_SIZE
    )
    # aggressor behind the formation: the rear rank (rank 1) faces it
    ev = allocate_hits(f, 5, (0.0, -300.0), ScriptedDice([]), by="x", phase="melee")
    assert [(e.type, f.bases[int(e.base.split(".")[1]) - 1].rank) for e in ev] == [
        ("injured", 1),
        ("injured", 1),
        ("injured", 1),
        ("killed", 1),
        ("killed", 1),
    ]
    assert f.n_alive == 4


def test_2_4_with_a_character_hits_fall_at_random():
    from engine.rulesets.two_mm_earth.damage import allocate_hits
    from engine.rulesets.two_mm_earth.profiles import load_army
    from engine.state import Formation

    p = load_army(ARMIES[1]).profile("inf")
    f = Formation.build(
        "f", "blue", "F", p, n_bases=3, frontage=3, cx=0.0, cy=0.0, facing=0.0, **BASE_SIZE
    )
    f.bases[1].character = "blue_captain"
    dice = ScriptedDice([3])
    ev = allocate_hits(f, 1, (0.0, 300.0), dice, by="x", phase="melee")
    assert ev[0].base == "f.3" and ev[0].dice.sides == 3
    assert "allocate hit" in dice.history[0].purpose


def test_3_1_outnumbering_adds_a_die_per_extra_base(bf, origin):
    # red 6 wide (A3) against blue 4 wide: red rolls 3 + 2 dice; blue rolls 3
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 6, "at": (0, 0), "order": "attack"}],
        [{"id": "b", "profile": "inf", "bases": 8, "frontage": 4, "at": (0, 40), "facing": 180}],
        [1] * 8,
    )
    rec = b.step()
    dice = {m.formation: m.n_dice for m in events(rec, "melee")}
    assert dice == {"r": 5, "b": 3}


def test_3_2_formations_in_combat_neither_move_nor_shoot(bf, origin):
    b = battle(
        bf,
        origin,
        [
            {"id": "r", "profile": "archers", "bases": 2, "at": (0, 0), "order": "attack"},
            {"id": "r2", "profile": "inf", "bases": 2, "at": (300, 0), "order": "hold"},
        ],
        [
            {
                "id": "b",
                "profile": "inf",
                "bases": 2,
                "at": (0, 20.5),
                "facing": 180,
                "order": "attack",
            }
        ],
        [1] * 40,
    )
    rec = b.step()
    assert b.state.contacts["r"] == ("b",)
    assert not events(rec, "shot") and not any(e.formation == "r" for e in events(rec, "moved"))


def test_3_3_bases_not_in_contact_assist_through_the_facing_rank(bf, origin):
    # red 4 wide meets blue 2 wide offset to one side: only 1-2 red bases touch, yet red's
    # whole front rank counts (3.3 assisting) -> 3 + (4 - 2) dice
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 4, "at": (0, 0), "order": "hold"}],
        [
            {
                "id": "b",
                "profile": "inf",
                "bases": 2,
                "at": (60, 20.5),
                "facing": 180,
                "order": "hold",
            }
        ],
        [1] * 10,
    )
    rec = b.step()
    dice = {m.formation: m.n_dice for m in events(rec, "melee")}
    assert dice["r"] == 5


def test_3_4_throwing_weapons_strike_first_against_same_status(bf, origin):
    b = battle(
        bf,
        origin,
        [{"id": "jav", "profile": "javelin", "bases": 2, "at": (0, 0), "order": "hold"}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 20.5), "facing": 180}],
        [1] * 6,
    )
    melee = events(b.step(), "melee")
    assert [m.formation for m in melee] == ["jav", "b"]
    assert melee[0].order < melee[1].order


def test_1_1_equal_initiative_strikes_are_simultaneous(bf, origin):
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 1, "at": (0, 0)}],
        [{"id": "b", "profile": "inf", "bases": 1, "at": (0, 20.5), "facing": 180}],
        [6, 6, 6, 6, 6, 6, 1, 1, 1, 1],
    )
    rec = b.step()
    melee = events(rec, "melee")
    assert len(melee) == 2 and melee[0].order == melee[1].order  # both struck: simultaneous


def test_8_1_ordnance_counts_one_extra_base_per_rank(bf, origin):
    # 6 archers in 3 ranks of 2 vs 1 base: ordnance shooters 2 + 1 + 1 = 4 -> 3 + 3 dice
    b = battle(
        bf,
        origin,
        [
            {
                "id": "bows",
                "profile": "archers",
                "bases": 6,
                "frontage": 2,
                "at": (0, 0),
                "order": "attack",
            }
        ],
        [{"id": "foot", "profile": "inf", "bases": 1, "at": (0, 90), "facing": 180}],
        [1] * 6,
    )
    (shot,) = events(b.step(), "shot")
    assert (shot.mode, shot.n_dice, shot.need) == ("ordnance", 6, 5)  # -1 ordnance penalty


def test_8_1_no_ordnance_from_overhead_cover():
    from engine.rulesets.two_mm_earth.profiles import load_army
    from engine.rulesets.two_mm_earth.shooting import choose_mode
    from engine.state import Formation

    guns = Formation.build(
        "g",
        "red",
        "G",
        load_army(ARMIES[0]).profile("guns"),
        n_bases=2,
        frontage=2,
        cx=0.0,
        cy=0.0,
        facing=0.0,
        **BASE_SIZE,
    )
    kw = dict(
        n_front=2,
        ranks=1,
        enemy_facing=2,
        resilience=4,
        half_range=False,
        moving=False,
        into_overhead=False,
    )
    assert choose_mode(guns, shooter_in_overhead=False, **kw)[0] == "ordnance"
    assert choose_mode(guns, shooter_in_overhead=True, **kw) is None  # ordnance_only: silent


def test_8_2_volleys_are_two_rank_ordnance(bf, origin):
    b = battle(
        bf,
        origin,
        [
            {
                "id": "muskets",
                "profile": "musket",
                "bases": 9,
                "frontage": 3,
                "at": (0, 0),
                "order": "attack",
            }
        ],
        [{"id": "foot", "profile": "inf", "bases": 1, "at": (0, 70), "facing": 180}],
        [1] * 6,
    )
    (shot,) = events(b.step(), "shot")
    # 3 + 1 (second rank; no third-rank base for volleys) = 4 shooters vs 1: 3 + 3 dice
    assert (shot.mode, shot.n_dice) == ("volley", 6)


def test_11_3_mixed_ranks_fight_at_the_mean_rounded_down():
    from engine.rulesets.two_mm_earth.profiles import load_army
    from engine.rulesets.two_mm_earth.shooting import facing_r
    from engine.state import Formation

    army = load_army(ARMIES[1])
    f = Formation.build(
        "m",
        "blue",
        "M",
        army.profile("inf_r5"),
        n_bases=4,
        frontage=2,
        cx=0.0,
        cy=0.0,
        facing=0.0,
        rear_profile=army.profile("archers"),
        rear_ranks=1,
        **BASE_SIZE,
    )
    f.bases[0].profile = army.profile("archers")  # a replacement moved up: front R5 + R3
    assert facing_r(f, (0.0, 300.0), "melee") == 4
    assert facing_r(f, (0.0, -300.0), "melee") == 3  # rear rank: archers
