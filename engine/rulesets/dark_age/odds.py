"""Exact odds of a Dark Age move roll (5.9-5.13): the allowance in javelin throws and the chance
of a DP, each face of the move die run through :func:`roll_move` itself.

>>> d = move_distribution(Troop.HEAVY_INFANTRY, Grade.A, Formation.SHIELDWALL)
>>> d.allowance, d.dp_chance                    # AvD 2,3,3,4,4,5 less one; DP on the 5
({1: Fraction(1, 6), 2: Fraction(1, 3), 3: Fraction(1, 3), 4: Fraction(1, 6)}, Fraction(1, 6))
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from engine.dice import ScriptedDice
from engine.rulesets.dark_age.formations import Formation, Grade, Troop
from engine.rulesets.dark_age.movement import MoveKind, move_die, roll_move

__all__ = ["MoveDistribution", "move_distribution"]


@dataclass(frozen=True)
class MoveDistribution:
    allowance: dict[int, Fraction]  # P(must move k jt)
    dp_chance: Fraction  # P(at least one DP from the roll)
    mean_jt: Fraction


def move_distribution(
    troop: Troop,
    grade: Grade,
    formation: Formation,
    kind: MoveKind = MoveKind.NORMAL,
    *,
    difficult: bool = False,
) -> MoveDistribution:
    """Exact distribution of the compulsory move (``Allowance.least``) and the DP chance."""
    die = move_die(troop, grade, kind, formation)
    sides = range(1, (die.sides if die else 1) + 1)
    counts: Counter[int] = Counter()
    dp = 0
    for side in sides:
        r = roll_move(
            ScriptedDice([side] if die else []), troop, grade, formation, kind, difficult=difficult
        )
        counts[r.allowance.least] += 1
        dp += r.dps > 0
    n = len(sides)
    dist = {k: Fraction(v, n) for k, v in sorted(counts.items())}
    return MoveDistribution(
        dist, Fraction(dp, n), sum((k * p for k, p in dist.items()), Fraction(0))
    )
