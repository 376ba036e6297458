"""War & Conquest's Resolution and End phases played on the engine's battle state.

The glue between the pure procedures of :mod:`engine.rulesets.war_and_conquest.morale` and a
host game whose turn, movement and combat are another book's (``2mm-earth-v0.9+wc-morale``: 2mm
Earth's bound with W&C's morale in place of 10.x/11.x).

How W&C's states sit on the engine's morale states (``engine.state.Morale``):

- W&C *fleeing* is ``ROUTING`` (the engine moves routers toward their home edge: W&C's "flee
  directly toward a designated rally point on their starting table edge");
- a unit that *rallies* faces on and "is considered disordered until the start of their next
  round of play": ``RETREATING`` from the End phase to the start of the next bound, then
  ``STEADY`` (the engine's legal ROUTING -> RETREATING -> STEADY);
- *destroyed* (caught by a pursuer, dispersed, fled off the table) is ``DESTROYED``.

Readings (docs/rules-interpretations.md, "W&C on 2mm Earth"): a unit's MV is its front rank's
melee resilience + 3 (R4 line infantry -> MV 7; at most 10), one less for reluctant troops; the
leader model stands at the front centre; a combat is lost by the formation that lost more bases
in the bound than every enemy it touches; Strategic Advantage is a d6 roll-off each bound
(the Strategy Roll's own chapter is absent).
"""

from __future__ import annotations

import csv
import functools
import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np
import shapely

from engine.dice import DiceResult
from engine.geometry import OBB, corners, forward, obb_array, right, separation
from engine.log import Destroyed, Draw, Event, Names, Pursuit, keep_ids, rolled
from engine.movement import MoveResult, execute_move, swept_rows
from engine.rulesets.two_mm_earth.context import TwoMmContext
from engine.rulesets.two_mm_earth.damage import kill_base
from engine.rulesets.two_mm_earth.morale import SHOCK_OF_CHARGE, set_morale, shocked
from engine.rulesets.two_mm_earth.profiles import Profile
from engine.rulesets.war_and_conquest.morale import (
    GENERAL_ZONE_IN,
    TRIGGERS,
    TWO_MM_EARTH,
    CommandResult,
    Discipline,
    FormationKind,
    MoraleEvent,
    RallyEnemy,
    TableScale,
    Trigger,
    WCUnit,
    alternate,
    command_test,
    engaged_failure,
    flee_pursuit,
    general_bonus,
    last_chance_to_stand,
    morale_test,
    rally_enemies,
    rally_test,
    triggered,
)
from engine.state import CLOCK, BattleState, Formation, Morale
from scenario_builder.errors import ScenarioError
from scenario_builder.paths import data_dir

__all__ = [
    "FledPath",
    "StrategyRoll",
    "WCNotes",
    "WCTest",
    "command",
    "discipline_table",
    "end_phase",
    "flee_move",
    "leader_of",
    "leader_xy",
    "morale_value",
    "notes",
    "receive_order",
    "record_fought",
    "resolution_phase",
    "start_round",
    "strategy_roll",
    "wc_unit",
]

_FLEEING = (Morale.ROUTING,)


@dataclass(frozen=True, slots=True)
class WCTest(Event):
    """A War & Conquest test: ``test`` is "morale", "rally" or "last chance"; ``mv`` the
    modified morale value, ``score`` the two dice kept (2d6, or the two lowest of 3d6)."""

    type: ClassVar[str] = "wc_test"
    draw: ClassVar[Draw] = Draw.MARK
    #: a morale test, drawn as 2mm Earth's panic test is
    mark: ClassVar[str | None] = "panic_test"
    formation: str
    test: str
    triggers: tuple[str, ...]
    mv: int
    score: int
    outcome: str
    dice: DiceResult | None = None
    #: a drilled formation's re-roll of a failed Command Test ("Drilled Formations may always
    #: re-roll failed Command Tests"); ``mv``/``score`` are then the re-roll's
    reroll: DiceResult | None = None

    def to_dict(self) -> dict[str, Any]:
        out = Event.to_dict(self)
        if self.reroll is None:
            del out["reroll"]
        return out

    def actor_id(self) -> str:
        return self.formation

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> WCTest("resolution", "a", "morale", ("lost combat",), 6, 11, "flee",
        ...        DiceResult((6, 5), "morale a")).describe()
        'a W&C morale test (lost combat): rolled 6 and 5, score 11 against MV 6: flee'
        """
        why = f" ({', '.join(self.triggers)})" if self.triggers else ""
        dice = rolled(self.dice) if self.dice is not None else "no dice"
        text = (
            f"{names(self.formation)} W&C {self.test} test{why}: {dice}, score {self.score} "
            f"against MV {self.mv}: {self.outcome}"
        )
        if self.reroll is not None:  # a drilled formation's second throw, the one that counts
            text = text.replace(f": {dice},", f": {dice}; drilled re-roll {rolled(self.reroll)},")
        return text


@dataclass(frozen=True, slots=True)
class StrategyRoll(Event):
    """End Phase 4, "Commence next turn by making a Strategy Roll": a d6 roll-off each turn
    (the Strategy Roll's own chapter is absent), re-rolled on a tie; ``order`` is the sides'
    order for the turn, the one with Strategic Advantage first."""

    type: ClassVar[str] = "wc_strategy"
    bound: int
    order: tuple[str, ...]
    dice: tuple[DiceResult, ...]

    def describe(self, names: Names = keep_ids) -> str:
        """Each side's die of the roll-off (re-rolled on a tie) and who moves first.

        >>> said = StrategyRoll("end", 13, ("english", "scots"),
        ...     (DiceResult((4, 4), "strategy roll turn 13: english v scots"),
        ...      DiceResult((6, 3), "strategy roll turn 13: english v scots"))).describe()
        >>> said.split(": ")
        ['W&C Strategy Roll for turn 13', 'english 4, scots 4, a tie; english 6, scots 3', \
'english have the Strategic Advantage and move first']
        """
        rolls = []
        for d in self.dice:
            # read back from a log, a roll is its JSON form
            faces = tuple(d["faces"] if isinstance(d, Mapping) else d.faces)
            purpose = str(d.get("purpose", "") if isinstance(d, Mapping) else d.purpose)
            sides = purpose.split(": ", 1)[-1].split(" v ")
            if len(sides) == len(faces):
                said = ", ".join(f"{names(s)} {f}" for s, f in zip(sides, faces, strict=True))
            else:
                said = rolled(faces)
            tie = len(set(faces)) == 1 and len(faces) > 1
            rolls.append(said + (", a tie" if tie else ""))
        return (
            f"W&C Strategy Roll for turn {self.bound}: {'; '.join(rolls)}: "
            f"{names(self.order[0])} have the Strategic Advantage and move first"
        )


@dataclass(frozen=True, slots=True)
class FledPath:
    """One flee move (Resolution Summary 2, "Resolve Pursuit & Flee Moves"): where the fleeing
    formation went and the friendly formations whose ground its path crossed."""

    formation: str
    start: tuple[float, float, float]
    end: tuple[float, float, float]
    through: tuple[str, ...]


@dataclass(slots=True)
class WCNotes:
    """What W&C keeps across the phases: the table scale, this turn's Strategic Advantage (the
    sides' order and the bound it is for), this bound's flee moves through friends, and who
    fought whom in this bound's melee (:func:`record_fought`)."""

    scale: TableScale
    order: tuple[str, ...] = ()
    order_bound: int | None = None
    fled: list[FledPath] = field(default_factory=list)
    #: each formation's enemies in contact when the melee was fought, and the bound it was
    #: fought in: the Resolution phase judges the combat from these, since the melee's kills
    #: can break the contact before the results are taken
    fought: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fought_bound: int | None = None


def notes(ctx: TwoMmContext, scale: TableScale = TWO_MM_EARTH) -> WCNotes:
    """The battle's W&C notes (made on first use), and the flee move hooked into the host's
    move phase: fleeing troops pass through friends (:func:`flee_move`)."""
    if not isinstance(ctx.morale_notes, WCNotes):
        ctx.morale_notes = WCNotes(scale)
        ctx.flee_move = functools.partial(flee_move, ctx.morale_notes)
    return ctx.morale_notes


_MAX_PASSES = 8
#: how a test's log line names the Army General's +1 (Army General: "Zone of command of 10"")
ZONE = "General's zone of command (+1)"


def morale_value(f: Formation) -> int:
    """A formation's MV: front-rank melee resilience + 3, at most 10; reluctant troops -1."""
    front = f.front_rank() or f.alive_bases
    if not front:
        return 0
    r = round(sum(cast(Profile, b.profile).resilience.melee for b in front) / len(front))
    mv = min(r + 3, 10)
    return mv - 1 if str(f.temperament) == "reluctant" else mv


@functools.cache
def discipline_table() -> dict[tuple[str, str], Discipline]:
    """``data/troops/wc_discipline.csv``: (army, profile) -> drilled or undisciplined, each with
    its source; a troop type not listed is ordinary (Command Tests' "two exceptions").

    >>> discipline_table()[("roman_ad9", "legionaries")]
    <Discipline.DRILLED: 'drilled'>
    """
    path = data_dir() / "troops" / "wc_discipline.csv"
    out: dict[tuple[str, str], Discipline] = {}
    with path.open(newline="", encoding="utf-8") as fh:
        for n, row in enumerate(csv.DictReader(fh), start=2):
            try:
                out[row["army"], row["profile"]] = Discipline(row["discipline"])
            except (KeyError, ValueError) as exc:
                raise ScenarioError(f"{path}: line {n}: bad discipline row ({exc})") from None
    return out


def _discipline(scenario: Any, f: Formation) -> Discipline:
    """The formation's discipline: its front rank's troop type, looked up for its side's army
    (the scenario names each side's army)."""
    army = None
    if scenario is not None:
        army = next((s.army for s in scenario.sides if s.id == f.side), None)
    front = f.front_rank() or f.alive_bases
    if not army or not front:
        return Discipline.ORDINARY
    pid = getattr(front[0].profile, "id", "")
    return discipline_table().get((army, pid), Discipline.ORDINARY)


def wc_unit(f: Formation, scenario: Any = None) -> WCUnit:
    """The W&C view of a formation: MV, strength in bases, battle or skirmish formation, and
    (given the scenario, whose sides name their armies) drilled or undisciplined."""
    full = max(f.start_bases or len(f.bases), f.n_alive, 1)
    kind = FormationKind.SKIRMISH if (f.loose or f.skirmisher) else FormationKind.BATTLE
    return WCUnit(
        f.id,
        morale_value(f),
        f.n_alive,
        full,
        kind,
        _discipline(scenario, f),
        fleeing=f.morale in _FLEEING,
    )


def leader_xy(f: Formation) -> tuple[float, float]:
    """Where the unit's leader model stands: the middle of its front edge."""
    o = f.obb()
    fx, fy = forward(o.facing)
    return o.cx + o.hd * fx, o.cy + o.hd * fy


def leader_of(ctx: TwoMmContext, f: Formation) -> tuple[float, float]:
    """Where the unit's leader model stands: the middle of its front edge, or for a fleeing unit
    the middle of the edge it flees by. Fleeing troops flee "directly toward a designated rally
    point on their starting table edge" and, rallied, "face the direction they were fleeing":
    the unit has turned to its flight, so its leader leads toward its home edge (the engine's
    rout move does not turn the rectangle, so this is the edge nearest that way)."""
    if f.morale not in _FLEEING or f.side not in ctx.state.sides:
        return leader_xy(f)
    o = f.obb()
    hx, hy = forward(ctx.state.sides[f.side].home_bearing(o.cx, o.cy))
    fx, fy = forward(o.facing)
    rx, ry = right(o.facing)
    edges = ((fx, fy, o.hd), (-fx, -fy, o.hd), (rx, ry, o.hw), (-rx, -ry, o.hw))
    ux, uy, reach = max(edges, key=lambda e: e[0] * hx + e[1] * hy)
    return o.cx + reach * ux, o.cy + reach * uy


def _inches(a: tuple[float, float], b: tuple[float, float], scale: TableScale) -> float:
    return scale.inches(math.dist(a, b))


def record_fought(ctx: TwoMmContext) -> None:
    """Note who is fighting whom as the melee is fought (the contacts its dice were rolled
    for). Resolution: "check morale for units ... that have been in or near combat": a unit
    whose front bases the melee killed still fought this round, won or lost it, and may
    pursue; the contacts left after the melee's damage no longer show it."""
    wc = notes(ctx)
    wc.fought = {fid: ids for fid, ids in ctx.state.contacts.items() if ids}
    wc.fought_bound = ctx.state.bound


def _fought(ctx: TwoMmContext, f: Formation) -> tuple[str, ...]:
    """The enemies ``f`` fought in this bound's melee (:func:`record_fought`)."""
    wc = notes(ctx)
    if wc.fought_bound != ctx.state.bound:
        return ()
    return wc.fought.get(f.id, ())


def _fought_enemies(ctx: TwoMmContext, f: Formation) -> list[Formation]:
    """The enemies ``f`` fought this bound that are still on the table."""
    state = ctx.state
    return [state.formations[i] for i in _fought(ctx, f) if not state.formations[i].removed]


def _combat_result(ctx: TwoMmContext, f: Formation) -> str | None:
    """ "lost", "won", "draw" for a formation in contact this bound, else None."""
    enemies = _fought_enemies(ctx, f)
    if not enemies:
        return None
    theirs = [g.killed_in_bound for g in enemies]
    if f.killed_in_bound > max(theirs):
        return "lost"
    if f.killed_in_bound < min(theirs):
        return "won"
    return "draw"


def _general_in_zone(ctx: TwoMmContext, f: Formation, scale: TableScale) -> bool:
    """Army General: within 10" of the side's living general's base."""
    state = ctx.state
    side = state.sides[f.side]
    gid = side.general
    ch = state.characters.get(gid) if gid else None
    if ch is None or not ch.alive:
        return False
    for g in state.active(f.side):
        for b in g.alive_bases:
            if b.id == ch.base:
                return _inches(leader_of(ctx, f), (b.x, b.y), scale) <= GENERAL_ZONE_IN
    return False


#: "Fleeing Friends within 5\"": no fleeing friend further can make a unit test
_FLEEING_FRIEND_IN = next(r.within_in for r in TRIGGERS if r.trigger is Trigger.FRIEND_FLEEING)


def _not_steady(state: BattleState) -> list[Formation]:
    """The formations (of every side, in the state's order, off the table too) fleeing or
    destroyed: those _events_for's friend triggers can come from. Kept while the state's clock
    stands (any formation's morale or bases changing moves it)."""
    memo = state.table().memo
    hit = memo.get("wc_not_steady")
    key = (CLOCK.now, len(state.formations))
    if hit is None or hit[0] != key:
        out = [
            g
            for g in state.formations.values()
            if g.morale in _FLEEING or g.morale is Morale.DESTROYED
        ]
        hit = memo["wc_not_steady"] = (key, out)
    return cast("list[Formation]", hit[1])


def _general_cases(state: BattleState, side: str, gid: str | None) -> list[Formation]:
    """The formations of ``side`` (in the state's order) where its general ``gid`` was slain
    this bound or flees: those _events_for's general triggers can come from, each tested
    again there. Kept while the state's clock stands: a base's death moves it just before
    ``characters_killed`` grows, and so does a change of morale."""
    if not gid:
        return []
    memo = state.table().memo
    key = (CLOCK.now, len(state.formations))
    hit = memo.get(("wc_general", side))
    if hit is None or hit[0] != key:
        out = [
            g
            for g in state.formations.values()
            if g.side == side
            and (gid in g.characters_killed or (g.morale in _FLEEING and gid in g.character_ids()))
        ]
        hit = memo[("wc_general", side)] = (key, out)
    return cast("list[Formation]", hit[1])


def _beyond_inches(me: tuple[float, float], g: Formation, scale: TableScale, inches: float) -> bool:
    """Whether every point of ``g``'s rectangle (its leader's place among them) lies further
    than ``inches`` from ``me`` (its centre's distance less its half-diagonal, a metre to
    spare for rounding): a trigger within ``inches`` of its leader cannot apply."""
    o = g.obb()
    near = math.dist(me, (o.cx, o.cy)) - math.hypot(o.hw, o.hd) - 1.0
    return near > 0.0 and scale.inches(near) > inches


def _events_for(
    ctx: TwoMmContext, f: Formation, broke: Iterable[Formation], scale: TableScale
) -> list[MoraleEvent]:
    """The Morale Tests circumstances around ``f`` this bound, as :class:`MoraleEvent`: those
    that can apply (a fleeing friend beyond the 5\" of its trigger is left out: it would make
    no test)."""
    state = ctx.state
    me = leader_of(ctx, f)
    out: list[MoraleEvent] = []
    for g in broke:
        if g.side == f.side and g.id != f.id:
            out.append(MoraleEvent(Trigger.FRIEND_BROKE, _inches(me, leader_of(ctx, g), scale)))
    for g in _not_steady(state):
        if g.side != f.side or g.id == f.id:
            continue
        if (
            g.morale is Morale.DESTROYED
            and g.changed_bound == state.bound
            and g.routed_bound is not None
            and g.alive_bases == []
        ):
            # destroyed this round while fleeing; its last position stands for its leader
            out.append(
                MoraleEvent(Trigger.FRIEND_DESTROYED_FLEEING, _inches(me, (g.cx, g.cy), scale))
            )
        if g.morale in _FLEEING and not g.removed:
            if _FLEEING_FRIEND_IN is not None and _beyond_inches(me, g, scale, _FLEEING_FRIEND_IN):
                continue
            kind = FormationKind.SKIRMISH if (g.loose or g.skirmisher) else FormationKind.BATTLE
            out.append(
                MoraleEvent(
                    Trigger.FRIEND_FLEEING, _inches(me, leader_of(ctx, g), scale), kind, g.n_alive
                )
            )
    if f.alive_at_start:
        out.append(
            MoraleEvent(
                Trigger.CASUALTIES_20,
                casualty_fraction=f.killed_in_bound / f.alive_at_start,
                engaged=bool(_fought(ctx, f)),
            )
        )
    gid = state.sides[f.side].general
    for g in _general_cases(state, f.side, gid):  # none without a general
        if gid in g.characters_killed:
            out.append(MoraleEvent(Trigger.GENERAL_SLAIN, _inches(me, (g.cx, g.cy), scale)))
        # (the cheap tests first: character_ids walks the bases)
        if g.morale in _FLEEING and g.id != f.id and gid in g.character_ids():
            d = _inches(me, leader_of(ctx, g), scale)
            out.append(MoraleEvent(Trigger.GENERAL_FLEEING, d))
            if g.changed_bound == state.bound:  # routed this round
                out.append(MoraleEvent(Trigger.GENERAL_SLAIN, d))
    return out


def strategy_roll(ctx: TwoMmContext, bound: int, phase: str) -> list[Event]:
    """End Phase 4, "Commence next turn by making a Strategy Roll": a d6 roll-off for the
    turn ``bound`` (re-rolled on a tie); the winner has Strategic Advantage all that turn
    (Resolution Summary 1 and 2, Rally Troops)."""
    wc = notes(ctx)
    sides = sorted(ctx.state.sides)
    rolls: list[DiceResult] = []
    order = tuple(sides)
    if len(sides) >= 2:
        while True:
            r = ctx.dice.roll(2, f"strategy roll turn {bound}: " + " v ".join(sides[:2]))
            rolls.append(r)
            a, b = r.faces
            if a != b:
                order = (sides[0], sides[1]) if a > b else (sides[1], sides[0])
                break
    wc.order, wc.order_bound = order, bound
    return [StrategyRoll(phase, bound, order, tuple(rolls))]


def _side_order(ctx: TwoMmContext, events: list[Event], phase: str) -> list[str]:
    """This turn's Strategic Advantage order; the turn's Strategy Roll is made now if it has
    not been (the first turn, or a phase played on its own)."""
    wc = notes(ctx)
    if wc.order_bound != ctx.state.bound:
        events += strategy_roll(ctx, ctx.state.bound, phase)
    return list(wc.order)


def command(
    ctx: TwoMmContext,
    f: Formation,
    reason: str,
    scale: TableScale,
    phase: str,
    mv_modifier: int = 0,
) -> tuple[CommandResult, WCTest]:
    """Command Tests: "Taken the same way as morale tests & use the unit's morale value",
    +1 in the Army General's 10" zone of command (to a maximum of 10); drilled formations
    re-roll a failure. The result and its log line (``reason`` says why it was taken)."""
    unit = wc_unit(f, ctx.scenario)
    zone = general_bonus(unit.morale_value, _general_in_zone(ctx, f, scale))
    n = len(ctx.dice.history)
    r = command_test(ctx.dice, unit, mv_modifier + zone, f"command {f.id} ({reason})")
    rolled = ctx.dice.history[n:]
    last = r.reroll or r.first
    why = (reason, ZONE) if zone else (reason,)
    ev = WCTest(
        phase,
        f.id,
        "command",
        why,
        last.target,
        last.total,
        "pass" if r.passed else "fail",
        rolled[0] if rolled else None,
        rolled[1] if len(rolled) > 1 else None,
    )
    return r, ev


def _in_turn(ctx: TwoMmContext, forms: list[Formation], order: list[str]) -> list[Formation]:
    by_side = {s: sorted((f for f in forms if f.side == s), key=lambda f: f.id) for s in order}
    return alternate(*(by_side[s] for s in order)) if len(order) == 2 else forms


def resolution_phase(
    ctx: TwoMmContext, scale: TableScale = TWO_MM_EARTH, phase: str = "resolution"
) -> list[Event]:
    """Resolution Summary: morale tests (Strategic Advantage first, then alternate; each unit
    at most once; units that fail flee), then pursuit and flee roll-offs."""
    state = ctx.state
    events: list[Event] = []
    notes(ctx, scale)
    order = _side_order(ctx, events, phase)
    tested: set[str] = set()
    barred: set[str] = set()  # won, failed: "cannot pursue & stays where it is"
    broke: list[Formation] = []  # fled from combat this phase (10" trigger for friends)
    fled: list[Formation] = []  # every unit that failed this phase: each flees (2)
    for _ in range(_MAX_PASSES):
        fresh = False
        steady = [f for f in state.active() if f.morale is Morale.STEADY and f.id not in tested]
        for f in _in_turn(ctx, steady, order):
            result = _combat_result(ctx, f)
            unit = wc_unit(f, ctx.scenario)
            found, mod = triggered(unit, _events_for(ctx, f, broke, scale))
            names = tuple(t.value for t in found)
            if result == "lost":
                names = ("lost combat", *names)
            if ctx.special.shock is not None and shocked(ctx, f):
                # special rule shock_of_charge: charged this bound, raw or unready; tested in
                # the book's Resolution, with the book's test and modifiers
                names = (*names, SHOCK_OF_CHARGE)
            if not names:
                continue
            tested.add(f.id)
            zone = general_bonus(unit.morale_value, _general_in_zone(ctx, f, scale))
            mod += zone
            names = (*names, ZONE) if zone else names
            r = morale_test(ctx.dice, unit, mod, combat=result == "lost", purpose=f"morale {f.id}")
            outcome = "pass" if r.passed else "flee"
            if not r.passed and result is not None:
                fail = engaged_failure(result == "won", combat_continues=result == "draw")
                if not fail.flees:
                    outcome = "hold"
                    barred.add(f.id)
                if fail.enemy_bonus_next_round:  # its enemy gets +1 in the next round's melee
                    ctx.melee_bonus_against[f.id] = ctx.state.bound + 1
            events.append(
                WCTest(
                    phase, f.id, "morale", names, r.target, r.total, outcome, ctx.dice.history[-1]
                )
            )
            if outcome == "flee":
                why = f"W&C morale test ({', '.join(names)})"
                events += set_morale(ctx, f, Morale.ROUTING, why, phase)
                fresh = True
                fled.append(f)
                if result is not None:
                    broke.append(f)
        if not fresh:
            break
    # 2: Resolve Pursuit & Flee Moves, in the order Strategic Advantage selects: formations
    # that friends fled through this bound take their Command Tests first (their disorder
    # bars them from pursuing), then the pursuit roll-offs, then the flee moves of the units
    # that broke in this phase and survived them, and the tests of the friends they fled
    # through
    events += _fled_through_tests(ctx, order, scale, phase)
    events += _pursuit(ctx, broke, barred, order, scale, phase)
    events += _flee_moves(ctx, fled, order, scale, phase)
    events += _fled_through_tests(ctx, order, scale, phase)
    return events


def _flee_moves(
    ctx: TwoMmContext, fled: list[Formation], order: list[str], scale: TableScale, phase: str
) -> list[Event]:
    """Resolution Summary 2, "Resolve Pursuit & Flee Moves": each unit that failed its test
    this phase makes its flee move now (the host's rout move, 2mm Earth 11.1, through friends
    by :func:`flee_move`), so the End Phase judges dispersal (3, "Fleeing troops that contact
    friend or foe") where the flight took it, not where it stood in the line when it broke.
    Later flee moves are the host's move phase (End Phase 2, "Move troops that failed to
    rally")."""
    from engine.log import Moved
    from engine.movement import update_contacts
    from engine.rulesets.two_mm_earth.phases import rout_plan, wall_classes

    state = ctx.state
    notes(ctx, scale)  # the notes and ctx.flee_move, made on first use
    events: list[Event] = []
    moving = [f for f in fled if not f.removed and f.morale in _FLEEING]
    for f in _in_turn(ctx, moving, order):
        plan = rout_plan(ctx, f)
        f.moved_m = 0.0  # this flight's own distance (special rule surrender reads it)
        before = {b.id: (b.x, b.y, b.facing) for b in f.bases}
        # the context's flee move (the seam the host's move phase calls too), so whatever
        # wraps it sees every flight of the bound
        res = ctx.flee_move(
            ctx.bf, state, f, plan, rules=ctx.move_rules, classes_fn=wall_classes(ctx, f)
        )
        if res.distance_m > 0:
            # the flee move is a move of its own, after the bound's Movement: its allowance
            # is measured from where the unit broke (engine.testing checks each move noted)
            ctx.start_poses[f.id] = before
            ctx.allowances[f.id] = res.allowance_m
            events.append(
                Moved(
                    phase,
                    f.id,
                    res.start[:2],
                    res.end[:2],
                    res.end[2],
                    res.distance_m,
                    res.allowance_m,
                    res.halted,
                )
            )
    if moving:
        ctx.base_pairs = update_contacts(state)
        if ctx.special.surrender is not None:  # a flight that could not get away
            from engine.rulesets.two_mm_earth.phases import surrender_cut_off

            events += surrender_cut_off(ctx, [f.id for f in moving], phase)
    return events


def _fled_through_tests(
    ctx: TwoMmContext, order: list[str], scale: TableScale, phase: str
) -> list[Event]:
    """Resolution Summary 2: "A battle formation may become disordered if friends flee through
    it. It must pass a Command Test." The flee moves are this bound's real ones
    (:func:`flee_move` records the friends each path crossed); a formation tests once however
    many friends passed, and one that fails is disordered (``RETREATING``) until the start of
    its next round, as a rallied unit is (Rally Troops)."""
    wc = notes(ctx, scale)
    state = ctx.state
    by: dict[str, list[str]] = {}
    for path in wc.fled:
        for fid in path.through:
            by.setdefault(fid, []).append(path.formation)
    wc.fled = []
    forms = [state.formations[fid] for fid in by]
    forms = [f for f in forms if not f.removed and f.morale is Morale.STEADY]
    events: list[Event] = []
    for f in _in_turn(ctx, forms, order):
        unit = wc_unit(f, ctx.scenario)
        if unit.kind is not FormationKind.BATTLE:
            continue  # the rule names battle formations
        why = "friends fled through: " + ", ".join(sorted(set(by[f.id])))
        r, ev = command(ctx, f, why, scale, phase)
        disordered = not r.passed
        events.append(ev if not disordered else _with_outcome(ev, "disordered"))
        if disordered:
            events += set_morale(ctx, f, Morale.RETREATING, "W&C disordered: " + why, phase)
    return events


def _with_outcome(ev: WCTest, outcome: str) -> WCTest:
    return WCTest(
        ev.phase, ev.formation, ev.test, ev.triggers, ev.mv, ev.score, outcome, ev.dice, ev.reroll
    )


def _restrains(g: Formation) -> bool:
    """The host's "commanded to retreat or hold" (2mm Earth 11.1): the formation would not
    pursue."""
    return g.order in ("hold", "retreat") or g.held


def _pursuit(
    ctx: TwoMmContext,
    broke: list[Formation],
    barred: set[str],
    order: list[str],
    scale: TableScale,
    phase: str,
) -> list[Event]:
    """Pursuit & Flee Moves: a fleeing unit that rolls <= its pursuer is destroyed; the
    engine's pursuit and rout moves carry the survivors. A formation in contact that is
    commanded to hold or retreat restrains its men only if it passes a Command Test ("If
    successful the unit may perform the maneuver or response"); one that fails pursues."""
    events: list[Event] = []
    for f in _in_turn(ctx, broke, order):
        candidates = sorted(
            (
                g
                for g in _fought_enemies(ctx, f)
                if g.morale is Morale.STEADY and g.id not in barred
            ),
            key=lambda g: g.id,
        )
        p = None
        for g in candidates:
            if not _restrains(g):
                p = g
                break
            r, ev = command(ctx, g, f"restrain pursuit of {f.id}", scale, phase)
            events.append(_with_outcome(ev, "restrained" if r.passed else "pursues"))
            if not r.passed:
                p = g
                break
        if p is None:
            continue
        p.pursuing = f.id
        events.append(Pursuit(phase, p.id, f.id))
        roll = flee_pursuit(ctx.dice, f.id, p.id)
        if roll.destroyed:
            events += _destroy(ctx, f, "W&C caught fleeing (flee <= pursuit roll)", phase)
    return events


def _destroy(
    ctx: TwoMmContext, f: Formation, reason: str, phase: str, *, dispersed: bool = False
) -> list[Event]:
    """The unit removed; ``dispersed``: it fled off the table or dispersed, so its bases are
    counted dispersed, not killed (engine.casualties)."""
    state = ctx.state
    events: list[Event] = []
    gone = []
    for b in f.alive_bases:
        events.append(kill_base(f, b, by=phase, phase=phase, characters=state.characters))
        gone.append(b.id)
    if dispersed:
        ctx.dispersed.update(gone)
    f.morale = Morale.DESTROYED
    f.changed_bound = state.bound
    events.append(Destroyed(phase, f.id, reason, tuple(gone)))
    return events


def _off_table(ctx: TwoMmContext, f: Formation) -> bool:
    o = f.obb()
    return not bool(ctx.bf.contains(o.cx, o.cy))


def _touching_any(ctx: TwoMmContext, f: Formation) -> bool:
    """The fleeing unit's leader is in contact with any other unit (friend or foe)."""
    from engine.geometry import CONTACT_M, obb_array, separation

    others = [g for g in ctx.state.active() if g.id != f.id]
    if not others:
        return False
    lx, ly = leader_of(ctx, f)
    o = f.obb()
    probe = type(o)(lx, ly, 0.5, 0.5, o.facing)
    gaps = separation(probe, obb_array([g.obb() for g in others]))
    return bool((gaps <= CONTACT_M).any())


def end_phase(
    ctx: TwoMmContext, scale: TableScale = TWO_MM_EARTH, phase: str = "end"
) -> list[Event]:
    """End Phase 1-3: rally fleeing troops (2d6, -1 MV per enemy formation within 10"), the
    last chance to stand for those that reached the table edge, and dispersal of fleeing units
    whose leader touches another unit."""
    state = ctx.state
    events: list[Event] = []
    notes(ctx, scale)
    order = _side_order(ctx, events, phase)
    fleeing = [f for f in state.active() if f.morale in _FLEEING]
    for f in _in_turn(ctx, fleeing, order):
        unit = wc_unit(f, ctx.scenario)
        zone = _general_in_zone(ctx, f, scale)
        plus = (ZONE,) if general_bonus(unit.morale_value, zone) else ()
        if _off_table(ctx, f):
            last = last_chance_to_stand(ctx.dice, unit, zone)
            events.append(
                WCTest(
                    phase,
                    f.id,
                    "last chance",
                    ("reached the table edge", *plus),
                    last.test.target,
                    last.test.total,
                    "stand" if last.stands else "fled",
                    ctx.dice.history[-1],
                )
            )
            if last.stands:
                why = "W&C last chance to stand"
                events += set_morale(ctx, f, Morale.RETREATING, why, phase)
                f.order = "hold"
            else:
                events += _destroy(ctx, f, "W&C fled off the table", phase, dispersed=True)
            continue
        me = leader_of(ctx, f)
        enemies = [
            RallyEnemy(
                _inches(me, leader_of(ctx, g), scale),
                FormationKind.BATTLE,
                bool(state.contacts.get(g.id)),
                g.morale in _FLEEING,
            )
            for g in state.enemies_of(f.side)
        ]
        r = rally_test(ctx.dice, unit, enemies, zone)
        verdict = "rallied" if r.passed else "flees"
        near = rally_enemies(enemies)
        counted: tuple[str, ...] = (f'{near} enemy within 10" (-{near})',) if near else ()
        events.append(
            WCTest(
                phase,
                f.id,
                "rally",
                counted + plus,
                r.target,
                r.total,
                verdict,
                ctx.dice.history[-1],
            )
        )
        if r.passed:
            events += set_morale(ctx, f, Morale.RETREATING, "W&C rallied (disordered)", phase)
            f.retreat_from = None
            f.order = "hold"
    for f in list(state.active()):
        if f.morale in _FLEEING and _touching_any(ctx, f):
            events += _destroy(
                ctx, f, "W&C dispersed: fleeing into another unit", phase, dispersed=True
            )
    # 4: "Commence next turn by making a Strategy Roll"
    events += strategy_roll(ctx, state.bound + 1, phase)
    return events


def start_round(ctx: TwoMmContext, phase: str = "orders") -> list[Event]:
    """Rallied units are disordered "until the start of their next round of play"."""
    events: list[Event] = []
    for f in ctx.state.active():
        rallied = f.morale is Morale.RETREATING and f.changed_bound is not None
        if rallied and f.changed_bound < ctx.state.bound:  # type: ignore[operator]
            events += set_morale(ctx, f, Morale.STEADY, "W&C disorder ends", phase)
    return events


# ---------------------------------------------------------------------------------------------
# Flee moves through friends (Resolution Summary 2)

_PATH_STEP_M = 5.0  # a turning flee move's path is swept in steps of this many metres
_TOUCH_M2 = 1.0  # overlap below this (m2) is a touch, not a path through


def _overlapping(box: OBB, forms: list[Formation], arr: np.ndarray) -> list[Formation]:
    if not forms:
        return []
    gaps = separation(box, arr)
    return [forms[int(k)] for k in (gaps < -1e-6).nonzero()[0]]


def flee_move(
    wc: WCNotes,
    bf: Any,
    state: BattleState,
    f: Formation,
    plan: Any,
    *,
    rules: Any,
    classes_fn: Any = None,
    table: tuple[list[Formation], np.ndarray] | None = None,
) -> MoveResult:
    """A fleeing formation's move (``engine.movement.execute_move``'s arguments): it flees
    through friendly formations ("A battle formation may become disordered if friends flee
    through it"), never through the enemy, and may not end on a friend: a move that would
    stops at the near side of the friend it would end on, in contact (and so disperses in the
    End Phase, 3). The friends the path crossed are noted for the Resolution phase's Command
    Tests (:class:`FledPath`)."""
    if table is None:
        forms = [g for g in state.active() if g is not f]
        arr = obb_array([g.obb() for g in forms])
    else:
        forms, arr = table
    keep = [k for k, g in enumerate(forms) if g.side != f.side or g is f]
    friends = [g for g in forms if g.side == f.side and g is not f]
    friend_arr = obb_array([g.obb() for g in friends]) if friends else np.zeros((0, 5))
    start = (f.cx, f.cy, f.facing)
    before = f.obb()

    def run(rows: list[int]) -> MoveResult:
        sub = ([forms[k] for k in rows], arr[rows] if rows else np.zeros((0, 5)))
        return execute_move(bf, state, f, plan, rules=rules, classes_fn=classes_fn, table=sub)

    res = run(keep)
    ids: set[str] = set()
    for _ in range(len(friends)):
        landed = _overlapping(f.obb(), friends, friend_arr)
        if not landed:
            break
        # may not end on a friend: stop short of the one it would land on (and of any other
        # it would land on instead)
        f.set_pose(*start)
        state.version += 1
        ids |= {g.id for g in landed}
        res = run(sorted(keep + [k for k, g in enumerate(forms) if g.id in ids]))
    through = _crossed(before, f.obb(), friends, friend_arr)
    if through:
        wc.fled.append(FledPath(f.id, start, (f.cx, f.cy, f.facing), through))
    return res


def _crossed(
    before: OBB, after: OBB, friends: list[Formation], friend_arr: np.ndarray
) -> tuple[str, ...]:
    """The friends whose ground the formation's rectangle swept from ``before`` to ``after``:
    the union of the hulls of its rectangle at successive poses (one hull for a straight move;
    a turn is shared out over steps of a few metres), overlapping a friend's rectangle by more
    than a touch."""
    if not friends:
        return ()
    dist = math.hypot(after.cx - before.cx, after.cy - before.cy)
    dth = ((after.facing - before.facing + 180.0) % 360.0) - 180.0
    n = 1 if abs(dth) < 1e-9 else max(1, math.ceil(dist / _PATH_STEP_M))
    rects = [
        shapely.Polygon(
            corners(
                OBB(
                    before.cx + (after.cx - before.cx) * t,
                    before.cy + (after.cy - before.cy) * t,
                    before.hw,
                    before.hd,
                    (before.facing + dth * t) % 360.0,
                )
            )
        )
        for t in (i / n for i in range(n + 1))
    ]
    swept = shapely.union_all(
        [shapely.convex_hull(a.union(b)) for a, b in itertools.pairwise(rects)]
    )
    # only the friends within reach of the way can meet the swept ground (movement.swept_rows:
    # each pose's rectangle lies within its half-diagonal of its centre on the way)
    near = swept_rows(
        (0.0, 0.0, before.hw, before.hd), before.cx, before.cy, after.cx, after.cy, friend_arr
    ).tolist()
    friend_polys = [shapely.Polygon(corners(OBB(*map(float, friend_arr[k])))) for k in near]
    return tuple(
        friends[k].id
        for k, poly in zip(near, friend_polys, strict=True)
        if swept.intersection(poly).area > _TOUCH_M2
    )


# ---------------------------------------------------------------------------------------------
# Orders: the host's order response taken as a Command Test


def receive_order(ctx: TwoMmContext, scale: TableScale) -> Any:
    """The orders phase's ``receive`` (2mm Earth 9.1-9.3): where chart 9.3 makes a formation
    roll to see whether it carries out an order, W&C's Command Test decides instead ("If
    successful the unit may perform the maneuver or response"): passed, it obeys; failed, it
    does what the chart's other result says (holds, attacks, or - reluctant troops ordered to
    retreat - routs)."""
    from engine.rulesets.two_mm_earth import orders as two_mm_orders

    def respond(f: Formation, temperament: Any, kind: str) -> tuple[str, list[Event]]:
        outcomes = {ctx.rs.order_outcome(temperament, kind, die) for die in range(1, 7)}
        failed = next((o for o in sorted(outcomes) if o != kind), kind)
        r, ev = command(ctx, f, f"order {kind} (9.3, {temperament})", scale, "orders")
        outcome = kind if r.passed else failed
        return outcome, [_with_outcome(ev, f"{'pass' if r.passed else 'fail'}: {outcome}")]

    def receive(state: Any, order: Any, dice: Any, rs: Any) -> list[Event]:
        return two_mm_orders.receive_order(state, order, dice, rs, respond=respond)

    return receive
