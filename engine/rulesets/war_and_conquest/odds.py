"""Exact odds of the War & Conquest procedures, every face combination run through the procedure
itself on :class:`~engine.dice.ScriptedDice` (so the odds cannot drift from the rules code).

>>> morale_pass_chance(7, DiceMethod.TWO_D6)
Fraction(7, 12)
>>> morale_pass_chance(1, DiceMethod.THREE_D6_KEEP_TWO_LOWEST, combat=True)   # Hero of the Day
Fraction(2, 27)
>>> flee_destroyed_chance()                 # (1 + P(tie) 146/1296) / 2
Fraction(721, 1296)
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from engine.dice import ScriptedDice
from engine.rulesets.war_and_conquest.morale import (
    FLEE_PURSUIT_DICE,
    DiceMethod,
    Discipline,
    FormationKind,
    WCUnit,
    command_test,
    flee_pursuit,
    morale_test,
)

__all__ = ["command_pass_chance", "flee_destroyed_chance", "morale_pass_chance"]


def _unit(method: DiceMethod, discipline: Discipline = Discipline.ORDINARY) -> WCUnit:
    """A unit that rolls ``method``: a full battle formation, or a skirmish formation."""
    kind = (
        FormationKind.BATTLE
        if method is DiceMethod.THREE_D6_KEEP_TWO_LOWEST
        else FormationKind.SKIRMISH
    )
    return WCUnit("odds", 0, 10, 10, kind=kind, discipline=discipline)


def morale_pass_chance(target: int, method: DiceMethod, *, combat: bool = False) -> Fraction:
    """P(a morale test against modified MV ``target`` passes), Hero of the Day with ``combat``."""
    unit = _unit(method)
    combos = list(itertools.product(range(1, 7), repeat=int(method)))
    passed = sum(morale_test(ScriptedDice(f), unit, target, combat=combat).passed for f in combos)
    return Fraction(passed, len(combos))


def command_pass_chance(target: int, method: DiceMethod, discipline: Discipline) -> Fraction:
    """P(a Command Test passes), drilled troops' re-roll included.

    >>> command_pass_chance(7, DiceMethod.TWO_D6, Discipline.DRILLED)    # 1 - (5/12)**2
    Fraction(119, 144)
    """
    unit = _unit(method, discipline)
    n = int(method)
    rolls = 2 if discipline is Discipline.DRILLED else 1
    combos = list(itertools.product(range(1, 7), repeat=n * rolls))
    passed = sum(command_test(ScriptedDice(f), unit, target).passed for f in combos)
    return Fraction(passed, len(combos))


def flee_destroyed_chance(
    flee_dice: int = FLEE_PURSUIT_DICE, pursue_dice: int = FLEE_PURSUIT_DICE
) -> Fraction:
    """P(a fleeing unit rolls <= its pursuer and is destroyed)."""
    combos = list(itertools.product(range(1, 7), repeat=flee_dice + pursue_dice))
    hit = sum(
        flee_pursuit(ScriptedDice(f), "f", "p", flee_dice, pursue_dice).destroyed for f in combos
    )
    return Fraction(hit, len(combos))
