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

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, cast

from engine.dice import DiceResult
from engine.geometry import forward
from engine.log import Destroyed, Event, Pursuit
from engine.rulesets.two_mm_earth.context import TwoMmContext
from engine.rulesets.two_mm_earth.damage import kill_base
from engine.rulesets.two_mm_earth.morale import set_morale
from engine.rulesets.two_mm_earth.profiles import Profile
from engine.rulesets.war_and_conquest.morale import (
    GENERAL_ZONE_IN,
    TWO_MM_EARTH,
    FormationKind,
    MoraleEvent,
    RallyEnemy,
    TableScale,
    Trigger,
    WCUnit,
    alternate,
    engaged_failure,
    flee_pursuit,
    general_bonus,
    last_chance_to_stand,
    morale_test,
    rally_test,
    triggered,
)
from engine.state import Formation, Morale

__all__ = [
    "WCTest",
    "end_phase",
    "leader_xy",
    "morale_value",
    "resolution_phase",
    "start_round",
    "wc_unit",
]

_FLEEING = (Morale.ROUTING,)


@dataclass(frozen=True, slots=True)
class WCTest(Event):
    """A War & Conquest test: ``test`` is "morale", "rally" or "last chance"; ``mv`` the
    modified morale value, ``score`` the two dice kept (2d6, or the two lowest of 3d6)."""

    type: ClassVar[str] = "wc_test"
    formation: str
    test: str
    triggers: tuple[str, ...]
    mv: int
    score: int
    outcome: str
    dice: DiceResult | None = None


_MAX_PASSES = 8


def morale_value(f: Formation) -> int:
    """A formation's MV: front-rank melee resilience + 3, at most 10; reluctant troops -1."""
    front = f.front_rank() or f.alive_bases
    if not front:
        return 0
    r = round(sum(cast(Profile, b.profile).resilience.melee for b in front) / len(front))
    mv = min(r + 3, 10)
    return mv - 1 if str(f.temperament) == "reluctant" else mv


def wc_unit(f: Formation) -> WCUnit:
    """The W&C view of a formation: MV, strength in bases, battle or skirmish formation."""
    full = max(f.start_bases or len(f.bases), f.n_alive, 1)
    kind = FormationKind.SKIRMISH if (f.loose or f.skirmisher) else FormationKind.BATTLE
    return WCUnit(f.id, morale_value(f), f.n_alive, full, kind, fleeing=f.morale in _FLEEING)


def leader_xy(f: Formation) -> tuple[float, float]:
    """Where the unit's leader model stands: the middle of its front edge."""
    o = f.obb()
    fx, fy = forward(o.facing)
    return o.cx + o.hd * fx, o.cy + o.hd * fy


def _inches(a: tuple[float, float], b: tuple[float, float], scale: TableScale) -> float:
    return scale.inches(math.dist(a, b))


def _enemies_in_contact(ctx: TwoMmContext, f: Formation) -> list[Formation]:
    state = ctx.state
    return [
        state.formations[i] for i in state.contacts.get(f.id, ()) if not state.formations[i].removed
    ]


def _combat_result(ctx: TwoMmContext, f: Formation) -> str | None:
    """ "lost", "won", "draw" for a formation in contact this bound, else None."""
    enemies = _enemies_in_contact(ctx, f)
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
                return _inches(leader_xy(f), (b.x, b.y), scale) <= GENERAL_ZONE_IN
    return False


def _events_for(
    ctx: TwoMmContext, f: Formation, broke: Iterable[Formation], scale: TableScale
) -> list[MoraleEvent]:
    """The Morale Tests circumstances around ``f`` this bound, as :class:`MoraleEvent`."""
    state = ctx.state
    me = leader_xy(f)
    out: list[MoraleEvent] = []
    for g in broke:
        if g.side == f.side and g.id != f.id:
            out.append(MoraleEvent(Trigger.FRIEND_BROKE, _inches(me, leader_xy(g), scale)))
    for g in state.formations.values():
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
            kind = FormationKind.SKIRMISH if (g.loose or g.skirmisher) else FormationKind.BATTLE
            out.append(
                MoraleEvent(
                    Trigger.FRIEND_FLEEING, _inches(me, leader_xy(g), scale), kind, g.n_alive
                )
            )
    if f.alive_at_start:
        out.append(
            MoraleEvent(
                Trigger.CASUALTIES_20,
                casualty_fraction=f.killed_in_bound / f.alive_at_start,
                engaged=bool(state.contacts.get(f.id)),
            )
        )
    gid = state.sides[f.side].general
    for g in state.formations.values():
        if g.side != f.side:
            continue
        if gid and gid in g.characters_killed:
            out.append(MoraleEvent(Trigger.GENERAL_SLAIN, _inches(me, (g.cx, g.cy), scale)))
        if gid and gid in g.character_ids() and g.morale in _FLEEING and g.id != f.id:
            d = _inches(me, leader_xy(g), scale)
            out.append(MoraleEvent(Trigger.GENERAL_FLEEING, d))
            if g.changed_bound == state.bound:  # routed this round
                out.append(MoraleEvent(Trigger.GENERAL_SLAIN, d))
    return out


def _side_order(ctx: TwoMmContext) -> list[str]:
    """Strategic Advantage: a d6 roll-off between the sides, re-rolled on a tie."""
    sides = sorted(ctx.state.sides)
    if len(sides) < 2:
        return sides
    while True:
        a, b = ctx.dice.roll(2, "strategic advantage " + " v ".join(sides[:2])).faces
        if a != b:
            return sides[:2] if a > b else [sides[1], sides[0]]


def _in_turn(ctx: TwoMmContext, forms: list[Formation], order: list[str]) -> list[Formation]:
    by_side = {s: sorted((f for f in forms if f.side == s), key=lambda f: f.id) for s in order}
    return alternate(*(by_side[s] for s in order)) if len(order) == 2 else forms


def resolution_phase(
    ctx: TwoMmContext, scale: TableScale = TWO_MM_EARTH, phase: str = "resolution"
) -> list[Event]:
    """Resolution Summary: morale tests (Strategic Advantage first, then alternate; each unit
    at most once; units that fail flee), then pursuit and flee roll-offs."""
    state = ctx.state
    order = _side_order(ctx)
    tested: set[str] = set()
    barred: set[str] = set()  # won, failed: "cannot pursue & stays where it is"
    broke: list[Formation] = []  # fled from combat this phase (10" trigger for friends)
    events: list[Event] = []
    for _ in range(_MAX_PASSES):
        fresh = False
        steady = [f for f in state.active() if f.morale is Morale.STEADY and f.id not in tested]
        for f in _in_turn(ctx, steady, order):
            result = _combat_result(ctx, f)
            unit = wc_unit(f)
            found, mod = triggered(unit, _events_for(ctx, f, broke, scale))
            names = tuple(t.value for t in found)
            if result == "lost":
                names = ("lost combat", *names)
            if not names:
                continue
            tested.add(f.id)
            mod += general_bonus(unit.morale_value, _general_in_zone(ctx, f, scale))
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
                if result is not None:
                    broke.append(f)
        if not fresh:
            break
    events += _pursuit(ctx, broke, barred, order, phase)
    return events


def _pursuit(
    ctx: TwoMmContext, broke: list[Formation], barred: set[str], order: list[str], phase: str
) -> list[Event]:
    """Pursuit & Flee Moves: a fleeing unit that rolls <= its pursuer is destroyed; the
    engine's pursuit and rout moves carry the survivors."""
    events: list[Event] = []
    for f in _in_turn(ctx, broke, order):
        pursuers = [
            g
            for g in _enemies_in_contact(ctx, f)
            if g.morale is Morale.STEADY
            and g.id not in barred
            and g.order not in ("hold", "retreat")
        ]
        if not pursuers:
            continue
        p = min(pursuers, key=lambda g: g.id)
        p.pursuing = f.id
        events.append(Pursuit(phase, p.id, f.id))
        roll = flee_pursuit(ctx.dice, f.id, p.id)
        if roll.destroyed:
            events += _destroy(ctx, f, "W&C caught fleeing (flee <= pursuit roll)", phase)
    return events


def _destroy(ctx: TwoMmContext, f: Formation, reason: str, phase: str) -> list[Event]:
    state = ctx.state
    events: list[Event] = []
    gone = []
    for b in f.alive_bases:
        events.append(kill_base(f, b, by=phase, phase=phase, characters=state.characters))
        gone.append(b.id)
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
    lx, ly = leader_xy(f)
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
    order = _side_order(ctx)
    events: list[Event] = []
    fleeing = [f for f in state.active() if f.morale in _FLEEING]
    for f in _in_turn(ctx, fleeing, order):
        unit = wc_unit(f)
        zone = _general_in_zone(ctx, f, scale)
        if _off_table(ctx, f):
            last = last_chance_to_stand(ctx.dice, unit, zone)
            events.append(
                WCTest(
                    phase,
                    f.id,
                    "last chance",
                    ("reached the table edge",),
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
                events += _destroy(ctx, f, "W&C fled off the table", phase)
            continue
        me = leader_xy(f)
        enemies = [
            RallyEnemy(
                _inches(me, leader_xy(g), scale),
                FormationKind.BATTLE,
                bool(state.contacts.get(g.id)),
                g.morale in _FLEEING,
            )
            for g in state.enemies_of(f.side)
        ]
        r = rally_test(ctx.dice, unit, enemies, zone)
        verdict = "rallied" if r.passed else "flees"
        events.append(
            WCTest(phase, f.id, "rally", (), r.target, r.total, verdict, ctx.dice.history[-1])
        )
        if r.passed:
            events += set_morale(ctx, f, Morale.RETREATING, "W&C rallied (disordered)", phase)
            f.retreat_from = None
            f.order = "hold"
    for f in list(state.active()):
        if f.morale in _FLEEING and _touching_any(ctx, f):
            events += _destroy(ctx, f, "W&C dispersed: fleeing into another unit", phase)
    return events


def start_round(ctx: TwoMmContext, phase: str = "orders") -> list[Event]:
    """Rallied units are disordered "until the start of their next round of play"."""
    events: list[Event] = []
    for f in ctx.state.active():
        rallied = f.morale is Morale.RETREATING and f.changed_bound is not None
        if rallied and f.changed_bound < ctx.state.bound:  # type: ignore[operator]
            events += set_morale(ctx, f, Morale.STEADY, "W&C disorder ends", phase)
    return events
