"""Known-answer tests of the dice procedures (python-chess perft style: every outcome counted)."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from engine.dice import Dice, ScriptedDice
from engine.rulesets.two_mm_earth.resolution import (
    attack_need,
    mean_resilience,
    ordnance_dice,
    outnumbering_bonus,
    panic_test,
    roll_attack,
    rout_test_v07,
    shooting_modifier,
)


def _all_faces(n: int) -> list[tuple[int, ...]]:
    return list(itertools.product(range(1, 7), repeat=n))


def test_2_3_three_dice_need_four_is_binomial_half() -> None:
    counts = Counter(roll_attack(ScriptedDice(f), 3, resilience=4).hits for f in _all_faces(3))
    # binomial(3, 1/2) * 216
    assert [counts[k] for k in range(4)] == [27, 81, 81, 27]


def test_2_3_r3_means_3_4_5_6_hit() -> None:
    for face in range(1, 7):
        assert roll_attack(ScriptedDice([face]), 1, resilience=3).hits == (face >= 3)


@pytest.mark.parametrize("resilience", range(1, 9))
@pytest.mark.parametrize("modifier", [0, -1, -2, -3, 1])
def test_2_3_a_die_hits_if_face_plus_modifier_reaches_r(resilience: int, modifier: int) -> None:
    # 2.3: "the aggressor must roll a 3, 4, 5 or 6" for R3 - the face plus the die modifiers
    # must reach R; no face is special
    for face in range(1, 7):
        hit = roll_attack(ScriptedDice([face]), 1, resilience, modifier).hits == 1
        assert hit == (face + modifier >= resilience), (face, resilience, modifier)


def test_2_3_no_natural_six_a_need_of_seven_cannot_hit() -> None:
    # R6 infantry in overhead cover (+1, chart 7.2) is R7: nothing on a d6 reaches it
    assert attack_need(7) == 7
    assert roll_attack(ScriptedDice([6, 6, 6]), 3, resilience=7).hits == 0
    # long-range ordnance (-2) into overhead cover (-1) at R5 needs an 8
    assert attack_need(5, -3) == 8
    assert roll_attack(ScriptedDice([6, 5]), 2, resilience=6, modifier=-1).hits == 0
    assert roll_attack(ScriptedDice([6, 5]), 2, resilience=6, modifier=0).hits == 1


def test_2_3_need_never_below_one() -> None:
    assert attack_need(1) == 1
    assert attack_need(0) == 1  # R1 troops in wet ground (-1): every die hits
    assert roll_attack(ScriptedDice([1, 1]), 2, resilience=2, modifier=1).hits == 2


def test_2_2_attack_records_dice_with_purpose() -> None:
    d = Dice(3)
    r = roll_attack(d, 4, 4, -1, purpose="shoot eng_archers->sc_pikes")
    assert d.history == [r.dice]
    assert r.dice.purpose == "shoot eng_archers->sc_pikes" and len(r.dice.faces) == 4
    assert r.need == 5 and r.hits == sum(f >= 5 for f in r.dice.faces)


def test_2_2_zero_dice_rolls_nothing() -> None:
    d = Dice(3)
    r = roll_attack(d, 0, 4)
    assert r.hits == 0 and d.history == []
    with pytest.raises(ValueError, match="n_dice >= 0"):
        roll_attack(d, -1, 4)


@pytest.mark.parametrize(
    ("half", "moving", "skirm", "ordnance", "overhead", "volley", "expected"),
    [
        (False, False, False, False, False, False, 0),
        (True, False, False, False, False, False, -1),  # 1.1 half range
        (False, True, False, False, False, False, -1),  # 1.1 / 2.2 moving
        (True, True, False, False, False, False, -2),
        (True, True, True, False, False, False, -1),  # skirmishers ignore the move penalty
        (False, True, True, False, False, False, 0),
        (False, False, False, False, True, False, 0),  # overhead -1 is an ordnance penalty
        (False, False, False, True, False, False, -1),  # 8.1 ordnance
        (True, False, False, True, False, False, -2),  # 8.1 ordnance at long range
        (False, False, False, True, True, False, -2),  # 8.1 into overhead cover
        (True, False, False, True, True, False, -3),
        (True, True, False, True, True, False, -4),
        (False, False, False, False, False, True, -1),  # 8.2 volley = 2-rank ordnance
        (True, False, False, False, True, True, -3),
    ],
)
def test_1_1_8_1_shooting_modifier(
    half: bool,
    moving: bool,
    skirm: bool,
    ordnance: bool,
    overhead: bool,
    volley: bool,
    expected: int,
) -> None:
    assert (
        shooting_modifier(
            half_range_or_more=half,
            moving=moving,
            skirmisher=skirm,
            ordnance=ordnance,
            into_overhead=overhead,
            volley=volley,
        )
        == expected
    )


def test_8_1_ordnance_counts_front_rank_plus_two_ranks() -> None:
    assert ordnance_dice(5, 4) == 7  # the rulebook's example: 20 bases, 4 ranks of 5
    assert ordnance_dice(5, 3) == 7
    assert ordnance_dice(5, 2) == 6
    assert ordnance_dice(5, 1) == 5
    assert ordnance_dice(0, 0) == 0
    with pytest.raises(ValueError):
        ordnance_dice(-1, 2)


def test_8_2_volley_is_two_rank_ordnance() -> None:
    assert ordnance_dice(5, 4, volley=True) == 6
    assert ordnance_dice(5, 1, volley=True) == 5


def test_3_1_outnumbering() -> None:
    assert outnumbering_bonus(6, 4) == 2
    assert outnumbering_bonus(4, 4) == 0
    assert outnumbering_bonus(2, 5) == 0  # no direct penalty for the smaller formation
    # 8.1: ordnance shooters outnumber like bases in melee
    assert outnumbering_bonus(ordnance_dice(5, 4), 6) == 1


def test_11_3_mixed_formation_mean_resilience() -> None:
    assert mean_resilience([2, 4]) == 3  # the rulebook's R2+R4=R3
    assert mean_resilience([3, 4]) == 3  # 3.5: the lower
    assert mean_resilience([4, 4, 4]) == 4
    assert mean_resilience([3, 5, 5]) == 4  # 4.33 -> 4
    assert mean_resilience([6]) == 6
    with pytest.raises(ValueError):
        mean_resilience([])


# 10.5 panic test ---------------------------------------------------------------------------


def test_10_5_panic_keep_lower() -> None:
    r = panic_test(ScriptedDice([5, 2]), 4, purpose="panic sc_pikes")
    assert r.kept == 2 and r.outcome == "none" and r.effective_r == 4 and r.score == 2
    assert str(r.dice) == "2d6[5,2] panic sc_pikes"


def test_10_5_panic_r4_l0_all_36_outcomes() -> None:
    outcomes = Counter(panic_test(ScriptedDice(f), 4).outcome for f in _all_faces(2))
    # min of two dice: P(k) = (13 - 2k)/36 -> below 4: 11+9+7, equal: 5, above: 3+1
    assert outcomes == {"none": 27, "retreat": 5, "rout": 4}
    assert Fraction(outcomes["none"], 36) == Fraction(3, 4)


def test_10_5_panic_every_r_every_leadership() -> None:
    kept_counts = {k: 13 - 2 * k for k in range(1, 7)}
    for r in range(1, 8):
        for lead in range(4):
            got = Counter(
                panic_test(ScriptedDice(f), r, leadership=lead).outcome for f in _all_faces(2)
            )
            expected = Counter()
            for k, n in kept_counts.items():
                s = k - lead
                expected["none" if s < r else "retreat" if s == r else "rout"] += n
            assert got == expected, (r, lead)


def test_10_5_leadership_deducted_unless_routing() -> None:
    assert panic_test(ScriptedDice([5, 6]), 4, leadership=1).outcome == "retreat"
    assert panic_test(ScriptedDice([5, 6]), 4, leadership=1, routing=True).outcome == "rout"
    assert panic_test(ScriptedDice([5, 6]), 4, leadership=3).outcome == "none"


def test_10_2_11_1_r_modifiers_lower_r() -> None:
    # front rank killed (-1R) and retreating (-1R): R4 tests at R2
    r = panic_test(ScriptedDice([2, 3]), 4, modifier=-2)
    assert r.effective_r == 2 and r.outcome == "retreat"


def test_11_1_best_result_continue_retreat() -> None:
    assert panic_test(ScriptedDice([1, 1]), 4, at_best="retreat").outcome == "retreat"
    assert panic_test(ScriptedDice([6, 6]), 4, at_best="retreat").outcome == "rout"


# v0.7 rout test ----------------------------------------------------------------------------


def test_v07_5_2_one_die_against_lowest_r_limited_3_to_5() -> None:
    def outcomes(melee: int, ranged: int, **kw: object) -> list[str]:
        return [
            rout_test_v07(ScriptedDice([f]), melee, other_resilience=ranged, **kw).outcome
            for f in range(1, 7)
        ]

    n, f, r = "none", "retreat", "rout"
    assert outcomes(4, 3) == [n, n, f, r, r, r]  # lowest R3
    assert outcomes(2, 2) == [n, n, f, r, r, r]  # R2/2 counts as R3
    assert outcomes(6, 6) == [n, n, n, n, f, r]  # R6/6 counts as R5
    assert outcomes(4, 5) == [n, n, n, f, r, r]


def test_v07_5_2_roll_modifiers() -> None:
    def one(face: int, **kw: object) -> tuple[str, int]:
        res = rout_test_v07(ScriptedDice([face]), 4, **kw)
        return res.outcome, res.score

    assert one(3, seen_fleeing=1) == ("retreat", 4)
    assert one(2, seen_routing=1) == ("retreat", 4)
    assert one(2, contact_sides=2) == ("retreat", 4)
    assert one(2, rear_contact=True) == ("retreat", 4)
    assert one(6, leadership=3) == ("none", 3)
    assert one(6, leadership=3, routing=True) == ("rout", 6)  # 5.5: his own character doesn't count


def test_v07_5_3_fleeing_loss_after_the_limit() -> None:
    # R3 unit fleeing: limited to 3, then -1 -> R2
    res = rout_test_v07(ScriptedDice([2]), 3, modifier=-1)
    assert res.effective_r == 2 and res.outcome == "retreat"


def test_v07_9_1_army_morale_actual_r_minus_two_flee_on_equal_or_one_more() -> None:
    got = [
        rout_test_v07(ScriptedDice([f]), 2, army_morale=True, seen_fleeing=1).outcome
        for f in range(1, 7)
    ]
    # score = face + 1 - 2; R2 (no 3..5 limit): <2 none, 2..3 flee, >3 rout
    assert got == ["none", "none", "retreat", "retreat", "rout", "rout"]
    r6 = [rout_test_v07(ScriptedDice([f]), 6, army_morale=True).outcome for f in range(1, 7)]
    assert r6 == ["none"] * 6  # R6 is not limited to 5 here


def test_results_are_ordinary_frozen_values() -> None:
    import dataclasses

    from engine.rulesets.two_mm_earth.resolution import AttackResult, PanicResult

    a = roll_attack(ScriptedDice([4, 2]), 2, 4, purpose="x")
    assert a == AttackResult(1, a.dice, 4) and hash(a) == hash(AttackResult(1, a.dice, 4))
    p = panic_test(ScriptedDice([4, 2]), 4)
    assert p == PanicResult("none", 2, p.dice, 4, 2)
    assert str(p) == "none: score 2 vs R4 (2d6[4,2])"
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.outcome = "rout"  # type: ignore[misc]


def test_10_4_rally_test_pass_or_equal_either_r_stops_routing() -> None:
    from engine.rulesets.two_mm_earth.resolution import rally_test

    # R5/3 routing -> higher R 5 - 2 = 3; lower die - L1 joining character
    got = [rally_test(ScriptedDice([f, 6]), 5, 3, leadership=1).outcome for f in range(1, 7)]
    assert got == ["retreat"] * 4 + ["rout"] * 2  # scores 0..3 stop routing, 4..5 keep routing
    res = rally_test(ScriptedDice([3, 4]), 4, 4, modifier=-1)
    assert res.effective_r == 1 and res.outcome == "rout"


def test_v07_5_5_rally_is_a_rout_test_at_routing_r() -> None:
    from engine.rulesets.two_mm_earth.resolution import rally_test_v07

    # lower R 3 (limited 3..5), -2 routing -> R1; L2 joining character counts
    got = [rally_test_v07(ScriptedDice([f]), 3, 6, leadership=2).outcome for f in range(1, 7)]
    assert got == ["retreat"] * 3 + ["rout"] * 3
