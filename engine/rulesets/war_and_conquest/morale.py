"""War & Conquest resolution, morale and command tests (``004_3e419fecf92d7f8f.txt``).

The pure procedures of the ``wc-morale`` module: which dice a unit rolls, the test itself (with
Hero of the Day), the triggers as data with their distances in inches, the Resolution and End
phase orders, the flee/pursuit roll-off, failing while engaged, rallying, the last chance to
stand, command tests (drilled troops re-roll) and the army General's zone of command. Every roll
goes through the one :class:`~engine.dice.Dice` passed in.

Page numbers are the book's, as the text quotes them ("Morale Rules (p.22-23)", "p.87",
"p.137"); the other headings are cited by name ("Resolution Summary", "End Phase").

>>> from engine.dice import ScriptedDice
>>> unit = WCUnit("hirdmen", morale_value=8, strength=20, full_strength=20)
>>> dice_method(unit, TestKind.MORALE)           # a battle formation over half strength
<DiceMethod.THREE_D6_KEEP_TWO_LOWEST: 3>
>>> r = morale_test(ScriptedDice([6, 5, 3]), unit)
>>> r.kept, r.total, r.target, r.passed             # 3 + 5 = 8 <= MV 8
((3, 5), 8, 8, True)
>>> str(r)
'MORALE 3d6[6,5,3] keep 3+5=8 vs MV 8: pass'
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from engine.dice import Dice

__all__ = [
    "END_PHASE",
    "FLEE_PURSUIT_DICE",
    "GENERAL_MV_CAP",
    "GENERAL_ZONE_IN",
    "RALLY_ENEMY_RADIUS_IN",
    "RESOLUTION_PHASE",
    "TRIGGERS",
    "CommandResult",
    "DiceMethod",
    "Discipline",
    "EndStep",
    "EngagedFailure",
    "FleePursuitResult",
    "FormationKind",
    "LastChanceResult",
    "MoraleEvent",
    "MoraleTestResult",
    "RallyEnemy",
    "ResolutionStep",
    "TableScale",
    "TestKind",
    "Trigger",
    "TriggerRule",
    "WCUnit",
    "alternate",
    "command_test",
    "dice_method",
    "engaged_failure",
    "fled_through",
    "flee_pursuit",
    "general_bonus",
    "in_general_zone",
    "last_chance_to_stand",
    "morale_test",
    "rally_enemies",
    "rally_test",
    "triggered",
]

T = TypeVar("T")


# ---------------------------------------------------------------------------------------------
# Scale: the book measures in table inches


@dataclass(frozen=True, slots=True)
class TableScale:
    """How many metres of ground one table inch stands for, and why (the composed ruleset's).

    War & Conquest gives its distances in table inches and no ground scale; a composed ruleset
    turns them into ground metres with its own table scale. *Battle for 2mm Earth* states its
    (p.1: "1 metre is 1mm"), so one inch (25.4 mm) is 25.4 m of ground.

    >>> TWO_MM_EARTH.metres(10)
    254.0
    >>> TWO_MM_EARTH.inches(127.0)
    5.0
    """

    ground_m_per_inch: float
    reason: str

    def __post_init__(self) -> None:
        if not self.ground_m_per_inch > 0:
            raise ValueError(f"expected metres per inch > 0, got {self.ground_m_per_inch}")

    def metres(self, inches: float) -> float:
        return inches * self.ground_m_per_inch

    def inches(self, metres: float) -> float:
        return metres / self.ground_m_per_inch


TWO_MM_EARTH = TableScale(25.4, "Battle for 2mm Earth v0.9 p.1: 1 mm of table is 1 m of ground")


# ---------------------------------------------------------------------------------------------
# Units and dice


class FormationKind(enum.Enum):
    """What kind of formation a unit is for morale: the book's two kinds, plus characters."""

    BATTLE = "battle"  # "Battle Formations"
    SKIRMISH = "skirmish"  # "Troops in a skirmish formation"
    PERSONALITY = "personality"  # "individual personalities" (ignored when counting enemies)


class Discipline(enum.Enum):
    """Command Tests' two exceptions, and the ordinary case."""

    ORDINARY = "ordinary"
    UNDISCIPLINED = "undisciplined"  # "only roll 2d6"
    DRILLED = "drilled"  # "may always re-roll failed Command Tests"


class TestKind(enum.Enum):
    """Which test is being taken: they differ in the dice allowed and in the target."""

    MORALE = "morale"
    COMMAND = "command"
    RALLY = "rally"  # "Troops who are fleeing use 2d6 when attempting to rally"
    LAST_CHANCE = "last chance"  # Last Chance to Stand: a morale test at MV -1, while fleeing

    __test__ = False  # not a pytest test class


class DiceMethod(enum.IntEnum):
    """The two ways to roll; the value is the number of dice thrown."""

    TWO_D6 = 2
    THREE_D6_KEEP_TWO_LOWEST = 3


@dataclass(frozen=True, slots=True)
class WCUnit:
    """What the morale and command rules read off a unit.

    ``strength`` and ``full_strength`` count models; a unit "@ half strength" (``strength * 2
    <= full_strength``) loses the 3d6 roll and is marked (Command Tests: "Units @ half strength
    should be marked").
    """

    name: str
    morale_value: int
    strength: int
    full_strength: int
    kind: FormationKind = FormationKind.BATTLE
    discipline: Discipline = Discipline.ORDINARY
    fleeing: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.strength <= self.full_strength or self.full_strength < 1:
            raise ValueError(
                f"{self.name}: expected 0 <= strength <= full strength >= 1, "
                f"got {self.strength}/{self.full_strength}"
            )

    @property
    def over_half_strength(self) -> bool:
        return 2 * self.strength > self.full_strength


def dice_method(unit: WCUnit, kind: TestKind) -> DiceMethod:
    """Morale Rules (p.22-23) and Command Tests: 3d6 keep the two lowest, or 2d6.

    Only a battle formation over half strength gets 3d6, and never for a rally (fleeing troops
    use 2d6) nor for the last chance to stand (a fleeing unit's test). Undisciplined formations
    "only roll 2d6" in Command Tests: it is one of the "two exceptions" printed under Command
    Tests, beside the drilled re-roll of "failed Command Tests" (see
    docs/rules-interpretations.md).

    >>> u = WCUnit("u", 7, strength=10, full_strength=20)      # exactly half: marked
    >>> dice_method(u, TestKind.MORALE)
    <DiceMethod.TWO_D6: 2>
    >>> warband = WCUnit("w", 6, 30, 30, discipline=Discipline.UNDISCIPLINED)
    >>> dice_method(warband, TestKind.COMMAND), dice_method(warband, TestKind.MORALE)
    (<DiceMethod.TWO_D6: 2>, <DiceMethod.THREE_D6_KEEP_TWO_LOWEST: 3>)
    """
    if (
        kind in (TestKind.RALLY, TestKind.LAST_CHANCE)
        or unit.fleeing
        or unit.kind is not FormationKind.BATTLE
        or (kind is TestKind.COMMAND and unit.discipline is Discipline.UNDISCIPLINED)
        or not unit.over_half_strength
    ):
        return DiceMethod.TWO_D6
    return DiceMethod.THREE_D6_KEEP_TWO_LOWEST


# ---------------------------------------------------------------------------------------------
# The test


@dataclass(frozen=True, slots=True)
class MoraleTestResult:
    """One morale, command or rally test: the faces thrown, the two kept, the target."""

    kind: TestKind
    method: DiceMethod
    faces: tuple[int, ...]
    kept: tuple[int, int]
    target: int  # the modified morale value
    hero: bool  # Hero of the Day: passed on a double one although the total was too high

    @property
    def total(self) -> int:
        return self.kept[0] + self.kept[1]

    @property
    def passed(self) -> bool:
        return self.total <= self.target or self.hero

    def __str__(self) -> str:
        thrown = f"{len(self.faces)}d6[{','.join(map(str, self.faces))}]"
        keep = f" keep {self.kept[0]}+{self.kept[1]}=" if len(self.faces) > 2 else " = "
        verdict = "pass (Hero of the Day)" if self.hero else ("pass" if self.passed else "fail")
        return f"{self.kind.name} {thrown}{keep}{self.total} vs MV {self.target}: {verdict}"


def morale_test(
    dice: Dice,
    unit: WCUnit,
    mv_modifier: int = 0,
    *,
    kind: TestKind = TestKind.MORALE,
    combat: bool = False,
    purpose: str = "",
) -> MoraleTestResult:
    """Morale Rules (p.22-23): roll, add the two dice kept, pass if the total <= modified MV.

    ``combat`` marks a combat morale check of a unit that lost the combat: Hero of the Day
    ("If the rolled dice include two ones (snake-eyes) the unit will pass") then passes it
    whatever the modified MV. Elsewhere a double one is a total of 2, which passes any MV >= 2.

    >>> from engine.dice import ScriptedDice
    >>> u = WCUnit("levy", 5, 12, 12, kind=FormationKind.SKIRMISH)
    >>> morale_test(ScriptedDice([1, 1]), u, -4, combat=True).hero       # MV 1: snake-eyes
    True
    >>> morale_test(ScriptedDice([1, 1]), u, -4).passed                  # not a combat check
    False
    """
    method = dice_method(unit, kind)
    label = purpose or f"{kind.value} {unit.name}"
    faces = dice.roll(int(method), label).faces
    low = sorted(faces)[:2]
    kept = (low[0], low[1])
    target = unit.morale_value + mv_modifier
    hero = combat and kept == (1, 1) and target < 2
    return MoraleTestResult(kind, method, faces, kept, target, hero)


@dataclass(frozen=True, slots=True)
class CommandResult:
    """A Command Test: the first throw and, for drilled troops that failed it, the re-roll."""

    first: MoraleTestResult
    reroll: MoraleTestResult | None = None

    @property
    def passed(self) -> bool:
        return (self.reroll or self.first).passed


def command_test(
    dice: Dice, unit: WCUnit, mv_modifier: int = 0, purpose: str = ""
) -> CommandResult:
    """Command Tests: "Taken the same way as morale tests & use the unit's morale value";
    "Drilled Formations may always re-roll failed Command Tests" (once; the re-roll stands).

    >>> from engine.dice import ScriptedDice
    >>> drilled = WCUnit("hird", 7, 20, 20, discipline=Discipline.DRILLED)
    >>> r = command_test(ScriptedDice([6, 5, 4, 1, 2, 6]), drilled)
    >>> r.first.passed, r.reroll.total, r.passed
    (False, 3, True)
    """
    label = purpose or f"command {unit.name}"
    first = morale_test(dice, unit, mv_modifier, kind=TestKind.COMMAND, purpose=label)
    if first.passed or unit.discipline is not Discipline.DRILLED:
        return CommandResult(first)
    again = morale_test(
        dice, unit, mv_modifier, kind=TestKind.COMMAND, purpose=f"{label} (drilled re-roll)"
    )
    return CommandResult(first, again)


# ---------------------------------------------------------------------------------------------
# Triggers (Morale Tests; Friends routing from combat p.87; Fleeing Friends within 5"; 20%)


class Trigger(enum.Enum):
    """The circumstances that require a morale test in the Resolution phase."""

    FRIEND_BROKE = "friend broke in combat"
    FRIEND_DESTROYED_FLEEING = "friend destroyed fleeing a charge"
    FRIEND_FLEEING = "fleeing friend"
    CASUALTIES_20 = "20% casualties this round"
    GENERAL_SLAIN = "general slain or routed"
    GENERAL_FLEEING = "fleeing general"


@dataclass(frozen=True, slots=True)
class TriggerRule:
    """One trigger as the text gives it: the distance (inches, to the event's leader model or
    general; ``None`` when it is about the unit itself), the MV change, and where it is."""

    trigger: Trigger
    within_in: float | None
    mv_modifier: int
    source: str


TRIGGERS: tuple[TriggerRule, ...] = (
    TriggerRule(Trigger.FRIEND_BROKE, 10.0, 0, "Morale Tests; Friends routing from combat p.87"),
    TriggerRule(
        Trigger.FRIEND_DESTROYED_FLEEING, 10.0, 0, "Morale Tests; Friends routing from combat p.87"
    ),
    TriggerRule(Trigger.FRIEND_FLEEING, 5.0, 0, 'Morale Tests; Fleeing Friends within 5"'),
    TriggerRule(Trigger.CASUALTIES_20, None, 0, "Morale Tests; 20% Casualties (p.137)"),
    TriggerRule(Trigger.GENERAL_SLAIN, 10.0, -1, 'Morale Tests: "Morale value reduced by 1"'),
    TriggerRule(Trigger.GENERAL_FLEEING, 5.0, 0, "Morale Tests"),
)
_RULES = {r.trigger: r for r in TRIGGERS}


@dataclass(frozen=True, slots=True)
class MoraleEvent:
    """Something that happened this round, as seen from one unit that may have to test.

    ``distance_in`` is from the unit to the event's leader model (or general), in inches;
    ``source_kind`` and ``source_strength`` describe the fleeing friend, for the two exemptions
    of a fleeing friend. For ``CASUALTIES_20``, ``casualty_fraction`` and ``engaged`` describe the
    unit itself and ``from_strikes_back`` says the losses came from strikes back in glancing
    attacks (p.137: a skirmish formation then tests even if engaged).
    """

    trigger: Trigger
    distance_in: float = 0.0
    source_kind: FormationKind = FormationKind.BATTLE
    source_strength: int = 0
    casualty_fraction: float = 0.0
    engaged: bool = False
    from_strikes_back: bool = False


def _applies(unit: WCUnit, ev: MoraleEvent) -> bool:
    rule = _RULES[ev.trigger]
    if rule.within_in is not None and ev.distance_in > rule.within_in:
        return False
    if ev.trigger is Trigger.FRIEND_FLEEING:
        # "Battle formations ignore fleeing skirmishers"
        if unit.kind is FormationKind.BATTLE and ev.source_kind is FormationKind.SKIRMISH:
            return False
        # "Should the unit outnumber the fleeing unit by 2:1 or more they can be ignored"
        if unit.strength >= 2 * ev.source_strength:
            return False
    if ev.trigger is Trigger.CASUALTIES_20:
        if ev.casualty_fraction < 0.2:
            return False
        strikes_back = unit.kind is FormationKind.SKIRMISH and ev.from_strikes_back
        if ev.engaged and not strikes_back:  # "and is otherwise unengaged"
            return False
    return True


def triggered(
    unit: WCUnit,
    events: Iterable[MoraleEvent],
    *,
    already_fled: bool = False,
    failed_rally: bool = False,
) -> tuple[tuple[Trigger, ...], int]:
    """The triggers that make ``unit`` test, and the MV modifier of its one test.

    "Units only need to take one Morale test during the Resolution Phase to cover all the
    circumstances": the caller rolls once if the tuple is not empty. Units that "failed to rally
    in the previous turn, or have already fled during this turn, do not take a Morale test".
    The -1 of a slain or routed general is counted once, however many generals fell.

    >>> u = WCUnit("fyrd", 6, 20, 20)
    >>> ev = [MoraleEvent(Trigger.FRIEND_FLEEING, 4.0, FormationKind.SKIRMISH, 6),
    ...       MoraleEvent(Trigger.GENERAL_SLAIN, 9.5)]
    >>> triggered(u, ev)              # skirmishers ignored; the general's fall tests at MV -1
    ((<Trigger.GENERAL_SLAIN: 'general slain or routed'>,), -1)
    >>> triggered(u, ev, already_fled=True)
    ((), 0)
    """
    if already_fled or failed_rally or unit.fleeing:
        return (), 0
    found = tuple(dict.fromkeys(ev.trigger for ev in events if _applies(unit, ev)))
    return found, min((_RULES[t].mv_modifier for t in found), default=0)


# ---------------------------------------------------------------------------------------------
# Phase orders


class ResolutionStep(enum.IntEnum):
    """Resolution Summary, in order."""

    MORALE_TESTS = 1  # Strategic Advantage chooses 1st, then alternate
    PURSUIT_AND_FLEE = 2  # Strategic Advantage selects the order


RESOLUTION_PHASE: tuple[ResolutionStep, ...] = tuple(ResolutionStep)


class EndStep(enum.IntEnum):
    """End Phase, in order."""

    RALLY = 1
    MOVE_UNRALLIED = 2
    DISPERSE_ON_CONTACT = 3
    STRATEGY_ROLL = 4
    END_GAME_CHECK = 5


END_PHASE: tuple[EndStep, ...] = tuple(EndStep)


def alternate(first: Sequence[T], second: Sequence[T]) -> list[T]:
    """The order of tests: the side with Strategic Advantage first, then alternate; when one
    side runs out the other takes the rest in its chosen order.

    >>> alternate(["a1", "a2", "a3"], ["b1"])
    ['a1', 'b1', 'a2', 'a3']
    """
    out: list[T] = []
    for i in range(max(len(first), len(second))):
        out.extend(side[i] for side in (first, second) if i < len(side))
    return out


# ---------------------------------------------------------------------------------------------
# Pursuit and flee; failing while engaged

#: the text gives no flee or pursuit distance dice; both sides roll 2d6, the book's own test
#: roll (docs/rules-interpretations.md)
FLEE_PURSUIT_DICE = 2


@dataclass(frozen=True, slots=True)
class FleePursuitResult:
    flee: tuple[int, ...]
    pursue: tuple[int, ...]

    @property
    def destroyed(self) -> bool:
        """Resolution Summary: "A fleeing unit that rolls <= its pursuer is destroyed"."""
        return sum(self.flee) <= sum(self.pursue)


def flee_pursuit(
    dice: Dice,
    fleeing: str,
    pursuer: str,
    flee_dice: int = FLEE_PURSUIT_DICE,
    pursue_dice: int = FLEE_PURSUIT_DICE,
) -> FleePursuitResult:
    """The roll-off of a fleeing unit and its pursuer; a tie destroys the fleeing unit.

    >>> from engine.dice import ScriptedDice
    >>> flee_pursuit(ScriptedDice([3, 4, 5, 2]), "ceorls", "hird").destroyed    # 7 <= 7
    True
    """
    flee = dice.roll(flee_dice, f"flee {fleeing}").faces
    pursue = dice.roll(pursue_dice, f"pursue {pursuer} after {fleeing}").faces
    return FleePursuitResult(flee, pursue)


@dataclass(frozen=True, slots=True)
class EngagedFailure:
    """Morale Tests: "Should a unit fail a morale test while engaged in combat"."""

    flees: bool  # "any units which fail will flee", unless one of the two rules below holds
    may_pursue: bool  # "If the unit has won the combat, it cannot pursue & stays where it is"
    enemy_bonus_next_round: int  # "+1 combat bonus in the following round of combat only"


def engaged_failure(won_combat: bool, combat_continues: bool) -> EngagedFailure:
    """What failing a morale test while engaged does: a winner holds and cannot pursue; in a
    combat that goes on the unit stays in it and its enemy gets +1 next round only; otherwise
    it flees.

    >>> engaged_failure(won_combat=True, combat_continues=False)
    EngagedFailure(flees=False, may_pursue=False, enemy_bonus_next_round=0)
    >>> engaged_failure(won_combat=False, combat_continues=True)
    EngagedFailure(flees=False, may_pursue=False, enemy_bonus_next_round=1)
    >>> engaged_failure(won_combat=False, combat_continues=False).flees
    True
    """
    return EngagedFailure(
        flees=not won_combat and not combat_continues,
        may_pursue=False,
        enemy_bonus_next_round=1 if combat_continues else 0,
    )


def fled_through(
    dice: Dice, unit: WCUnit, mv_modifier: int = 0
) -> tuple[bool, CommandResult | None]:
    """Resolution Summary: "A battle formation may become disordered if friends flee through
    it. It must pass a Command Test." Returns (disordered, the test); other formations do not
    test (the rule names battle formations).

    >>> from engine.dice import ScriptedDice
    >>> disordered, test = fled_through(ScriptedDice([6, 6, 5]), WCUnit("hird", 8, 20, 20))
    >>> disordered, test.first.total
    (True, 11)
    """
    if unit.kind is not FormationKind.BATTLE:
        return False, None
    test = command_test(dice, unit, mv_modifier, f"command {unit.name} (friends fled through)")
    return not test.passed, test


# ---------------------------------------------------------------------------------------------
# Rally, last chance, the General

RALLY_ENEMY_RADIUS_IN = 10.0
GENERAL_ZONE_IN = 10.0
GENERAL_MV_CAP = 10


@dataclass(frozen=True, slots=True)
class RallyEnemy:
    """An enemy near a rallying unit: distance from the rallying unit's leader, in inches."""

    distance_in: float
    kind: FormationKind = FormationKind.BATTLE
    in_combat: bool = False
    fleeing: bool = False


def rally_enemies(enemies: Iterable[RallyEnemy]) -> int:
    """Proximity of the enemy when rallying: formations within 10" of the leader, leaving out
    "Enemy units in combat, individual personalities, and fleeing enemy".

    >>> rally_enemies([RallyEnemy(9.0), RallyEnemy(3.0, in_combat=True), RallyEnemy(10.5),
    ...                RallyEnemy(2.0, FormationKind.PERSONALITY), RallyEnemy(4.0, fleeing=True)])
    1
    """
    return sum(
        1
        for e in enemies
        if e.distance_in <= RALLY_ENEMY_RADIUS_IN
        and not e.in_combat
        and not e.fleeing
        and e.kind is not FormationKind.PERSONALITY
    )


def general_bonus(morale_value: int, in_zone: bool) -> int:
    """Army General: +1 MV within the 10" zone of command, "to a maximum of 10" (a unit already
    above 10 keeps its own); applies to fleeing troops too.

    >>> general_bonus(7, True), general_bonus(10, True), general_bonus(7, False)
    (1, 0, 0)
    """
    return 1 if in_zone and morale_value < GENERAL_MV_CAP else 0


def in_general_zone(
    unit_xy: tuple[float, float], general_xy: tuple[float, float], scale: TableScale
) -> bool:
    """Within the General's 10" zone of command, on the ground (metres) at ``scale``.

    >>> in_general_zone((0.0, 0.0), (0.0, 254.0), TWO_MM_EARTH)
    True
    >>> in_general_zone((0.0, 0.0), (0.0, 254.5), TWO_MM_EARTH)
    False
    """
    d = math.dist(unit_xy, general_xy)
    return d <= scale.metres(GENERAL_ZONE_IN) + 1e-9


def rally_test(
    dice: Dice,
    unit: WCUnit,
    enemies: Iterable[RallyEnemy] = (),
    general_in_zone: bool = False,
) -> MoraleTestResult:
    """End Phase, Rally Troops: a 2d6 morale test at MV -1 per counted enemy within 10", +1 in
    the General's zone. A rallied unit faces the way it fled and is disordered until the start
    of its next round; one that fails flees at once toward its rally point.

    >>> from engine.dice import ScriptedDice
    >>> u = WCUnit("fyrd", 7, 14, 20, fleeing=True)
    >>> r = rally_test(ScriptedDice([3, 3]), u, [RallyEnemy(6.0), RallyEnemy(8.0)], True)
    >>> r.target, r.passed                        # 7 - 2 + 1
    (6, True)
    """
    modifier = -rally_enemies(enemies) + general_bonus(unit.morale_value, general_in_zone)
    return morale_test(dice, unit, modifier, kind=TestKind.RALLY, purpose=f"rally {unit.name}")


@dataclass(frozen=True, slots=True)
class LastChanceResult:
    test: MoraleTestResult
    misses_rounds: int = field(default=1)  # "misses its next round of play"

    @property
    def stands(self) -> bool:
        """Passed: the unit stays off table for one round and may return in the next."""
        return self.test.passed


def last_chance_to_stand(
    dice: Dice, unit: WCUnit, general_in_zone: bool = False
) -> LastChanceResult:
    """Last Chance to Stand: a fleeing unit reaching the table edge tests at MV -1 (2d6).

    >>> from engine.dice import ScriptedDice
    >>> last_chance_to_stand(ScriptedDice([4, 3]), WCUnit("u", 8, 9, 20, fleeing=True)).stands
    True
    """
    modifier = -1 + general_bonus(unit.morale_value, general_in_zone)
    test = morale_test(
        dice, unit, modifier, kind=TestKind.LAST_CHANCE, purpose=f"last chance {unit.name}"
    )
    return LastChanceResult(test)
