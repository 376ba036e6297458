"""The dice procedures of the rules, shared by the battle engine and the odds calculator.

- 2.3 attack dice: :func:`roll_attack` (a die hits if ``face + modifier >= R``)
- 1.1 / 2.2 / 8.1 / 8.2 die penalties for shooting: :func:`shooting_modifier`
- 8.1 / 8.2 ordnance and volley shooters: :func:`ordnance_dice`
- 3.1 outnumbering: :func:`outnumbering_bonus`
- 11.3 mixed formations: :func:`mean_resilience`
- 10.5 panic test (v0.9): :func:`panic_test`; v0.7's rout test (5.2, 9.1): :func:`rout_test_v07`

Readings of ambiguous rules (docs/rules-interpretations.md): 2.3 has no "natural 6" rule, so the
face needed is ``R - modifier`` (at least 1); a target needing 7 or more cannot be hit.

>>> from engine.dice import ScriptedDice
>>> r = roll_attack(ScriptedDice([4, 3, 6]), 3, resilience=4, purpose="shoot a->b")
>>> r.hits, r.need, str(r.dice)
(2, 4, '3d6[4,3,6] shoot a->b')
>>> p = panic_test(ScriptedDice([5, 4]), resilience=4, purpose="panic b")
>>> p.kept, p.outcome                    # keep the lower die: 4 equals R4 -> retreat
(4, 'retreat')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.dice import Dice, DiceResult

__all__ = [
    "PANIC_OUTCOMES",
    "AttackResult",
    "PanicResult",
    "attack_need",
    "mean_resilience",
    "ordnance_dice",
    "outnumbering_bonus",
    "panic_outcome",
    "panic_test",
    "rally_test",
    "rally_test_v07",
    "rout_test_v07",
    "shooting_modifier",
]

#: Outcomes of a panic test, mildest first (v0.7's "fine"/"flee" map onto "none"/"retreat").
PANIC_OUTCOMES: tuple[str, str, str] = ("none", "retreat", "rout")


@dataclass(frozen=True, slots=True)
class AttackResult:
    """The dice an attack rolled, the face each die needed, and how many hit."""

    hits: int
    dice: DiceResult
    need: int

    def __str__(self) -> str:
        return f"{self.hits} hit(s) needing {self.need}+: {self.dice}"


_AR = {f: AttackResult.__dict__[f].__set__ for f in ("hits", "dice", "need")}


def _attack_result(hits: int, dice: DiceResult, need: int) -> AttackResult:
    # the frozen __init__'s object.__setattr__ calls dominate a small roll; set the slots directly
    r = object.__new__(AttackResult)
    _AR["hits"](r, hits)
    _AR["dice"](r, dice)
    _AR["need"](r, need)
    return r


def attack_need(resilience: int, modifier: int = 0) -> int:
    """2.3: the face a die needs to hit R with the summed die ``modifier`` (<= 0 for penalties).

    No face is special (2.3 has no "natural 6 always hits"): a ``need`` above the die's sides
    means the die cannot hit; a 1 hits only when R - modifier <= 1.

    >>> attack_need(4), attack_need(4, -1), attack_need(6, -2), attack_need(1)
    (4, 5, 8, 1)
    """
    return max(1, resilience - modifier)


def roll_attack(
    dice: Dice, n_dice: int, resilience: int, modifier: int = 0, purpose: str = ""
) -> AttackResult:
    """2.2-2.3: roll ``n_dice`` (the arming value plus bonuses) against ``resilience``.

    ``resilience`` is the target's R after chart 7.2 cover; ``modifier`` is the sum of die
    penalties (:func:`shooting_modifier`). No dice are rolled (or recorded) for ``n_dice == 0``.
    """
    if n_dice < 0:
        raise ValueError(f"expected n_dice >= 0, got {n_dice}")
    need = max(1, resilience - modifier)  # attack_need, inlined: the hot path
    if n_dice == 0:
        return AttackResult(0, DiceResult((), purpose), need)
    result = dice.roll(n_dice, purpose)
    hits = 0
    for face in result.faces:
        if face >= need:
            hits += 1
    return _attack_result(hits, result, need)


def shooting_modifier(
    *,
    half_range_or_more: bool,
    moving: bool,
    skirmisher: bool = False,
    ordnance: bool = False,
    into_overhead: bool = False,
    volley: bool = False,
) -> int:
    """Sum of the die penalties on a shot (always <= 0).

    - 1.1: -1 at half range or more; -1 if the shooter moves (2.2), unless a skirmisher.
    - 8.1: ordnance takes -1, or -2 at long range (half range or more) - the -2 *includes* the
      ordinary half-range -1, it is not added to it; and a further -1 shooting into overhead
      cover (an ordnance-only penalty: ordinary shots into woods meet chart 7.2's higher R).
    - 8.2: a volley "works as 2-rank Ordnance", penalties included.

    >>> shooting_modifier(half_range_or_more=True, moving=True)
    -2
    >>> shooting_modifier(half_range_or_more=True, moving=True, skirmisher=True)
    -1
    >>> shooting_modifier(half_range_or_more=True, moving=False, ordnance=True, into_overhead=True)
    -3
    >>> shooting_modifier(half_range_or_more=False, moving=False, volley=True)
    -1
    >>> shooting_modifier(half_range_or_more=False, moving=False, into_overhead=True)
    0
    """
    penalty = 0
    if ordnance or volley:
        penalty -= 2 if half_range_or_more else 1
        if into_overhead:
            penalty -= 1
    elif half_range_or_more:
        penalty -= 1
    if moving and not skirmisher:
        penalty -= 1
    return penalty


def ordnance_dice(front_rank_bases: int, ranks: int, volley: bool = False) -> int:
    """8.1: the bases that count as shooting when firing as ordnance.

    The front rank, plus one if there is a second rank of shooters, plus one for a third
    (8.2: a volley is 2-rank ordnance, so no third-rank base). The count takes the place of the
    front rank in 3.1 outnumbering: dice = arming + ``outnumbering_bonus(ordnance_dice(...),
    target_bases)``.

    >>> ordnance_dice(5, 4)          # the rulebook's 20-base longbow block: 5 + 1 + 1
    7
    >>> ordnance_dice(5, 4, volley=True), ordnance_dice(5, 1)
    (6, 5)
    """
    if front_rank_bases < 0 or ranks < 0:
        raise ValueError(f"expected counts >= 0, got front {front_rank_bases}, ranks {ranks}")
    if front_rank_bases == 0 or ranks == 0:
        return 0
    extra = (ranks >= 2) + (ranks >= 3 and not volley)
    return front_rank_bases + extra


def outnumbering_bonus(own_bases: int, enemy_bases: int) -> int:
    """3.1: +1A for each base more than the opponent (front ranks only; no penalty if fewer).

    >>> outnumbering_bonus(6, 4), outnumbering_bonus(3, 5)
    (2, 0)
    """
    return max(0, own_bases - enemy_bases)


def mean_resilience(values: Iterable[int]) -> int:
    """11.3 mixed formations: the mean R of the rank; not a whole number -> the lower one.

    >>> mean_resilience([2, 4]), mean_resilience([3, 4]), mean_resilience([3, 4, 6])
    (3, 3, 4)
    """
    vals = list(values)
    if not vals:
        raise ValueError("expected at least one resilience value, got none")
    return sum(vals) // len(vals)


@dataclass(frozen=True, slots=True)
class PanicResult:
    """A panic (or rout) test: the outcome, the die kept, the final score and the R it met.

    ``outcome`` is one of :data:`PANIC_OUTCOMES`; ``score`` is the kept die after leadership
    and any roll modifiers; ``effective_r`` is the R compared against.
    """

    outcome: str
    kept: int
    dice: DiceResult
    effective_r: int
    score: int

    def __str__(self) -> str:
        return f"{self.outcome}: score {self.score} vs R{self.effective_r} ({self.dice})"


_PR = {f: PanicResult.__dict__[f].__set__ for f in PanicResult.__slots__}


def _panic_result(
    outcome: str, kept: int, dice: DiceResult, effective_r: int, score: int
) -> PanicResult:
    r = object.__new__(PanicResult)
    _PR["outcome"](r, outcome)
    _PR["kept"](r, kept)
    _PR["dice"](r, dice)
    _PR["effective_r"](r, effective_r)
    _PR["score"](r, score)
    return r


def panic_outcome(score: int, effective_r: int) -> str:
    """10.5: lower than R -> ``"none"``, equal -> ``"retreat"``, higher -> ``"rout"``."""
    if score < effective_r:
        return "none"
    return "retreat" if score == effective_r else "rout"


def _at_best(outcome: str, at_best: str | None) -> str:
    if at_best is None:
        return outcome
    return PANIC_OUTCOMES[max(PANIC_OUTCOMES.index(outcome), PANIC_OUTCOMES.index(at_best))]


def panic_test(
    dice: Dice,
    resilience: int,
    leadership: int = 0,
    modifier: int = 0,
    routing: bool = False,
    purpose: str = "",
    *,
    at_best: str | None = None,
) -> PanicResult:
    """10.5 panic test (v0.9): roll two dice, keep the LOWER, take off L, compare with R.

    ``resilience`` is the R the situation calls for (highest R out of combat, ranged R when shot
    at, melee R in contact); ``modifier`` is added to it (10.2 / 11.1: -1 front rank killed,
    -1 rear contact, -1 retreating, -2 routing). The highest character ``leadership`` in the
    formation is deducted from the kept die unless the formation is ``routing``. ``at_best``
    caps the result (11.1: retreating troops touched by an enemy - "the best possible result
    being to continue retreat" - pass ``at_best="retreat"``).

    >>> from engine.dice import ScriptedDice
    >>> panic_test(ScriptedDice([6, 5]), 4, leadership=1).outcome    # 5 - L1 = 4: retreat
    'retreat'
    >>> panic_test(ScriptedDice([6, 5]), 4, leadership=1, routing=True).outcome
    'rout'
    >>> panic_test(ScriptedDice([1, 2]), 4, at_best="retreat").outcome
    'retreat'
    """
    roll = dice.roll(2, purpose)
    kept = min(roll.faces)
    score = kept if routing else kept - leadership
    effective_r = resilience + modifier
    outcome = panic_outcome(score, effective_r)
    if at_best is not None:
        outcome = _at_best(outcome, at_best)
    return _panic_result(outcome, kept, roll, effective_r, score)


def rally_test(
    dice: Dice,
    melee_r: int,
    ranged_r: int,
    leadership: int = 0,
    modifier: int = 0,
    purpose: str = "",
) -> PanicResult:
    """10.4: a character joins a routing formation, which takes a panic test; "if they pass the
    test, or roll equal to either Resilience, then stop routing and retreat".

    Two dice, keep the lower, deduct the joining character's ``leadership`` (a character who was
    already in the formation does not count: pass 0). R is routing-reduced (-2, 11.1) plus
    ``modifier``. Passing, or equalling either R, is at most the higher R, so the outcome is
    ``"retreat"`` (stops routing) for a score <= the higher R, else ``"rout"`` (keeps routing).

    >>> from engine.dice import ScriptedDice
    >>> rally_test(ScriptedDice([4, 6]), 5, 3, leadership=1).outcome    # 4-1=3 <= R5-2
    'retreat'
    >>> rally_test(ScriptedDice([5, 6]), 5, 3).outcome                   # 5 > R5-2
    'rout'
    """
    roll = dice.roll(2, purpose)
    kept = min(roll.faces)
    score = kept - leadership
    effective_r = max(melee_r, ranged_r) - 2 + modifier
    outcome = "retreat" if score <= effective_r else "rout"
    return _panic_result(outcome, kept, roll, effective_r, score)


def rally_test_v07(
    dice: Dice,
    melee_r: int,
    ranged_r: int,
    leadership: int = 0,
    modifier: int = 0,
    purpose: str = "",
) -> PanicResult:
    """v0.7 5.5: a character joins a routing unit, which takes a rout test (5.2): the lower R
    limited to 3..5, then -2 for routing (5.3) and ``modifier``; the joining character's L
    counts. Not routing after it (a score at most R) -> ``"retreat"`` (flees); else ``"rout"``.

    >>> from engine.dice import ScriptedDice
    >>> rally_test_v07(ScriptedDice([3]), 4, 6, leadership=1).outcome    # 3-1=2 <= R4-2
    'retreat'
    """
    res = rout_test_v07(
        dice, melee_r, leadership, modifier - 2, False, purpose, other_resilience=ranged_r
    )
    outcome = "rout" if res.outcome == "rout" else "retreat"
    return _panic_result(outcome, res.kept, res.dice, res.effective_r, res.score)


def rout_test_v07(
    dice: Dice,
    resilience: int,
    leadership: int = 0,
    modifier: int = 0,
    routing: bool = False,
    purpose: str = "",
    *,
    other_resilience: int | None = None,
    seen_fleeing: int = 0,
    seen_routing: int = 0,
    contact_sides: int = 0,
    rear_contact: bool = False,
    army_morale: bool = False,
    at_best: str | None = None,
) -> PanicResult:
    """v0.7 rout test (5.2) and army-morale test (9.1): one die against the lowest R.

    5.2: R is the lower of ``resilience`` and ``other_resilience`` (melee and ranged), limited
    to 3..5; ``modifier`` (5.3: -1 fleeing, -2 routing) is applied after that limit. The die
    gets +1 per friendly formation seen fleeing, +2 per one seen routing, +1 per side in enemy
    contact (``contact_sides``, flanks and front) and +2 for the rear, and -L of a character
    in the unit (not while ``routing``: 5.5, the character fleeing with them doesn't count).
    More than R -> rout; equal -> flee (reported as ``"retreat"``); less -> no effect.

    9.1 (``army_morale=True``): a formation that sees friends flee or rout tests on its actual
    R (no 3..5 limit) with a further -2 on the die, and flees on a score equal to R or one more.

    >>> from engine.dice import ScriptedDice
    >>> rout_test_v07(ScriptedDice([5]), 6, other_resilience=6).outcome   # R6 counts as R5
    'retreat'
    >>> rout_test_v07(ScriptedDice([4]), 4, seen_routing=1).outcome      # 4 + 2 = 6 > 4
    'rout'
    >>> rout_test_v07(ScriptedDice([6]), 4, army_morale=True, seen_fleeing=1).outcome  # 6-2+1
    'retreat'
    """
    roll = dice.roll(1, purpose)
    kept = roll.faces[0]
    base_r = resilience if other_resilience is None else min(resilience, other_resilience)
    if not army_morale:
        base_r = min(5, max(3, base_r))
    effective_r = base_r + modifier
    score = kept + seen_fleeing + 2 * seen_routing + contact_sides + (2 if rear_contact else 0)
    if not routing:
        score -= leadership
    if army_morale:
        score -= 2
        if score < effective_r:
            outcome = "none"
        elif score <= effective_r + 1:
            outcome = "retreat"
        else:
            outcome = "rout"
    else:
        outcome = panic_outcome(score, effective_r)
    return _panic_result(_at_best(outcome, at_best), kept, roll, effective_r, score)
