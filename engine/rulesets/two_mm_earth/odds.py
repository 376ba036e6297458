"""Exact and simulated odds of the rules' dice: attack hits (2.3) and panic tests (10.5).

The exact figures are computed, not sampled: attack hits are binomial in the chance of one die
(``Fraction``), and a panic test is enumerated over every face combination by running the
ruleset's own ``panic_test`` on :class:`~engine.dice.ScriptedDice`, so the odds can never drift
from the procedure the engine uses. The simulated figures run the same ``roll_attack`` /
``panic_test`` through a seeded :class:`~engine.dice.Dice` ``trials`` times.

>>> attack_distribution(3, 4)                       # 3 dice needing 4+: binomial(3, 1/2)
[0.125, 0.375, 0.375, 0.125]
>>> attack_distribution_exact(2, 5, modifier=-1)     # need 6: 1/6 per die
[Fraction(25, 36), Fraction(5, 18), Fraction(1, 36)]
>>> panic_distribution_exact(4)
{'none': Fraction(3, 4), 'retreat': Fraction(5, 36), 'rout': Fraction(1, 9)}
>>> panic_distribution(4, ruleset="2mm-earth-v0.7")
{'none': 0.5, 'retreat': 0.16666666666666666, 'rout': 0.3333333333333333}
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from engine.dice import Dice, ScriptedDice
from engine.rulesets import Ruleset, get_ruleset
from engine.rulesets.two_mm_earth import MoraleSituation, TwoMmEarth
from engine.rulesets.two_mm_earth.resolution import PANIC_OUTCOMES, attack_need, roll_attack
from scenario_builder.errors import RulesetError

__all__ = [
    "at_least",
    "attack_distribution",
    "attack_distribution_exact",
    "expected_hits",
    "hit_chance",
    "morale_distribution",
    "panic_distribution",
    "panic_distribution_exact",
    "simulate_attack",
    "simulate_panic",
    "two_mm_ruleset",
]

# Trials between clearing the recording generator's history: keeps a million-trial run small.
_CLEAR_EVERY = 4096


def hit_chance(resilience: int, modifier: int = 0) -> Fraction:
    """2.3: the chance one die hits R with the die ``modifier`` (no natural 6: a need of 7+
    cannot be met).

    >>> hit_chance(4), hit_chance(7), hit_chance(3, -1), hit_chance(6, -1)
    (Fraction(1, 2), Fraction(0, 1), Fraction(1, 2), Fraction(0, 1))
    """
    return Fraction(max(0, 7 - attack_need(resilience, modifier)), 6)


def attack_distribution_exact(n_dice: int, resilience: int, modifier: int = 0) -> list[Fraction]:
    """P(k hits) for k = 0..n_dice, exactly."""
    if n_dice < 0:
        raise ValueError(f"expected n_dice >= 0, got {n_dice}")
    p = hit_chance(resilience, modifier)
    q = 1 - p
    return [math.comb(n_dice, k) * p**k * q ** (n_dice - k) for k in range(n_dice + 1)]


def attack_distribution(n_dice: int, resilience: int, modifier: int = 0) -> list[float]:
    """P(k hits) for k = 0..n_dice (binomial over the dice)."""
    return [float(x) for x in attack_distribution_exact(n_dice, resilience, modifier)]


def at_least(dist: Sequence[float | Fraction]) -> list[float | Fraction]:
    """P(>= k) from P(k).

    >>> at_least([0.25, 0.5, 0.25])
    [1.0, 0.75, 0.25]
    """
    out: list[float | Fraction] = []
    total = 0 * dist[0] if dist else 0
    for p in reversed(dist):
        total += p
        out.append(total)
    return out[::-1]


def expected_hits(dist: Sequence[float | Fraction]) -> float | Fraction:
    """The mean of a hits distribution.

    >>> expected_hits(attack_distribution_exact(3, 4))
    Fraction(3, 2)
    """
    return sum(k * p for k, p in enumerate(dist))


def two_mm_ruleset(ruleset: Ruleset | str | None) -> TwoMmEarth:
    """The named 2mm Earth ruleset (default v0.9); any other is a one-line RulesetError."""
    rs = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset)
    if not isinstance(rs, TwoMmEarth):
        raise RulesetError(
            None, f"ruleset {rs.name} has no 2mm Earth odds (2.3 attack dice, 10.5 panic test)"
        )
    return rs


def panic_distribution_exact(
    resilience: int,
    leadership: int = 0,
    modifier: int = 0,
    ruleset: Ruleset | str | None = None,
    *,
    routing: bool = False,
    **situation: Any,
) -> dict[str, Fraction]:
    """Exact P(none), P(retreat), P(rout) of the ruleset's panic test, every face enumerated.

    ``situation`` passes the ruleset's extra keywords (v0.7: ``other_resilience``,
    ``seen_fleeing``, ``seen_routing``, ``contact_sides``, ``rear_contact``, ``army_morale``).
    """
    rs = two_mm_ruleset(ruleset)
    counts = dict.fromkeys(PANIC_OUTCOMES, 0)
    combos = list(itertools.product(range(1, rs.die_sides + 1), repeat=rs.panic_dice))
    for faces in combos:
        res = rs.panic_test(
            ScriptedDice(faces), resilience, leadership, modifier, routing, **situation
        )
        counts[res.outcome] += 1
    return {k: Fraction(v, len(combos)) for k, v in counts.items()}


def panic_distribution(
    resilience: int,
    leadership: int = 0,
    modifier: int = 0,
    ruleset: Ruleset | str | None = None,
    *,
    routing: bool = False,
    **situation: Any,
) -> dict[str, float]:
    """P(none), P(retreat), P(rout) of one panic test under ``ruleset`` (default v0.9)."""
    exact = panic_distribution_exact(
        resilience, leadership, modifier, ruleset, routing=routing, **situation
    )
    return {k: float(v) for k, v in exact.items()}


def morale_distribution(
    situation: MoraleSituation, ruleset: Ruleset | str | None = None
) -> dict[str, Fraction]:
    """Exact outcome odds of :meth:`Ruleset.morale_test` for a described situation.

    >>> s = MoraleSituation(4, 3, context="melee", triggers=("enemy_contact_rear",))
    >>> morale_distribution(s)["none"]            # R4 - 1 rear contact: P(lower die < 3)
    Fraction(5, 9)
    """
    rs = two_mm_ruleset(ruleset)
    counts = dict.fromkeys(PANIC_OUTCOMES, 0)
    combos = list(itertools.product(range(1, rs.die_sides + 1), repeat=rs.panic_dice))
    for faces in combos:
        counts[rs.morale_test(ScriptedDice(faces), situation).outcome] += 1
    return {k: Fraction(v, len(combos)) for k, v in counts.items()}


def simulate_attack(
    n_dice: int, resilience: int, modifier: int = 0, *, trials: int, seed: int
) -> list[float]:
    """Frequencies of k hits over ``trials`` runs of :func:`roll_attack` with ``Dice(seed)``."""
    if trials < 1:
        raise ValueError(f"expected trials >= 1, got {trials}")
    dice = Dice(seed)
    counts = [0] * (n_dice + 1)
    for i in range(trials):
        counts[roll_attack(dice, n_dice, resilience, modifier, "odds").hits] += 1
        if i % _CLEAR_EVERY == 0:
            dice.history.clear()
    return [c / trials for c in counts]


def simulate_panic(
    resilience: int,
    leadership: int = 0,
    modifier: int = 0,
    ruleset: Ruleset | str | None = None,
    *,
    trials: int,
    seed: int,
    routing: bool = False,
    **situation: Any,
) -> dict[str, float]:
    """Frequencies of each outcome over ``trials`` panic tests with ``Dice(seed)``."""
    if trials < 1:
        raise ValueError(f"expected trials >= 1, got {trials}")
    rs = two_mm_ruleset(ruleset)
    dice = Dice(seed)
    counts = dict.fromkeys(PANIC_OUTCOMES, 0)
    for i in range(trials):
        res = rs.panic_test(dice, resilience, leadership, modifier, routing, "odds", **situation)
        counts[res.outcome] += 1
        if i % _CLEAR_EVERY == 0:
            dice.history.clear()
    return {k: v / trials for k, v in counts.items()}
