"""An order reaching its formation (9.1, chart 9.3, 10.2 "must retreat if ordered to")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.dice import Dice
from engine.log import Event, OrderReceived, OrderRefused, OrderRoll, Retreat, Rout
from engine.orders import Order
from engine.rulesets.two_mm_earth.charts import Order as OrderKind
from engine.rulesets.two_mm_earth.charts import Temperament
from engine.rulesets.two_mm_earth.formations import (
    BreakUpOrder,
    LooseOrder,
    break_up_brigade,
    close_up,
    go_loose,
)
from engine.state import BattleState, Morale
from scenario_builder.errors import IllegalOrderError

if TYPE_CHECKING:
    from engine.rulesets.two_mm_earth.rulesets import TwoMmEarthGame

__all__ = ["break_up_order", "receive_order"]


def receive_order(
    state: BattleState,
    order: Order,
    dice: Dice,
    ruleset: TwoMmEarthGame,
    phase: str = "orders",
    respond: Any = None,
) -> list[Event]:
    """Apply an order that reached its formation: chart 9.3, then the order itself.

    Routing formations ignore orders (10.4: "the player has no control over them"). A retreat
    order makes the formation retreat (10.2 "must retreat if ordered to retreat"); chart 9.3 may
    turn it into holding, or, for reluctant troops, a rout. ``respond(f, temperament, order)
    -> (outcome, events)``: a composed ruleset's own test where chart 9.3 asks for a die (War &
    Conquest's Command Test); None: 9.3's die.
    """
    f = state.formations.get(order.formation)
    if f is None or f.removed or f.morale is Morale.ROUTING:
        return []
    if isinstance(order, LooseOrder):
        return _loose_order(state, f, order, phase)
    if isinstance(order, BreakUpOrder):
        return break_up_order(state, f, order, phase)
    events: list[Event] = []
    kind = order.kind
    temperament = f.temperament
    if temperament is Temperament.RANDOM:  # pragma: no cover - normalised at deployment
        temperament = Temperament.RASH
    if ruleset.order_needs_roll(temperament, kind) and respond is not None:
        outcome, tested = respond(f, temperament, kind)
        events += tested
    elif ruleset.order_needs_roll(temperament, kind):
        roll = dice.roll(1, f"order 9.3 {f.id} {kind} ({temperament})")
        outcome = ruleset.order_outcome(temperament, kind, roll.faces[0])
        events.append(OrderRoll(phase, f.id, kind, str(temperament), outcome, roll))
    else:
        outcome = ruleset.order_outcome(temperament, kind, None)
    events.append(OrderReceived(phase, f.id, str(order), outcome))
    if outcome == "rout":
        f.morale = Morale.ROUTING
        f.routed_bound = state.bound
        f.changed_bound = state.bound
        f.order = "retreat"
        events.append(Rout(phase, f.id, "9.3 reluctant troops ordered to retreat"))
        return events
    f.hold_fire = f.held = outcome == OrderKind.HOLD
    f.pursuing = None
    from engine.rulesets.two_mm_earth.shooting import shooting_bases

    melee_only = not shooting_bases(f)  # 9.1: no ranged attack (throwing weapons are melee)
    if outcome == OrderKind.HOLD and melee_only and f.morale is Morale.STEADY:
        # 9.1: "Hold means to Hold Fire for ranged troops, but Keep Doing What You're Already
        # Doing to melee-only troops or troops in close combat": the order in force (and its
        # target) stays; only pursuit stops (11.1 "unless commanded to retreat or hold").
        # Retreating troops told to Hold stand to rally (11.2), below.
        return events
    f.order = outcome
    if outcome == kind:
        f.target_point = order.target_point
        f.target_formation = order.target_formation
    else:
        f.target_point = None
        f.target_formation = None
    if outcome == OrderKind.RETREAT and f.morale is Morale.STEADY:
        f.morale = Morale.RETREATING  # 10.2: must retreat if ordered to retreat
        f.changed_bound = state.bound
        f.retreat_from = None
        events.append(Retreat(phase, f.id, "10.2 ordered to retreat"))
    return events


def _loose_order(state: BattleState, f: Any, order: LooseOrder, phase: str) -> list[Event]:
    """4.1: skirmishers open into (or close from) a Loose Formation; others are refused."""
    if order.kind == "loose":
        if f.loose:
            return []
        try:
            go_loose(f)
        except IllegalOrderError as exc:
            return [OrderRefused(phase, f.side, f.id, str(order), exc.problem)]
    elif f.loose:
        close_up(f)
    state.version += 1  # the bases moved apart (or together)
    return [OrderReceived(phase, f.id, str(order), order.kind)]


def break_up_order(state: BattleState, f: Any, order: BreakUpOrder, phase: str) -> list[Event]:
    """5.1: a brigade breaks up into its constituent units (no 9.3 roll: the chart is for
    attack, hold, advance and retreat); a formation that is not a brigade refuses."""
    try:
        events = break_up_brigade(state, f, phase)
    except IllegalOrderError as exc:
        return [OrderRefused(phase, f.side, f.id, str(order), exc.problem)]
    return [OrderReceived(phase, f.id, str(order), order.kind), *events]
