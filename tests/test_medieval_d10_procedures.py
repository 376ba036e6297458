"""medieval-d10 dice procedures and their exact odds (FIRING CHART, MELEE CHART, Automatic
Kills, PART-DICE CHART, artillery misfires, THE MORALE TEST CHART, THE CONTROL TEST CHART,
initiative).

Exact odds are checked against hand counts written here (not the module's own arithmetic), and
the seeded simulations of the same procedures against the exact odds within four standard
errors.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import Dice, ScriptedDice
from engine.rulesets.medieval_d10.charts import (
    ArmourGrade,
    CommanderKind,
    MeleeRow,
    MissileWeapon,
    MoraleColumn,
    MoraleResult,
    RangeBand,
    TroopClass,
)
from engine.rulesets.medieval_d10.odds import (
    artillery_distribution_exact,
    casualty_distribution_exact,
    control_distribution_exact,
    expected,
    initiative_exact,
    morale_distribution_exact,
    simulate_artillery,
    simulate_casualties,
    simulate_control,
    simulate_initiative,
    simulate_morale,
)
from engine.rulesets.medieval_d10.procedures import (
    INITIATIVE_SIDES,
    Misfire,
    casualty_plan,
    control_modifier,
    control_test,
    firing_need,
    melee_need,
    misfire_check,
    morale_modifier,
    morale_test,
    roll_artillery,
    roll_casualties,
    roll_initiative,
    strength_lost_steps,
)

CLASS_FIRING = {"A": -2, "B": -1, "C": 0, "M": 0, "D": 1, "E": 2}


def _close(freq: float, p: Fraction, trials: int) -> None:
    sd = math.sqrt(float(p) * (1 - float(p)) / trials)
    assert abs(freq - float(p)) <= 4 * sd + 1e-9, (freq, float(p))


# FIRING CHART ---------------------------------------------------------------------------------


def test_firing_need_every_weapon_band_armour_and_class() -> None:
    bow = {"short": (8, 7, 6, 5, 4), "medium": (9, 8, 7, 6, 5), "long": (10, 9, 8, 7, 6)}
    fire = {"short": (7, 6, 5, 4, 3), "medium": (8, 7, 6, 5, 4), "long": (9, 8, 7, 6, 5)}
    jav = {"short": (9, 8, 7, 6, 5), "medium": (10, 9, 8, 7, 6), "long": (10, 10, 9, 8, 7)}
    art = {"short": (4,) * 5, "medium": (5,) * 5, "long": (6,) * 5}
    rows = {
        "longbow": bow,
        "light_crossbow": bow,
        "composite_bow": bow,
        "heavy_crossbow": fire,
        "arquebus": fire,
        "handgonne": fire,
        "musket": fire,
        "caliver": fire,
        "pistol": fire,
        "javelin": jav,
        "sling": jav,
        "light_field_artillery": art,
        "medium_field_artillery": art,
        "heavy_handgonne_artillery": art,
    }
    for weapon, bands in rows.items():
        for band, scores in bands.items():
            for armour, base in zip(ArmourGrade, scores, strict=True):
                for cls, mod in CLASS_FIRING.items():
                    got = firing_need(MissileWeapon(weapon), RangeBand(band), armour, cls)
                    assert got == min(10, max(2, base + mod)), (weapon, band, armour, cls)


def test_firing_modifiers_limited_to_the_weapons_the_book_names() -> None:
    heavy = ArmourGrade.HEAVY
    # "Non-Gunpowder weapons ... Shields or Pavises": bows +1, arquebus unchanged;
    # "**Heavy Crossbows should also get this modifier"
    assert firing_need(MissileWeapon.LONGBOW, RangeBand.SHORT, heavy, "C", {"shields": 1}) == 7
    assert firing_need(MissileWeapon.ARQUEBUS, RangeBand.SHORT, heavy, "C", {"shields": 1}) == 5
    hc = firing_need(MissileWeapon.HEAVY_CROSSBOW, RangeBand.SHORT, heavy, "C", {"shields": 1})
    assert hc == 6
    # 4th consecutive volley: bowmen only; resting: crossbows and firearms only
    assert (
        firing_need(MissileWeapon.LONGBOW, RangeBand.SHORT, heavy, "C", {"fourth_volley": 1}) == 7
    )
    assert (
        firing_need(MissileWeapon.ARQUEBUS, RangeBand.SHORT, heavy, "C", {"fourth_volley": 1}) == 5
    )
    assert firing_need(MissileWeapon.ARQUEBUS, RangeBand.SHORT, heavy, "C", {"resting": 1}) == 4
    assert firing_need(MissileWeapon.LONGBOW, RangeBand.SHORT, heavy, "C", {"resting": 1}) == 6
    # many modifiers together, clamped at 10
    many = {"moving_target": 1, "hard_cover": 1, "heavy_rain": 1, "under_fire": 1}
    assert firing_need(MissileWeapon.LONGBOW, RangeBand.LONG, heavy, "E", many) == 10
    with pytest.raises(ValueError, match="firing factor"):
        firing_need(MissileWeapon.LONGBOW, RangeBand.LONG, heavy, "C", {"nonesuch": 1})
    with pytest.raises(ValueError, match="troop_class"):
        firing_need(MissileWeapon.LONGBOW, RangeBand.LONG, heavy, "C", {"class_A": 1})


# MELEE CHART ----------------------------------------------------------------------------------


def test_melee_need_modifiers_and_clamp() -> None:
    base = melee_need(MeleeRow.TWO_HANDED, "C", ArmourGrade.MEDIUM)
    assert base == 5
    assert melee_need(MeleeRow.TWO_HANDED, "C", ArmourGrade.MEDIUM, {"charging": 1}) == 4
    # facing three supporting pike ranks and a formed pike front as infantry: +3 +1
    hedge = {"pike_rank": 3, "vs_formed_pike_infantry": 1}
    assert melee_need(MeleeRow.TWO_HANDED, "C", ArmourGrade.MEDIUM, hedge) == 9
    # cavalry charging into formed pike behind stakes: +2 +2 -1, from 6 (heavy lance B, heavy)
    cav = {"vs_formed_pike_cavalry": 1, "soft_cover_cavalry": 1, "charging": 1}
    assert melee_need(MeleeRow.HEAVY_LANCE, "B", ArmourGrade.HEAVY, cav) == 8
    assert melee_need(MeleeRow.HEAVY_LANCE, "A", ArmourGrade.LIGHT, {"free_hack": 1}) == 2
    assert melee_need(MeleeRow.KNIFE_CUDGEL, "E", ArmourGrade.SUPER_HEAVY, {"shields": 1}) == 10
    with pytest.raises(ValueError, match="at most 3"):
        melee_need(MeleeRow.SWORD_SPEAR_PIKE, "C", ArmourGrade.LIGHT, {"pike_rank": 4})


# Casualty dice ---------------------------------------------------------------------------------


def test_one_d10_per_five_figures_rounded_up_and_the_optional_rules() -> None:
    for figures in range(0, 61):
        plain = casualty_plan(figures)
        assert (plain.automatic, plain.dice) == (0, -(-figures // 5))
        part = casualty_plan(figures, part_dice=True)
        assert part.dice == plain.dice and part.part_figures == figures % 5
        auto = casualty_plan(figures, automatic_kills=True, part_dice=True)
        # "units with 16 to 29 figures ... only one Automatic Kill"; 30 -> two, then four d10
        assert auto.automatic == figures // 15
        assert auto.automatic + auto.dice == plain.dice
        assert auto.part_figures == figures % 5  # a part die is never exchanged
    assert casualty_plan(30, automatic_kills=True).full == 4


def test_roll_casualties_records_d10s_with_their_purpose() -> None:
    dice = Dice(11)
    r = roll_casualties(dice, 23, 6, part_dice=True, purpose="en_bows at sc_argyll")
    assert len(r.faces) == 4 and r.part_figures == 3
    assert all(d.sides == 10 for d in dice.history)
    assert str(dice.history[0]).startswith("4d10[") and "en_bows at sc_argyll kill 6+" in str(
        dice.history[0]
    )
    assert Dice(11).roll(4, "", 10).faces == r.faces  # same seed, same faces


def test_part_die_kill_is_saved_by_the_part_dice_chart() -> None:
    # 4 odd figures: save on 9+; 1 odd figure: save on 3+
    assert roll_casualties(ScriptedDice([9, 9]), 4, 5, part_dice=True).kills == 0
    assert roll_casualties(ScriptedDice([9, 8]), 4, 5, part_dice=True).kills == 1
    assert roll_casualties(ScriptedDice([9, 3]), 1, 5, part_dice=True).kills == 0
    assert roll_casualties(ScriptedDice([9, 2]), 1, 5, part_dice=True).kills == 1
    # a miss rolls no save
    miss = roll_casualties(ScriptedDice([4]), 1, 5, part_dice=True)
    assert miss.save_face is None and miss.kills == 0


def test_misfire_saving_throw_every_face() -> None:
    for first in range(2, 11):
        assert misfire_check(ScriptedDice([first])) is Misfire.FIRES
    for again in range(1, 11):
        want = Misfire.EXPLODES if again <= 3 else Misfire.MISFIRES
        assert misfire_check(ScriptedDice([1, again])) is want
    roll = roll_artillery(ScriptedDice([1, 9, 7, 3]), 2, need=4)  # misfire; fires, misses
    assert roll.misfires == (Misfire.MISFIRES, Misfire.FIRES) and roll.kills == 0


# Exact odds: casualties ------------------------------------------------------------------------


def test_casualty_odds_exact_by_hand() -> None:
    # 10 figures, need 7: two dice at 4/10
    assert casualty_distribution_exact(10, 7) == [
        Fraction(36, 100),
        Fraction(48, 100),
        Fraction(16, 100),
    ]
    # 16 figures, need 6, part dice: three full dice at 1/2, part die (1 figure) 1/2 * 2/10
    full = [Fraction(1, 8), Fraction(3, 8), Fraction(3, 8), Fraction(1, 8)]
    p = Fraction(1, 10)
    want = [full[0] * (1 - p)] + [full[k] * (1 - p) + full[k - 1] * p for k in (1, 2, 3)]
    want.append(full[3] * p)
    assert casualty_distribution_exact(16, 6, part_dice=True) == want
    # 30 figures, need 10, automatic kills: two certain kills, then four dice at 1/10
    dist = casualty_distribution_exact(30, 10, automatic_kills=True)
    assert dist[:2] == [0, 0] and dist[2] == Fraction(9, 10) ** 4
    assert expected(dist) == 2 + Fraction(4, 10)
    for figures in (1, 7, 24, 36):
        for need in range(2, 11):
            d = casualty_distribution_exact(figures, need, part_dice=True, automatic_kills=True)
            assert sum(d) == 1


def test_casualty_simulation_matches_exact() -> None:
    trials = 20_000
    exact = casualty_distribution_exact(17, 6, part_dice=True)
    sim = simulate_casualties(17, 6, part_dice=True, trials=trials, seed=5)
    for p, f in zip(exact, sim, strict=True):
        _close(f, p, trials)


def test_artillery_odds_exact_by_hand() -> None:
    # per gun: fires 9/10, kills at 5+ 6/10; explodes 1/10 * 3/10
    d = artillery_distribution_exact(2, 5)
    k = Fraction(9, 10) * Fraction(6, 10)
    assert d["kills"] == [(1 - k) ** 2, 2 * k * (1 - k), k**2]
    e = Fraction(3, 100)
    assert d["explosions"] == [(1 - e) ** 2, 2 * e * (1 - e), e**2]
    trials = 20_000
    sim = simulate_artillery(2, 5, trials=trials, seed=3)
    for p, f in zip(d["kills"], sim["kills"], strict=True):
        _close(f, p, trials)


# Morale and control tests ----------------------------------------------------------------------


def test_morale_test_every_face_and_modifier() -> None:
    # factor = (face + 1) // 2; the result read from the chart in the reason's column
    bands = [(4, 0), (2, 1), (0, 2), (-2, 3), (-4, 4), (-99, 5)]
    table = {
        MoraleColumn.RECEIVING_CHARGE: ["receive charge in good order"] * 2
        + ["receive charge in disorder"] * 2
        + ["rout when enemy makes contact"] * 2,
        MoraleColumn.OTHER: [
            "act as ordered",
            "half speed advance",
            "no advance",
            "fall back in good order",
            "fall back in disorder",
            "rout",
        ],
    }
    for column, results in table.items():
        for modifier in range(-12, 6):
            for face in range(1, 11):
                test = morale_test(ScriptedDice([face]), column, modifier)
                total = (face + 1) // 2 + modifier
                band = next(i for low, i in bands if total >= low)
                assert test.total == total and test.result is MoraleResult(results[band])


def test_morale_modifier_from_the_chart() -> None:
    # C-class pike, two friends advancing near (+2), one enemy advancing (-1), 25 % lost
    # (two full 10 %: -4), a Bold commander with them (+2)
    lost = strength_lost_steps(6, 24, 10)
    assert lost == 2
    factors = {"friend_halted_advancing": 2, "enemy_halted_advancing": 1, "per_10pct_lost": lost}
    assert morale_modifier("C", factors, CommanderKind.BOLD) == 2 - 1 - 4 + 2
    assert morale_modifier("E", {"routing": 1}) == -2 - 4
    with pytest.raises(ValueError, match="morale factor"):
        morale_modifier("C", {"nonesuch": 1})


def test_morale_odds_exact_by_hand() -> None:
    # other reasons, modifier 0: faces 1-2 total 1 (no advance), 3-6 total 2-3 (half speed),
    # 7-10 total 4-5 (act as ordered)
    assert morale_distribution_exact(MoraleColumn.OTHER, 0) == {
        MoraleResult.NO_ADVANCE: Fraction(1, 5),
        MoraleResult.HALF_SPEED: Fraction(2, 5),
        MoraleResult.ACT_AS_ORDERED: Fraction(2, 5),
    }
    # receiving a charge at -6: totals -5..-1: faces 1-6 (totals -5..-3) rout on contact,
    # 7-10 (totals -2, -1) receive in disorder
    assert morale_distribution_exact(MoraleColumn.RECEIVING_CHARGE, -6) == {
        MoraleResult.ROUT_ON_CONTACT: Fraction(3, 5),
        MoraleResult.RECEIVE_DISORDER: Fraction(2, 5),
    }
    trials = 20_000
    sim = simulate_morale(MoraleColumn.OTHER, 0, trials=trials, seed=9)
    for result, p in morale_distribution_exact(MoraleColumn.OTHER, 0).items():
        _close(sim[result], p, trials)


def test_control_test_every_face_and_modifier() -> None:
    for modifier in range(-6, 8):
        for face in range(1, 11):
            t = control_test(ScriptedDice([face]), modifier)
            assert t.passed is ((face + 1) // 2 + modifier <= 3)
    # exact: passed when factor <= 3 - modifier
    for modifier, passed in {
        -2: 1,
        0: Fraction(3, 5),
        1: Fraction(2, 5),
        2: Fraction(1, 5),
        3: 0,
    }.items():
        assert control_distribution_exact(modifier)["passed"] == passed
    trials = 20_000
    sim = simulate_control(1, trials=trials, seed=2)
    _close(sim["passed"], Fraction(2, 5), trials)


def test_control_modifier_classes_and_rash_commander() -> None:
    assert control_modifier("A", cavalry=True) == 2
    assert control_modifier("A", cavalry=False) == -2
    assert [control_modifier(c, False) for c in "BCMDE"] == [-1, 0, 0, 1, 2]
    assert control_modifier("C", False, {"commander_near": 1}) == -1
    assert control_modifier("C", False, {"commander_near": 1}, CommanderKind.RASH) == 0
    assert control_modifier("C", False, {"commander_with": 1}, CommanderKind.RASH) == 1
    assert control_modifier("D", False, {"irregular": 1, "per_20pct_lost": 2}) == 1 + 1 - 2


# Initiative ------------------------------------------------------------------------------------


def test_initiative_ties_reroll_and_d10_is_the_default() -> None:
    assert INITIATIVE_SIDES == 10
    dice = Dice(4)
    result = roll_initiative(dice, CommanderKind.BOLD, CommanderKind.RASH)
    assert all(r.sides == 10 for r in dice.history)
    a, b = result.totals
    assert a != b and result.winner == (0 if a > b else 1)
    for first, second in result.rolls[:-1]:
        assert first == second  # equal modifiers: every earlier pair tied


def test_initiative_exact_by_hand() -> None:
    # d10, Cautious (+2) vs Bold (+4): first wins when a - b >= 3 (28 pairs), ties when
    # a - b == 2 (8 pairs): 28 / 92
    assert initiative_exact(CommanderKind.CAUTIOUS, CommanderKind.BOLD) == Fraction(28, 92)
    # Exceptional (+6) vs Cautious (+2): loses when b - a >= 5 (15 pairs), ties b - a == 4 (6)
    assert initiative_exact(CommanderKind.EXCEPTIONAL, CommanderKind.CAUTIOUS) == Fraction(79, 94)
    # the d6 reading: loses only on (1, 6), ties on (1, 5), (2, 6)
    assert initiative_exact(CommanderKind.EXCEPTIONAL, CommanderKind.CAUTIOUS, sides=6) == Fraction(
        33, 34
    )
    trials = 20_000
    sim = simulate_initiative(CommanderKind.CAUTIOUS, CommanderKind.BOLD, trials=trials, seed=1)
    _close(sim, Fraction(28, 92), trials)


def test_troop_class_enum_is_the_books() -> None:
    assert [c.value for c in TroopClass] == ["A", "B", "C", "D", "E", "M"]


@settings(max_examples=60, deadline=None)
@given(
    figures=st.integers(1, 45),
    need=st.integers(2, 10),
    part=st.booleans(),
    auto=st.booleans(),
)
def test_casualty_odds_properties(figures: int, need: int, part: bool, auto: bool) -> None:
    # FIRING / MELEE CHART: a distribution; a harder score never helps; more figures never hurt
    dist = casualty_distribution_exact(figures, need, part_dice=part, automatic_kills=auto)
    assert sum(dist) == 1 and all(p >= 0 for p in dist)
    plan = casualty_plan(figures, part_dice=part, automatic_kills=auto)
    assert len(dist) == plan.automatic + plan.dice + 1
    if need < 10:
        harder = casualty_distribution_exact(
            figures, need + 1, part_dice=part, automatic_kills=auto
        )
        assert expected(harder) <= expected(dist)
    more = casualty_distribution_exact(figures + 1, need, part_dice=part, automatic_kills=auto)
    assert expected(more) >= expected(dist)
    if not part and not auto:  # plain dice: binomial mean
        assert expected(dist) == plan.dice * Fraction(11 - need, 10)


@settings(max_examples=40, deadline=None)
@given(modifier=st.integers(-10, 10), column=st.sampled_from(list(MoraleColumn)))
def test_morale_and_control_odds_properties(modifier: int, column: MoraleColumn) -> None:
    dist = morale_distribution_exact(column, modifier)
    assert sum(dist.values()) == 1
    # a better modifier never makes the best result less likely, nor a rout more likely
    better = morale_distribution_exact(column, modifier + 1)
    best = {
        MoraleColumn.RECEIVING_CHARGE: MoraleResult.RECEIVE_GOOD_ORDER,
        MoraleColumn.EVADING_CHARGE: MoraleResult.FALL_BACK_GOOD_ORDER,
        MoraleColumn.CASUALTIES_CHARGING: MoraleResult.ACT_AS_ORDERED,
        MoraleColumn.RALLY: MoraleResult.NO_ADVANCE,
        MoraleColumn.OTHER: MoraleResult.ACT_AS_ORDERED,
    }[column]
    assert better.get(best, 0) >= dist.get(best, 0)
    assert better.get(MoraleResult.ROUT, 0) <= dist.get(MoraleResult.ROUT, 0)
    # control: a higher total fails more often
    assert (
        control_distribution_exact(modifier + 1)["passed"]
        <= control_distribution_exact(modifier)["passed"]
    )
