"""The medieval d10 game's dice procedures as pure functions of one :class:`engine.dice.Dice`.

Each takes the dice, rolls what the book says in the order it says, records every roll with its
purpose, and returns a frozen result; the odds module runs the very same functions on
:class:`~engine.dice.ScriptedDice` to enumerate exact odds.

- FIRING CHART / MELEE CHART: :func:`firing_need`, :func:`melee_need`, :func:`roll_casualties`
  (a d10 per five figures, Automatic Kills, Part-Dice), :func:`roll_artillery` (one d10 per gun
  after its misfire saving throw, :func:`misfire_check`)
- THE MORALE TEST CHART / MORALE TEST RESULT: :func:`morale_modifier`, :func:`morale_test`
- THE CONTROL TEST CHART: :func:`control_modifier`, :func:`control_test`
- Initiative: :func:`roll_initiative` (a d10 each, ties re-rolled; see INITIATIVE_SIDES)

>>> from engine.dice import ScriptedDice
>>> roll_casualties(ScriptedDice([7, 2, 9, 4]), 16, need=7).kills     # 4 dice, 7+ kills
2
>>> morale_test(ScriptedDice([6]), MoraleColumn.RECEIVING_CHARGE, modifier=-2).result
<MoraleResult.RECEIVE_DISORDER: 'receive charge in disorder'>
>>> control_test(ScriptedDice([3]), modifier=+2).passed                # factor 2 + 2 = 4
False
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from engine.dice import Dice
from engine.rulesets.medieval_d10.charts import (
    AUTOMATIC_KILL_FIGURES,
    COMMANDER_MORALE_VALUE,
    CONTROL_FACTORS,
    CONTROL_RASH_COMMANDER,
    FIGURES_PER_DIE,
    FIRING_MODIFIERS,
    FIRING_ROW_OF,
    INITIATIVE_MODIFIER,
    MAX_PIKE_SUPPORT_RANKS,
    MELEE_MODIFIERS,
    MISFIRE_RESULTS,
    MORALE_FACTORS,
    PART_DICE_SAVE,
    ArmourGrade,
    CommanderKind,
    Factor,
    MeleeRow,
    MissileWeapon,
    MoraleColumn,
    MoraleResult,
    RangeBand,
    TroopClass,
    clamp_score,
    control_passed,
    factor_for_face,
    firing_score,
    melee_score,
    morale_result,
)

__all__ = [
    "D10",
    "INITIATIVE_SIDES",
    "ArtilleryRoll",
    "CasualtyPlan",
    "CasualtyRoll",
    "ControlTest",
    "Initiative",
    "Misfire",
    "MoraleTest",
    "casualty_plan",
    "control_modifier",
    "control_test",
    "firing_need",
    "melee_need",
    "misfire_check",
    "morale_modifier",
    "morale_test",
    "roll_artillery",
    "roll_casualties",
    "roll_initiative",
    "strength_lost_steps",
]

D10 = 10

#: Initiative: the GAME TURN SEQUENCE CHART says "one d10", the paragraph under it "one d6". We
#: roll a d10 like every other die of the game (docs/rules-interpretations.md); the odds module
#: answers for either.
INITIATIVE_SIDES = 10


def _sum_factors(
    table: Mapping[str, Factor], factors: Mapping[str, int], what: str
) -> list[tuple[Factor, int]]:
    """The printed lines that apply, with their counts; an unknown key is an error."""
    out: list[tuple[Factor, int]] = []
    for key, count in factors.items():
        if key not in table:
            raise ValueError(f"expected a {what} factor ({', '.join(table)}), got {key!r}")
        if count < 0:
            raise ValueError(f"expected a count >= 0 for {what} factor {key!r}, got {count}")
        if count:
            out.append((table[key], int(count)))
    return out


def _total(lines: list[tuple[Factor, int]]) -> int:
    return sum(f.value * n for f, n in lines)


# FIRING CHART ---------------------------------------------------------------------------------

# Lines that the book limits to some weapons or shooters.
_NON_GUNPOWDER_ONLY = frozenset({"barded_horses", "shields"})
_BOWMEN = frozenset({MissileWeapon.LONGBOW, MissileWeapon.COMPOSITE_BOW})
_RESTABLE = frozenset(
    {
        MissileWeapon.LIGHT_CROSSBOW,
        MissileWeapon.HEAVY_CROSSBOW,
        MissileWeapon.ARQUEBUS,
        MissileWeapon.CALIVER,
        MissileWeapon.MUSKET,
        MissileWeapon.HANDGONNE,
    }
)


def firing_need(
    weapon: MissileWeapon,
    band: RangeBand,
    armour: ArmourGrade,
    troop_class: TroopClass | str,
    factors: Mapping[str, int] | None = None,
) -> int:
    """FIRING CHART: the modified minimum d10 to kill, kept within 2..10.

    ``factors`` names the modifier lines that apply (:data:`FIRING_MODIFIERS` keys, count 1;
    the troop-class line comes from ``troop_class``). "Non-Gunpowder weapons" lines are
    ignored for gunpowder weapons; the 4th-volley line applies to bowmen only; resting applies to
    crossbows and firearms only.

    >>> firing_need(MissileWeapon.LONGBOW, RangeBand.LONG, ArmourGrade.HEAVY, "C")
    8
    >>> firing_need(MissileWeapon.LONGBOW, RangeBand.SHORT, ArmourGrade.LIGHT, "A")  # 4-2 -> 2
    2
    >>> firing_need(MissileWeapon.ARQUEBUS, RangeBand.SHORT, ArmourGrade.HEAVY, "C",
    ...             {"shields": 1, "first_shot": 1})
    4
    """
    weapon = MissileWeapon(weapon)
    chosen = dict(factors or {})
    if weapon.is_gunpowder:
        for key in _NON_GUNPOWDER_ONLY:
            chosen.pop(key, None)
    if weapon not in _BOWMEN:
        chosen.pop("fourth_volley", None)
    if weapon not in _RESTABLE:
        chosen.pop("resting", None)
    if any(k.startswith("class_") for k in chosen):
        raise ValueError("the troop-class line comes from troop_class, not from factors")
    chosen[f"class_{TroopClass(troop_class).value}"] = 1
    base = firing_score(FIRING_ROW_OF[weapon], RangeBand(band), ArmourGrade(armour))
    return clamp_score(base + _total(_sum_factors(FIRING_MODIFIERS, chosen, "firing")))


# MELEE CHART ----------------------------------------------------------------------------------


def melee_need(
    row: MeleeRow,
    troop_class: TroopClass | str,
    armour: ArmourGrade,
    factors: Mapping[str, int] | None = None,
) -> int:
    """MELEE CHART: the modified minimum d10 to kill, kept within 2..10. ``pike_rank`` counts
    each supporting pike rank faced (at most 3: pikes deploy up to 4 ranks deep).

    >>> melee_need(MeleeRow.HEAVY_LANCE, "A", ArmourGrade.LIGHT, {"charging": 1})   # 2-1 -> 2
    2
    >>> melee_need(MeleeRow.SWORD_SPEAR_PIKE, "B", ArmourGrade.MEDIUM, {"pike_rank": 3})  # 6+3
    9
    """
    chosen = dict(factors or {})
    if chosen.get("pike_rank", 0) > MAX_PIKE_SUPPORT_RANKS:
        raise ValueError(
            f"expected at most {MAX_PIKE_SUPPORT_RANKS} supporting pike ranks, "
            f"got {chosen['pike_rank']}"
        )
    base = melee_score(MeleeRow(row), troop_class, ArmourGrade(armour))
    lines = _sum_factors(MELEE_MODIFIERS, chosen, "melee")
    played = sum(MELEE_PLAYED_VALUE.get(f.key, f.value) * n for f, n in lines)
    return clamp_score(base + played)


#: MELEE CHART lines played at another value than printed. "If your unit has any COMMANDER or
#: INSPIRATIONAL figure in the front rank +1" stands among the "If your unit ..." lines whose
#: sign is their effect on the unit's own score needed (CHARGING -1, PUSHED-BACK +1): as
#: printed a leader in the front rank would make his own men kill less, which every other
#: chart of the book contradicts (THE MORALE and CONTROL TEST CHARTS count a commander with
#: the unit in its favour). A table plays the +1 as a help to the unit: one off the score it
#: needs (docs/rules-interpretations.md, "MELEE CHART: a commander in the front rank helps").
MELEE_PLAYED_VALUE: dict[str, int] = {"commander_front_rank": -1}


# Casualty dice --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CasualtyPlan:
    """How a unit's figures turn into dice: automatic kills, full d10s, and the part die's
    figures (0: no part die)."""

    automatic: int
    full: int
    part_figures: int

    @property
    def dice(self) -> int:
        return self.full + (1 if self.part_figures else 0)


def casualty_plan(
    figures: int, *, automatic_kills: bool = False, part_dice: bool = False
) -> CasualtyPlan:
    """One d10 per five figures, rounded up; the optional rules change some of them.

    Part-Dice: the odd 1-4 figures' die is a part die (its kill may be saved). Automatic Kills:
    each 15 figures trade one full d10 for a kill (a part die is never traded).

    >>> casualty_plan(16)
    CasualtyPlan(automatic=0, full=4, part_figures=0)
    >>> casualty_plan(16, part_dice=True)
    CasualtyPlan(automatic=0, full=3, part_figures=1)
    >>> casualty_plan(30, automatic_kills=True)
    CasualtyPlan(automatic=2, full=4, part_figures=0)
    >>> casualty_plan(29, automatic_kills=True)
    CasualtyPlan(automatic=1, full=5, part_figures=0)
    """
    if figures < 0:
        raise ValueError(f"expected figures >= 0, got {figures}")
    part = figures % FIGURES_PER_DIE if part_dice else 0
    full = figures // FIGURES_PER_DIE if part_dice else math.ceil(figures / FIGURES_PER_DIE)
    auto = figures // AUTOMATIC_KILL_FIGURES if automatic_kills else 0
    return CasualtyPlan(auto, full - auto, part)


@dataclass(frozen=True, slots=True)
class CasualtyRoll:
    """A casualty roll: the score needed, the automatic kills, the full dice, the part die and
    the enemy's saving throw against it (None when not rolled), and the figures killed."""

    need: int
    automatic: int
    faces: tuple[int, ...]
    part_figures: int = 0
    part_face: int | None = None
    save_face: int | None = None

    @property
    def part_kill(self) -> bool:
        if self.part_face is None or self.part_face < self.need:
            return False
        return self.save_face is None or self.save_face < PART_DICE_SAVE[self.part_figures]

    @property
    def kills(self) -> int:
        return self.automatic + sum(1 for f in self.faces if f >= self.need) + int(self.part_kill)


def roll_casualties(
    dice: Dice,
    figures: int,
    need: int,
    *,
    automatic_kills: bool = False,
    part_dice: bool = False,
    purpose: str = "",
) -> CasualtyRoll:
    """FIRING / MELEE CHART: roll one d10 per five figures (rounded up); each scoring ``need``
    or more kills a figure. With Part-Dice, a kill by the part die is saved by the enemy's d10
    scoring the PART-DICE CHART's number; with Automatic Kills (melee), each 15 figures kill one
    without rolling.

    >>> from engine.dice import ScriptedDice
    >>> r = roll_casualties(ScriptedDice([8, 8, 8, 9, 2]), 16, 8, part_dice=True)
    >>> r.faces, r.part_face, r.save_face, r.kills       # 1-figure part die, save needs 3+
    ((8, 8, 8), 9, 2, 4)
    >>> roll_casualties(ScriptedDice([1, 1]), 15, 8, automatic_kills=True).kills
    1
    """
    if not 2 <= need <= 10:
        raise ValueError(f"expected a kill score 2..10 (clamped), got {need}")
    plan = casualty_plan(figures, automatic_kills=automatic_kills, part_dice=part_dice)
    faces = dice.roll(plan.full, f"{purpose} kill {need}+".strip(), D10).faces
    part_face = save_face = None
    if plan.part_figures:
        (part_face,) = dice.roll(1, f"{purpose} part-die {need}+".strip(), D10).faces
        if part_face >= need:
            save = PART_DICE_SAVE[plan.part_figures]
            (save_face,) = dice.roll(1, f"{purpose} part-die save {save}+".strip(), D10).faces
    return CasualtyRoll(need, plan.automatic, faces, plan.part_figures, part_face, save_face)


class Misfire(StrEnum):
    """Outcome of an artillery gun's misfire saving throw (Firing Ranges Chart note)."""

    FIRES = "fires"
    MISFIRES = "misfires"
    EXPLODES = "explodes"


def misfire_check(dice: Dice, purpose: str = "") -> Misfire:
    """Firing Ranges Chart "*": a d10 saving throw; a 1 is re-rolled: 1-3 the gun explodes,
    otherwise it misfires (no re-fire until next Game Turn).

    >>> from engine.dice import ScriptedDice
    >>> [misfire_check(ScriptedDice(f)) for f in ([2], [1, 3], [1, 4])]
    [<Misfire.FIRES: 'fires'>, <Misfire.EXPLODES: 'explodes'>, <Misfire.MISFIRES: 'misfires'>]
    """
    (face,) = dice.roll(1, f"{purpose} misfire".strip(), D10).faces
    if face in MISFIRE_RESULTS["fires"]:
        return Misfire.FIRES
    (again,) = dice.roll(1, f"{purpose} misfire re-roll".strip(), D10).faces
    return Misfire.EXPLODES if again in MISFIRE_RESULTS["explodes"] else Misfire.MISFIRES


@dataclass(frozen=True, slots=True)
class ArtilleryRoll:
    """Each gun's misfire outcome and, for guns that fired, its kill die."""

    need: int
    misfires: tuple[Misfire, ...]
    faces: tuple[int, ...]

    @property
    def kills(self) -> int:
        return sum(1 for f in self.faces if f >= self.need)

    @property
    def exploded(self) -> int:
        return sum(1 for m in self.misfires if m is Misfire.EXPLODES)


def roll_artillery(dice: Dice, guns: int, need: int, purpose: str = "") -> ArtilleryRoll:
    """FIRING CHART: "one d10 per artillery gun model", each after its misfire saving throw.

    >>> from engine.dice import ScriptedDice
    >>> r = roll_artillery(ScriptedDice([5, 4, 1, 2]), 2, need=4)   # gun 1 fires, kills on 4
    >>> r.misfires, r.faces, r.kills, r.exploded
    ((<Misfire.FIRES: 'fires'>, <Misfire.EXPLODES: 'explodes'>), (4,), 1, 1)
    """
    if not 2 <= need <= 10:
        raise ValueError(f"expected a kill score 2..10 (clamped), got {need}")
    misfires: list[Misfire] = []
    faces: list[int] = []
    for gun in range(1, guns + 1):
        outcome = misfire_check(dice, f"{purpose} gun {gun}".strip())
        misfires.append(outcome)
        if outcome is Misfire.FIRES:
            faces.extend(dice.roll(1, f"{purpose} gun {gun} kill {need}+".strip(), D10).faces)
    return ArtilleryRoll(need, tuple(misfires), tuple(faces))


# MORALE and CONTROL TESTS ---------------------------------------------------------------------


def strength_lost_steps(lost: int, original: int, percent: int) -> int:
    """How many full ``percent`` steps of the original figure strength are lost ("Each full 10%"
    in the morale test, "Each full 20%" in the control test).

    >>> strength_lost_steps(5, 24, 10), strength_lost_steps(5, 24, 20)    # 20.8 %
    (2, 1)
    """
    if original <= 0 or not 0 <= lost <= original:
        raise ValueError(f"expected 0 <= lost <= original > 0, got {lost} of {original}")
    return (lost * 100) // (original * percent)


def morale_factors(
    troop_class: TroopClass | str,
    factors: Mapping[str, int] | None = None,
    commander_with: CommanderKind | None = None,
) -> list[tuple[Factor, int]]:
    """THE MORALE TEST CHART lines that apply, with counts (for the log)."""
    chosen = dict(factors or {})
    if any(k.startswith("class_") or k == "commander_with" for k in chosen):
        raise ValueError("class and commander-with lines come from troop_class / commander_with")
    chosen[f"class_{TroopClass(troop_class).value}"] = 1
    lines = _sum_factors(MORALE_FACTORS, chosen, "morale")
    if commander_with is not None:
        value = COMMANDER_MORALE_VALUE[CommanderKind(commander_with)]
        base = MORALE_FACTORS["commander_with"]
        lines.append((Factor(base.key, f"{base.text} ({commander_with.value})", value), 1))
    return lines


def morale_modifier(
    troop_class: TroopClass | str,
    factors: Mapping[str, int] | None = None,
    commander_with: CommanderKind | None = None,
) -> int:
    """THE MORALE TEST CHART: the sum of the plus and minus factors. ``factors`` maps
    :data:`MORALE_FACTORS` keys to counts ("Each friendly unit ..." lines count per unit);
    the class line comes from ``troop_class``, the "+?" commander line from ``commander_with``.

    >>> morale_modifier("B", {"friend_halted_advancing": 2, "per_10pct_lost": 1},
    ...                 commander_with=CommanderKind.EXCEPTIONAL)      # 1 + 2 - 2 + 3
    4
    """
    return _total(morale_factors(troop_class, factors, commander_with))


@dataclass(frozen=True, slots=True)
class MoraleTest:
    """A morale test: the d10, its factor, the modifiers, the total and the chart's result."""

    column: MoraleColumn
    face: int
    modifier: int
    result: MoraleResult

    @property
    def factor(self) -> int:
        return factor_for_face(self.face)

    @property
    def total(self) -> int:
        return self.factor + self.modifier


def morale_test(
    dice: Dice, column: MoraleColumn, modifier: int = 0, purpose: str = ""
) -> MoraleTest:
    """THE MORALE TEST CHART: one d10 gives a +1..+5 factor, plus ``modifier``; the MORALE TEST
    RESULT chart reads the total in the column of the test's reason."""
    column = MoraleColumn(column)
    (face,) = dice.roll(1, f"{purpose} morale".strip(), D10).faces
    total = factor_for_face(face) + modifier
    return MoraleTest(column, face, modifier, morale_result(column, total))


_CLASS_CONTROL = {
    TroopClass.B: "class_B",
    TroopClass.C: "class_C",
    TroopClass.M: "class_M",
    TroopClass.D: "class_D",
    TroopClass.E: "class_E",
}


def control_factors(
    troop_class: TroopClass | str,
    cavalry: bool,
    factors: Mapping[str, int] | None = None,
    commander: CommanderKind | None = None,
) -> list[tuple[Factor, int]]:
    """THE CONTROL TEST CHART lines that apply, with counts. ``commander`` is the kind of the
    commander figure counted by ``commander_near`` / ``commander_with`` (Rash re-classes them)."""
    chosen = dict(factors or {})
    if any(k.startswith("class_") or k in ("a_cavalry", "a_infantry") for k in chosen):
        raise ValueError("the class line comes from troop_class and cavalry")
    tc = TroopClass(troop_class)
    if tc is TroopClass.A:
        chosen["a_cavalry" if cavalry else "a_infantry"] = 1
    else:
        chosen[_CLASS_CONTROL[tc]] = 1
    lines = _sum_factors(CONTROL_FACTORS, chosen, "control")
    if commander is CommanderKind.RASH:
        lines = [
            (Factor(f.key, f"{f.text} (Rash)", CONTROL_RASH_COMMANDER[f.key]), n)
            if f.key in CONTROL_RASH_COMMANDER
            else (f, n)
            for f, n in lines
        ]
    return lines


def control_modifier(
    troop_class: TroopClass | str,
    cavalry: bool,
    factors: Mapping[str, int] | None = None,
    commander: CommanderKind | None = None,
) -> int:
    """THE CONTROL TEST CHART: the sum of the plus and minus factors.

    >>> control_modifier("A", cavalry=True, factors={"enemy_halted_advancing": 1})
    3
    >>> control_modifier("C", False, {"commander_with": 1}, CommanderKind.RASH)   # -2 -> +1
    1
    """
    return _total(control_factors(troop_class, cavalry, factors, commander))


@dataclass(frozen=True, slots=True)
class ControlTest:
    """A control test: the d10, the modifiers, the total; passed at 3 or lower."""

    face: int
    modifier: int

    @property
    def factor(self) -> int:
        return factor_for_face(self.face)

    @property
    def total(self) -> int:
        return self.factor + self.modifier

    @property
    def passed(self) -> bool:
        return control_passed(self.total)


def control_test(dice: Dice, modifier: int = 0, purpose: str = "") -> ControlTest:
    """THE CONTROL TEST CHART: one d10 factor plus ``modifier``; 3 or lower passes, 4 or higher
    fails (the unit follows up or charges impetuously)."""
    (face,) = dice.roll(1, f"{purpose} control".strip(), D10).faces
    return ControlTest(face, modifier)


# Initiative -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Initiative:
    """Initiative rolls (first side, second side) until the totals differ; ``winner`` is 0 for
    the first side, 1 for the second. The winner chooses to be side A or B."""

    rolls: tuple[tuple[int, int], ...]
    modifiers: tuple[int, int]

    @property
    def totals(self) -> tuple[int, int]:
        a, b = self.rolls[-1]
        return a + self.modifiers[0], b + self.modifiers[1]

    @property
    def winner(self) -> int:
        a, b = self.totals
        return 0 if a > b else 1


def roll_initiative(
    dice: Dice,
    first: CommanderKind | None,
    second: CommanderKind | None,
    sides: int = INITIATIVE_SIDES,
    purpose: str = "",
) -> Initiative:
    """Initiative: each side rolls one die and adds its (most senior) commander's modifier;
    "If both sides have the same Initiative score, both sides roll their dice again."

    >>> from engine.dice import ScriptedDice
    >>> i = roll_initiative(ScriptedDice([3, 1, 5, 9]), CommanderKind.BOLD, CommanderKind.RASH)
    >>> i.rolls, i.totals, i.winner               # 3+4 vs 1+4: the first side wins
    (((3, 1),), (7, 5), 0)
    >>> roll_initiative(ScriptedDice([1, 5, 6, 2]), CommanderKind.EXCEPTIONAL,
    ...                 CommanderKind.CAUTIOUS).rolls         # 1+6 = 5+2: rolled again
    ((1, 5), (6, 2))
    """
    # a side whose commanders have all fallen rolls with no modifier (None)
    mods = tuple(0 if k is None else INITIATIVE_MODIFIER[CommanderKind(k)] for k in (first, second))
    rolls: list[tuple[int, int]] = []
    while True:
        a, b = dice.roll(2, f"{purpose} initiative".strip(), sides).faces
        rolls.append((a, b))
        if a + mods[0] != b + mods[1]:
            return Initiative(tuple(rolls), (mods[0], mods[1]))
