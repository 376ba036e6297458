"""*Battle for 2mm Earth* v0.7's own bound: what the book does differently from v0.9.

Section numbers here are v0.7's (``/work/shared/rules/001_0b58abab5cfb3bbf.txt``). Everything
else (shooting, melee, movement, wings, brigades, sight) is the family's shared code.

- **Command** (1.2-1.3, 3.3, 4.2): v0.7 has no order chart (v0.9 9.3) and no messengers (v0.9
  9.2). The player plans each formation's move and shot himself, heavy troops first: the plan
  is the order, it reaches the formation the bound it is made (``TwoMmEarthV07.delivery`` is
  instant) and every formation obeys it whatever its temperament. A retreat order is 5.1's
  voluntary flee ("a formation can flee from combat by planning a normal move directly away").
  The one distance rule of command is 4.2's (the General within 200 m and in sight to order a
  split into wings), shared with v0.9 (``wings.py``).
- **9.1 army morale** (:func:`phase_army_morale`): "Any Formation who can see a friendly
  formation fleeing/routing take an ordinary rout test ... The test is taken before the
  Formation plans to move": a phase of its own between the orders and the planning of moves.
- **5.1 a blocked flee** (:func:`flee_blocked`): forced -> automatic rout; by choice -> a rout
  test.
- **5.3 routers** (:func:`routers_touching`): destroyed at once where they touch an enemy base
  or impractical ground (not at the end of the next bound as v0.9 11.1); those that routed in
  contact are destroyed the next bound if still touching.
- No automatic pursuit (v0.9 11.1's "you will automatically pursue" is not in v0.7): winners
  charge a broken enemy only as their orders have them attack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.dice import Dice
from engine.log import Destroyed, Event, OrderReceived, Retreat, Rout
from engine.movement import footprint_classes, update_contacts
from engine.orders import Order
from engine.rulesets import Phase
from engine.rulesets.two_mm_earth import phases as shared
from engine.rulesets.two_mm_earth.charts import MoveClass
from engine.rulesets.two_mm_earth.charts import Order as OrderKind
from engine.rulesets.two_mm_earth.context import TwoMmContext
from engine.rulesets.two_mm_earth.damage import kill_base
from engine.rulesets.two_mm_earth.formations import BreakUpOrder, LooseOrder
from engine.rulesets.two_mm_earth.morale import _aware_of, _resolve, morale_passes
from engine.rulesets.two_mm_earth.orders import _loose_order, break_up_order
from engine.state import BattleState, Formation, Morale

if TYPE_CHECKING:
    from engine.rulesets import Ruleset

__all__ = [
    "SEQUENCE_V07",
    "V07Context",
    "flee_blocked",
    "phase_army_morale",
    "receive_order_v07",
    "routers_touching",
]

_BROKEN = (Morale.RETREATING, Morale.ROUTING)


@dataclass(slots=True)
class V07Context(TwoMmContext):
    #: 9.1: (observer, friend, friend's state) pairs already tested for: a formation tests once
    #: when it first sees a friend flee, and once more if it sees that friend rout
    seen_broken: set[tuple[str, str, str]] = field(default_factory=set)


def receive_order_v07(
    state: BattleState, order: Order, dice: Dice, ruleset: Ruleset, phase: str = "orders"
) -> list[Event]:
    """The player's plan for a formation, obeyed as given (v0.7 has no 9.3 chart, so ``dice``
    is not rolled). Routing troops take no orders: 5.5, they stop only when a Character joins.
    A retreat order is a voluntary flee (5.1); Hold plans to stand (5.4: fleeing troops that
    stand a whole bound rally)."""
    f = state.formations.get(order.formation)
    if f is None or f.removed or f.morale is Morale.ROUTING:
        return []
    if isinstance(order, LooseOrder):
        return _loose_order(state, f, order, phase)  # 4.1, as in v0.9
    if isinstance(order, BreakUpOrder):
        return break_up_order(state, f, order, phase)  # 5.1, as in v0.9
    kind = order.kind
    events: list[Event] = [OrderReceived(phase, f.id, str(order), kind)]
    f.hold_fire = f.held = kind == OrderKind.HOLD
    f.pursuing = None
    f.order = kind
    f.target_point = order.target_point
    f.target_formation = order.target_formation
    if kind == OrderKind.RETREAT and f.morale is Morale.STEADY:
        f.morale = Morale.RETREATING
        f.changed_bound = state.bound
        f.retreat_from = None
        events.append(Retreat(phase, f.id, "5.1 flees by choice (a normal move directly away)"))
    return events


def phase_orders_v07(ctx: TwoMmContext) -> None:
    shared.phase_orders(ctx, receive=receive_order_v07)


def phase_army_morale(ctx: TwoMmContext) -> None:
    """9.1: every steady formation that sees (or hears, 7.2) a friendly formation fleeing or
    routing takes the army-morale test (actual lowest R, -2, equal or one more flees; the 5.2
    modifiers for all the broken friends it sees). Reading (docs/rules-interpretations.md):
    one test a bound at most, when the formation sees a friend fleeing (or routing) that it
    has not yet tested for in that state - not every bound while the friend stays broken; a
    formation that breaks here is seen by the others next bound (each tests once, before its
    own move is planned)."""
    state = ctx.state
    assert isinstance(ctx, V07Context)
    events: list[Event] = []
    steady = [f for f in state.active() if f.morale is Morale.STEADY]
    for f in steady:
        if f.morale is not Morale.STEADY:
            continue
        broken = [
            g
            for g in state.active(f.side)
            if g is not f
            and g.morale in _BROKEN
            and (f.id, g.id, g.morale.value) not in ctx.seen_broken
        ]
        seen = _aware_of(ctx, f, broken)
        if not seen:
            continue
        ctx.seen_broken.update((f.id, g.id, g.morale.value) for g in seen)
        events += _resolve(ctx, f, ["friendly_seen_broken"], "army_morale")
    ctx.emit(events)


def flee_blocked(ctx: TwoMmContext, f: Formation) -> None:
    """5.1: "Fleeing troops who cannot move away without contacting an enemy base, but are being
    forced to flee, then they will not flee but will automatically ROUT. If they were trying to
    flee as an option, they must take a Rout test." Fleeing by choice = ordered to retreat."""
    trigger = "flee_blocked_by_choice" if f.order == OrderKind.RETREAT else "flee_blocked"
    # the contacts as they stand now (the sides touched count in the rout test, 5.2); the one
    # event is one test: not a second 5.3 "fleeing troops touch an enemy" test for it
    ctx.base_pairs = update_contacts(ctx.state)
    f.tested = (*f.tested, trigger, "retreating_touched")
    ctx.emit(_resolve(ctx, f, [trigger], "execute_moves", in_contact=True))


def routers_touching(ctx: TwoMmContext, phase: str) -> list[Event]:
    """5.3: "Bases who rout and then touch an enemy base or impractical terrain are destroyed.
    Those already in contact (by being walled in by friendly and/or enemy troops, or by fleeing
    into an enemy and automatically routing) will not be destroyed that bound but *will* next."

    Asked after the moves and again after the morale tests. A formation that routed this bound
    where it stood (in the moves, the melee or the morale phase) or while in contact since the
    bound began is spared until the next bound; routers off the table have fled the field."""
    state = ctx.state
    events: list[Event] = []
    in_place = ("execute_moves", "melee", "melee_damage", "morale")
    routed_in_place = {
        e.formation for e in ctx.events if isinstance(e, Rout) and e.phase in in_place
    }
    for f in state.active():
        if f.morale is not Morale.ROUTING:
            continue
        o = f.obb()
        if not ctx.bf.contains(o.cx, o.cy):
            gone = tuple(b.id for b in f.alive_bases)
            f.morale = Morale.DESTROYED
            f.changed_bound = state.bound
            events.append(Destroyed(phase, f.id, "5.3 routed off the field", gone))
            continue
        if f.routed_bound == state.bound and (f.id in routed_in_place or f.contacts_prev):
            continue  # routed in contact: destroyed next bound if still touching
        touching = {a for (x, _), pairs in ctx.base_pairs.items() if x == f.id for a, _ in pairs}
        classes, _ = footprint_classes(ctx.bf, f, "move")
        on_impractical = MoveClass.IMPRACTICAL in classes
        killed = []
        for b in f.alive_bases:
            if on_impractical or b.id in touching:
                if b.id in touching and not on_impractical:
                    ctx.caught.add(b.id)  # run down by the enemy (casualties: captured)
                events.append(kill_base(f, b, by="rout", phase=phase, characters=state.characters))
                killed.append(b.id)
        if killed:
            why = "impractical ground" if on_impractical else "an enemy base"
            events.append(Destroyed(phase, f.id, f"5.3 routers touched {why}", tuple(killed)))
            if f.n_alive == 0:
                f.morale = Morale.DESTROYED
                f.changed_bound = state.bound
    if events:
        state.version += 1
        ctx.base_pairs = update_contacts(state)
    return events


def phase_execute_moves_v07(ctx: TwoMmContext) -> None:
    """1.6 moves (shared), with 5.1's blocked flee; then 5.3: routers touching are destroyed."""
    shared.phase_execute_moves(ctx, on_blocked=flee_blocked)
    ctx.emit(routers_touching(ctx, "execute_moves"))


def phase_morale_v07(ctx: TwoMmContext) -> None:
    """5.1 (more than half killed in the bound: must flee) and 5.3 (fleeing troops touched,
    losing their character, seeing broken friends) by v0.7's table; then 5.3 routers."""
    ctx.emit(morale_passes(ctx))
    ctx.emit(routers_touching(ctx, "morale"))


#: v0.7's bound (1.1-1.8 with 9.1's test before the moves are planned), phase by phase
SEQUENCE_V07: tuple[Phase, ...] = (
    Phase("orders", phase_orders_v07),
    Phase("army_morale", phase_army_morale),
    Phase("plan_moves", shared.phase_plan_moves),
    Phase("plan_shooting", shared.phase_plan_shooting),
    Phase("execute_shooting", shared.phase_execute_shooting),
    Phase("shooting_damage", shared.phase_shooting_damage),
    Phase("execute_moves", phase_execute_moves_v07),
    Phase("melee", shared.phase_melee),
    Phase("melee_damage", shared.phase_melee_damage),
    Phase("morale", phase_morale_v07),
    Phase("rally", shared.phase_rally),
)
