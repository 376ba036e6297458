"""An order reaching its formation (9.1, chart 9.3, 10.2 "must retreat if ordered to")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.dice import Dice
from engine.log import Event, OrderReceived, OrderRoll, Retreat, Rout
from engine.orders import Order
from engine.rulesets.two_mm_earth.charts import Temperament
from engine.state import BattleState, Morale

if TYPE_CHECKING:
    from engine.rulesets.two_mm_earth.rulesets import TwoMmEarth

__all__ = ["receive_order"]


def receive_order(
    state: BattleState, order: Order, dice: Dice, ruleset: TwoMmEarth, phase: str = "orders"
) -> list[Event]:
    """Apply an order that reached its formation: chart 9.3, then the order itself.

    Routing formations ignore orders (10.4: "the player has no control over them"). A retreat
    order makes the formation retreat (10.2 "must retreat if ordered to retreat"); chart 9.3 may
    turn it into holding, or, for reluctant troops, a rout.
    """
    f = state.formations.get(order.formation)
    if f is None or f.removed or f.morale is Morale.ROUTING:
        return []
    events: list[Event] = []
    kind = order.kind
    temperament = f.temperament
    if temperament is Temperament.RANDOM:  # pragma: no cover - normalised at deployment
        temperament = Temperament.RASH
    if ruleset.order_needs_roll(temperament, kind):
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
    f.order = outcome
    f.hold_fire = outcome == "hold"
    f.pursuing = None
    if outcome == kind:
        f.target_point = order.target_point
        f.target_formation = order.target_formation
    else:
        f.target_point = None
        f.target_formation = None
    if outcome == "retreat" and f.morale is Morale.STEADY:
        f.morale = Morale.RETREATING  # 10.2: must retreat if ordered to retreat
        f.changed_bound = state.bound
        f.retreat_from = None
        events.append(Retreat(phase, f.id, "10.2 ordered to retreat"))
    return events
