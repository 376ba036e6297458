"""War & Conquest morale and command (``004_3e419fecf92d7f8f.txt``): exact odds against an
independent enumeration, the triggers, the phase orders, rally, last chance and the General."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from engine.dice import Dice, ScriptedDice
from engine.rulesets.war_and_conquest.morale import (
    END_PHASE,
    RESOLUTION_PHASE,
    TRIGGERS,
    TWO_MM_EARTH,
    DiceMethod,
    Discipline,
    EndStep,
    FormationKind,
    MoraleEvent,
    RallyEnemy,
    ResolutionStep,
    TestKind,
    Trigger,
    WCUnit,
    alternate,
    command_test,
    dice_method,
    engaged_failure,
    fled_through,
    flee_pursuit,
    in_general_zone,
    last_chance_to_stand,
    morale_test,
    rally_test,
    triggered,
)
from engine.rulesets.war_and_conquest.odds import (
    command_pass_chance,
    flee_destroyed_chance,
    morale_pass_chance,
)


def _enumerate(n_dice: int, target: int, hero: bool) -> Fraction:
    """The reference: every face combination, summing the two lowest, written independently of
    the engine (no ScriptedDice, no morale_test)."""
    ok = 0
    combos = list(itertools.product(range(1, 7), repeat=n_dice))
    for faces in combos:
        a, b = sorted(faces)[:2]
        ok += a + b <= target or (hero and a == b == 1)
    return Fraction(ok, len(combos))


# Morale Rules (p.22-23): 2d6 counts of totals <= MV, the textbook 1, 3, 6, 10, ... of 36.
TWO_D6_CUMULATIVE = [1, 3, 6, 10, 15, 21, 26, 30, 33, 35, 36]


@pytest.mark.parametrize("mv", range(2, 13))
def test_p22_two_d6_pass_chance_matches_enumeration(mv: int) -> None:
    exact = morale_pass_chance(mv, DiceMethod.TWO_D6)
    assert exact == _enumerate(2, mv, hero=False)
    assert exact == Fraction(TWO_D6_CUMULATIVE[mv - 2], 36)
    # Hero of the Day changes nothing where a double one already passes (MV >= 2)
    assert morale_pass_chance(mv, DiceMethod.TWO_D6, combat=True) == exact


@pytest.mark.parametrize("mv", range(2, 13))
def test_p22_three_d6_keep_two_lowest_matches_enumeration(mv: int) -> None:
    exact = morale_pass_chance(mv, DiceMethod.THREE_D6_KEEP_TWO_LOWEST)
    assert exact == _enumerate(3, mv, hero=False)
    assert exact >= morale_pass_chance(mv, DiceMethod.TWO_D6)  # keeping the lowest never hurts
    assert morale_pass_chance(mv, DiceMethod.THREE_D6_KEEP_TWO_LOWEST, combat=True) == exact


def test_p22_three_d6_known_values() -> None:
    # two lowest of 3d6: P(<= 2) = P(at least two ones) = (3*5 + 1)/216; P(<= 12) = 1
    assert morale_pass_chance(2, DiceMethod.THREE_D6_KEEP_TWO_LOWEST) == Fraction(16, 216)
    assert morale_pass_chance(12, DiceMethod.THREE_D6_KEEP_TWO_LOWEST) == 1
    # 42 of the 216 triples keep 8 or more
    assert morale_pass_chance(7, DiceMethod.THREE_D6_KEEP_TWO_LOWEST) == Fraction(174, 216)


@pytest.mark.parametrize("mv", [-2, 0, 1])
@pytest.mark.parametrize("method", list(DiceMethod))
def test_hero_of_the_day_double_one_passes_a_combat_check_below_mv_2(
    mv: int, method: DiceMethod
) -> None:
    n = int(method)
    assert morale_pass_chance(mv, method) == 0
    with_hero = morale_pass_chance(mv, method, combat=True)
    assert with_hero == _enumerate(n, mv, hero=True)
    assert with_hero == (Fraction(1, 36) if n == 2 else Fraction(16, 216))


def test_p22_which_dice() -> None:
    full = WCUnit("hird", 8, 20, 20)
    half = WCUnit("hird", 8, 10, 20)
    assert dice_method(full, TestKind.MORALE) is DiceMethod.THREE_D6_KEEP_TWO_LOWEST
    assert dice_method(full, TestKind.COMMAND) is DiceMethod.THREE_D6_KEEP_TWO_LOWEST
    assert dice_method(half, TestKind.MORALE) is DiceMethod.TWO_D6  # not over half strength
    assert dice_method(full, TestKind.RALLY) is DiceMethod.TWO_D6  # rallies use 2d6
    skirm = WCUnit("bows", 8, 12, 12, kind=FormationKind.SKIRMISH)
    assert dice_method(skirm, TestKind.MORALE) is DiceMethod.TWO_D6
    undisc = WCUnit("fyrd", 6, 30, 30, discipline=Discipline.UNDISCIPLINED)
    # "two exceptions" to the Command Tests' 3d6: undisciplined formations roll 2d6 there only
    assert dice_method(undisc, TestKind.COMMAND) is DiceMethod.TWO_D6
    assert dice_method(undisc, TestKind.MORALE) is DiceMethod.THREE_D6_KEEP_TWO_LOWEST


def test_p22_test_records_its_dice_with_purpose() -> None:
    dice = Dice(11)
    r = morale_test(dice, WCUnit("hird", 8, 20, 20))
    assert len(r.faces) == 3 and dice.history[-1].purpose == "morale hird"
    assert r.kept == tuple(sorted(r.faces)[:2])
    assert r.passed == (sum(r.kept) <= 8)


def test_command_tests_drilled_reroll_once() -> None:
    drilled = WCUnit("hird", 6, 20, 20, discipline=Discipline.DRILLED)
    r = command_test(ScriptedDice([6, 6, 5, 6, 6, 4]), drilled)
    assert not r.first.passed and r.reroll is not None and not r.passed  # 10 then 10: fails
    ordinary = WCUnit("hird", 6, 20, 20)
    r = command_test(ScriptedDice([6, 6, 5]), ordinary)
    assert r.reroll is None and not r.passed
    # drilled odds: 1 - (1 - p)^2, enumerated through command_test
    p = morale_pass_chance(6, DiceMethod.TWO_D6)
    assert command_pass_chance(6, DiceMethod.TWO_D6, Discipline.DRILLED) == 1 - (1 - p) ** 2
    assert command_pass_chance(6, DiceMethod.TWO_D6, Discipline.ORDINARY) == p


def test_triggers_are_data_with_their_distances() -> None:
    by = {t.trigger: t for t in TRIGGERS}
    assert set(by) == set(Trigger)
    assert by[Trigger.FRIEND_BROKE].within_in == 10.0
    assert by[Trigger.FRIEND_DESTROYED_FLEEING].within_in == 10.0
    assert by[Trigger.FRIEND_FLEEING].within_in == 5.0
    assert by[Trigger.GENERAL_FLEEING].within_in == 5.0
    assert by[Trigger.GENERAL_SLAIN].within_in == 10.0
    assert by[Trigger.GENERAL_SLAIN].mv_modifier == -1
    assert by[Trigger.CASUALTIES_20].within_in is None


def test_triggers_distances_and_exemptions() -> None:
    u = WCUnit("spears", 7, 20, 20)
    assert triggered(u, [MoraleEvent(Trigger.FRIEND_BROKE, 10.0)])[0]  # "<= 10"
    assert not triggered(u, [MoraleEvent(Trigger.FRIEND_BROKE, 10.1)])[0]
    # Fleeing Friends within 5": outnumbering the fleeing unit 2:1 or more ignores it
    assert not triggered(u, [MoraleEvent(Trigger.FRIEND_FLEEING, 3.0, source_strength=10)])[0]
    assert triggered(u, [MoraleEvent(Trigger.FRIEND_FLEEING, 3.0, source_strength=11)])[0]
    # battle formations ignore fleeing skirmishers; skirmishers do not
    ev = MoraleEvent(Trigger.FRIEND_FLEEING, 3.0, FormationKind.SKIRMISH, 15)
    assert not triggered(u, [ev])[0]
    assert triggered(WCUnit("bows", 7, 8, 8, kind=FormationKind.SKIRMISH), [ev])[0]
    # 20 %: unengaged only, except skirmishers hit by strikes back (p.137)
    c20 = MoraleEvent(Trigger.CASUALTIES_20, casualty_fraction=0.2)
    assert triggered(u, [c20])[0]
    assert not triggered(u, [MoraleEvent(Trigger.CASUALTIES_20, casualty_fraction=0.19)])[0]
    engaged = MoraleEvent(
        Trigger.CASUALTIES_20, casualty_fraction=0.3, engaged=True, from_strikes_back=True
    )
    assert not triggered(u, [engaged])[0]
    assert triggered(WCUnit("bows", 7, 8, 8, kind=FormationKind.SKIRMISH), [engaged])[0]


def test_one_test_covers_all_circumstances() -> None:
    u = WCUnit("spears", 7, 20, 20)
    events = [
        MoraleEvent(Trigger.GENERAL_SLAIN, 4.0),
        MoraleEvent(Trigger.GENERAL_SLAIN, 6.0),
        MoraleEvent(Trigger.FRIEND_BROKE, 2.0),
        MoraleEvent(Trigger.GENERAL_FLEEING, 4.0),
    ]
    found, mod = triggered(u, events)
    assert found == (Trigger.GENERAL_SLAIN, Trigger.FRIEND_BROKE, Trigger.GENERAL_FLEEING)
    assert mod == -1  # counted once
    assert triggered(u, events, failed_rally=True) == ((), 0)


def test_resolution_and_end_phase_orders() -> None:
    assert RESOLUTION_PHASE == (ResolutionStep.MORALE_TESTS, ResolutionStep.PURSUIT_AND_FLEE)
    assert END_PHASE[0] is EndStep.RALLY and END_PHASE[-1] is EndStep.END_GAME_CHECK
    assert [s.value for s in END_PHASE] == [1, 2, 3, 4, 5]
    # Strategic Advantage chooses first, then alternate
    assert alternate(["a1", "a2"], ["b1", "b2", "b3"]) == ["a1", "b1", "a2", "b2", "b3"]


def test_flee_pursuit_rolloff_ties_destroy_and_exact_odds() -> None:
    assert flee_pursuit(ScriptedDice([2, 3, 1, 4]), "f", "p").destroyed  # 5 <= 5
    assert not flee_pursuit(ScriptedDice([6, 3, 1, 4]), "f", "p").destroyed
    ties = sum(a + b == c + d for a, b, c, d in itertools.product(range(1, 7), repeat=4))
    assert flee_destroyed_chance() == (1 + Fraction(ties, 1296)) / 2


def test_failing_while_engaged() -> None:
    won = engaged_failure(won_combat=True, combat_continues=False)
    assert not won.may_pursue and not won.flees
    goes_on = engaged_failure(won_combat=False, combat_continues=True)
    assert goes_on.enemy_bonus_next_round == 1 and not goes_on.flees


def test_friends_flee_through_battle_formation_command_test() -> None:
    disordered, test = fled_through(ScriptedDice([2, 3, 6]), WCUnit("spears", 7, 20, 20))
    assert not disordered and test is not None and test.first.total == 5
    skirm = WCUnit("bows", 7, 8, 8, kind=FormationKind.SKIRMISH)
    assert fled_through(ScriptedDice([]), skirm) == (False, None)


def test_rally_minus_one_per_enemy_within_10_and_general() -> None:
    u = WCUnit("spears", 8, 9, 20, fleeing=True)
    enemies = [RallyEnemy(9.9), RallyEnemy(5.0), RallyEnemy(10.1), RallyEnemy(2.0, in_combat=True)]
    r = rally_test(ScriptedDice([3, 4]), u, enemies)
    assert r.kind is TestKind.RALLY and len(r.faces) == 2 and r.target == 6 and not r.passed
    r = rally_test(ScriptedDice([3, 4]), u, enemies, general_in_zone=True)
    assert r.target == 7 and r.passed


def test_last_chance_to_stand_at_mv_minus_one() -> None:
    u = WCUnit("spears", 8, 9, 20, fleeing=True)
    assert last_chance_to_stand(ScriptedDice([4, 3]), u).test.target == 7
    assert not last_chance_to_stand(ScriptedDice([4, 4]), u).stands


def test_general_zone_of_command_in_ground_metres() -> None:
    # 10" at 2mm Earth's 1 mm = 1 m is 254 m of ground
    assert TWO_MM_EARTH.metres(10.0) == pytest.approx(254.0)
    assert in_general_zone((100.0, 100.0), (100.0 + 254.0, 100.0), TWO_MM_EARTH)
    assert not in_general_zone((100.0, 100.0), (100.0 + 255.0, 100.0), TWO_MM_EARTH)
