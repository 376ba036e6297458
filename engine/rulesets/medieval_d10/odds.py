"""Exact and simulated odds of the medieval d10 game's dice procedures.

Exact figures are enumerated through the procedures themselves (:mod:`.procedures` run on
:class:`~engine.dice.ScriptedDice` for every face a die can show), so they cannot drift from what
the engine rolls; casualties then combine the per-die chances (dice are independent). Simulated
figures run the same procedures on a seeded :class:`~engine.dice.Dice`.

>>> casualty_distribution_exact(10, 7)                 # 2 dice, 4/10 each
[Fraction(9, 25), Fraction(12, 25), Fraction(4, 25)]
>>> casualty_distribution_exact(6, 10, part_dice=True)  # 1 full die 1/10; part die 1/10 * 2/10
[Fraction(441, 500), Fraction(29, 250), Fraction(1, 500)]
>>> control_distribution_exact(0)                      # factor 1..3 passes: faces 1-6
{'passed': Fraction(3, 5), 'failed': Fraction(2, 5)}
>>> initiative_exact(CommanderKind.BOLD, CommanderKind.BOLD)
Fraction(1, 2)
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

from engine.dice import Dice, DiceExhaustedError, ScriptedDice
from engine.rulesets.medieval_d10.charts import CommanderKind, MoraleColumn, MoraleResult
from engine.rulesets.medieval_d10.procedures import (
    D10,
    INITIATIVE_SIDES,
    Misfire,
    casualty_plan,
    control_test,
    morale_test,
    roll_artillery,
    roll_casualties,
    roll_initiative,
)

__all__ = [
    "artillery_distribution_exact",
    "casualty_distribution_exact",
    "control_distribution_exact",
    "expected",
    "full_die_kill_chance",
    "initiative_exact",
    "morale_distribution_exact",
    "part_die_kill_chance",
    "simulate_artillery",
    "simulate_casualties",
    "simulate_control",
    "simulate_initiative",
    "simulate_morale",
]

_CLEAR_EVERY = 4096  # trials between clearing the recording generator's history


def full_die_kill_chance(need: int) -> Fraction:
    """P(one full d10 kills) at ``need``, enumerated through :func:`roll_casualties`.

    >>> full_die_kill_chance(7), full_die_kill_chance(2)
    (Fraction(2, 5), Fraction(9, 10))
    """
    kills = sum(roll_casualties(ScriptedDice([f]), 5, need).kills for f in range(1, D10 + 1))
    return Fraction(kills, D10)


def part_die_kill_chance(need: int, part_figures: int) -> Fraction:
    """P(a part die of ``part_figures`` figures kills and the kill is not saved), enumerated.

    >>> part_die_kill_chance(6, 4)        # 5/10 hit, saved on 9+ (2/10): 5/10 * 8/10
    Fraction(2, 5)
    """
    total = Fraction(0)
    for part in range(1, D10 + 1):
        for save in range(1, D10 + 1):
            roll = roll_casualties(ScriptedDice([part, save]), part_figures, need, part_dice=True)
            total += Fraction(roll.kills, D10 * D10)
    return total


def _convolve(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _binomial(n: int, p: Fraction) -> list[Fraction]:
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def casualty_distribution_exact(
    figures: int, need: int, *, automatic_kills: bool = False, part_dice: bool = False
) -> list[Fraction]:
    """P(k figures killed) for k = 0..max, exactly, for ``figures`` firing or fighting at a
    kill score of ``need`` (already modified and clamped), with the optional rules."""
    plan = casualty_plan(figures, automatic_kills=automatic_kills, part_dice=part_dice)
    dist = [Fraction(0)] * plan.automatic + _binomial(plan.full, full_die_kill_chance(need))
    if plan.part_figures:
        p = part_die_kill_chance(need, plan.part_figures)
        dist = _convolve(dist, [1 - p, p])
    return dist


def artillery_distribution_exact(guns: int, need: int) -> dict[str, list[Fraction]]:
    """For ``guns`` gun models at ``need``: ``kills`` P(k killed) and ``explosions`` P(k guns
    explode), each gun's misfire throw, re-roll and kill die enumerated through
    :func:`roll_artillery`.

    >>> d = artillery_distribution_exact(1, 4)
    >>> d["kills"], d["explosions"]            # fires 9/10, then 7/10 kills
    ([Fraction(37, 100), Fraction(63, 100)], [Fraction(97, 100), Fraction(3, 100)])
    """
    kill = explode = Fraction(0)
    weight = Fraction(1, D10 * D10)
    for first in range(1, D10 + 1):
        for second in range(1, D10 + 1):
            roll = roll_artillery(ScriptedDice([first, second]), 1, need)
            kill += roll.kills * weight
            explode += roll.exploded * weight
    return {"kills": _binomial(guns, kill), "explosions": _binomial(guns, explode)}


def expected(dist: list[Fraction]) -> Fraction:
    """The mean of a distribution over 0..n."""
    return sum((k * p for k, p in enumerate(dist)), Fraction(0))


def morale_distribution_exact(column: MoraleColumn, modifier: int) -> dict[MoraleResult, Fraction]:
    """P(each MORALE TEST RESULT) for a test in ``column`` with ``modifier``, enumerated.

    >>> morale_distribution_exact(MoraleColumn.OTHER, 0)[MoraleResult.ACT_AS_ORDERED]  # 7-10
    Fraction(2, 5)
    """
    out: Counter[MoraleResult] = Counter()
    for face in range(1, D10 + 1):
        out[morale_test(ScriptedDice([face]), column, modifier).result] += 1
    return {r: Fraction(n, D10) for r, n in out.items()}


def control_distribution_exact(modifier: int) -> dict[str, Fraction]:
    """P(passed), P(failed) of a control test with ``modifier``, enumerated."""
    passed = sum(control_test(ScriptedDice([f]), modifier).passed for f in range(1, D10 + 1))
    return {"passed": Fraction(passed, D10), "failed": Fraction(D10 - passed, D10)}


def initiative_exact(
    first: CommanderKind, second: CommanderKind, sides: int = INITIATIVE_SIDES
) -> Fraction:
    """P(the first side wins the initiative), ties re-rolled until the totals differ: the wins
    among the non-tied face pairs, each pair run through :func:`roll_initiative`.

    >>> initiative_exact(CommanderKind.EXCEPTIONAL, CommanderKind.CAUTIOUS)        # d10
    Fraction(79, 94)
    >>> initiative_exact(CommanderKind.EXCEPTIONAL, CommanderKind.CAUTIOUS, sides=6)
    Fraction(33, 34)
    """
    wins = decided = 0
    for a in range(1, sides + 1):
        for b in range(1, sides + 1):
            script = ScriptedDice([a, b])
            try:
                result = roll_initiative(script, first, second, sides)
            except DiceExhaustedError:  # a tie: the procedure asked for another pair
                continue
            decided += 1
            wins += result.winner == 0
    if decided == 0:
        raise ValueError("every face pair ties: no one can win the initiative")
    return Fraction(wins, decided)


# Simulations ----------------------------------------------------------------------------------


def _trials(trials: int) -> None:
    if trials < 1:
        raise ValueError(f"expected trials >= 1, got {trials}")


def simulate_casualties(
    figures: int,
    need: int,
    *,
    automatic_kills: bool = False,
    part_dice: bool = False,
    trials: int = 10_000,
    seed: int | None = 0,
) -> list[float]:
    """Frequencies of k kills over ``trials`` rolls of :func:`roll_casualties`."""
    _trials(trials)
    dice = Dice(seed)
    plan = casualty_plan(figures, automatic_kills=automatic_kills, part_dice=part_dice)
    counts = [0] * (plan.automatic + plan.dice + 1)
    for i in range(trials):
        counts[
            roll_casualties(
                dice, figures, need, automatic_kills=automatic_kills, part_dice=part_dice
            ).kills
        ] += 1
        if i % _CLEAR_EVERY == 0:
            dice.history.clear()
    return [c / trials for c in counts]


def simulate_artillery(
    guns: int, need: int, *, trials: int = 10_000, seed: int | None = 0
) -> dict[str, list[float]]:
    """Frequencies of kills and explosions over ``trials`` rolls of :func:`roll_artillery`."""
    _trials(trials)
    dice = Dice(seed)
    kills = [0] * (guns + 1)
    booms = [0] * (guns + 1)
    for i in range(trials):
        r = roll_artillery(dice, guns, need)
        kills[r.kills] += 1
        booms[sum(m is Misfire.EXPLODES for m in r.misfires)] += 1
        if i % _CLEAR_EVERY == 0:
            dice.history.clear()
    return {"kills": [c / trials for c in kills], "explosions": [c / trials for c in booms]}


def simulate_morale(
    column: MoraleColumn, modifier: int, *, trials: int = 10_000, seed: int | None = 0
) -> dict[MoraleResult, float]:
    """Frequencies of each result over ``trials`` runs of :func:`morale_test`."""
    _trials(trials)
    dice = Dice(seed)
    out: Counter[MoraleResult] = Counter()
    for i in range(trials):
        out[morale_test(dice, column, modifier).result] += 1
        if i % _CLEAR_EVERY == 0:
            dice.history.clear()
    return {r: n / trials for r, n in out.items()}


def simulate_control(
    modifier: int, *, trials: int = 10_000, seed: int | None = 0
) -> dict[str, float]:
    """Frequencies of passed / failed over ``trials`` runs of :func:`control_test`."""
    _trials(trials)
    dice = Dice(seed)
    passed = 0
    for i in range(trials):
        passed += control_test(dice, modifier).passed
        if i % _CLEAR_EVERY == 0:
            dice.history.clear()
    return {"passed": passed / trials, "failed": (trials - passed) / trials}


def simulate_initiative(
    first: CommanderKind,
    second: CommanderKind,
    sides: int = INITIATIVE_SIDES,
    *,
    trials: int = 10_000,
    seed: int | None = 0,
) -> float:
    """Frequency of the first side winning over ``trials`` runs of :func:`roll_initiative`."""
    _trials(trials)
    dice = Dice(seed)
    wins = 0
    for i in range(trials):
        wins += roll_initiative(dice, first, second, sides).winner == 0
        if i % _CLEAR_EVERY == 0:
            dice.history.clear()
    return wins / trials
