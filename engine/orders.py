"""Orders (9.1) and the command hook: who gives orders, and how they reach a formation.

Three replaceable parts, so a messenger system and automatic commanders can plug in:

1. A :class:`Commander` (one per side) returns the orders it gives this bound:
   ``orders(view, bound) -> list[Order]``. :class:`StandingOrders` gives each formation its
   scenario order at bound 1.
2. A :class:`Delivery` carries orders from the commander to the formation: ``send`` takes an
   order given, ``arrivals`` returns the orders that reach their formation this bound.
   :class:`InstantDelivery` delivers at once (no messengers); a messenger delivery (9.1-9.2) keeps
   orders in flight and reports them in ``snapshot()`` for the BattleLog.
3. :func:`receive_order` applies an arrived order to the formation, rolling chart 9.3 where the
   formation's temperament asks for it.

>>> o = Order.from_text("attack sc_pikes_1 on eng_bills")
>>> o.kind, o.formation, o.target_formation, str(o)
('attack', 'sc_pikes_1', 'eng_bills', 'attack sc_pikes_1 on eng_bills')
>>> str(Order.from_text("advance eng_left to 1200.5,300"))
'advance eng_left to 1200.5,300.0'
>>> try:
...     Order.from_text("charge x")
... except IllegalOrderError as exc:
...     print(str(exc)[-20:])
y>]', got 'charge x'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from engine.charts import Order as OrderKind
from engine.charts import Temperament
from engine.dice import Dice
from engine.log import Event, OrderReceived, OrderRoll, Retreat, Rout
from engine.state import BattleState, Morale
from scenario_builder.errors import IllegalOrderError

if TYPE_CHECKING:
    from engine.rulesets import Ruleset
    from engine.scenario import Scenario

__all__ = [
    "Commander",
    "CommanderView",
    "Delivery",
    "InstantDelivery",
    "Order",
    "OrderKind",
    "StandingOrders",
    "check_order",
    "receive_order",
]

_USAGE = "expected an order like 'attack <formation> [on <formation> | to <x>,<y>]'"


@dataclass(frozen=True, slots=True)
class Order:
    """An order to one formation (9.1): attack, hold, advance or retreat, with a target."""

    kind: str
    formation: str
    target_point: tuple[float, float] | None = None
    target_formation: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in {k.value for k in OrderKind}:
            raise IllegalOrderError(None, f"{_USAGE}, got kind {self.kind!r}")
        if self.target_point is not None and self.target_formation is not None:
            raise IllegalOrderError(None, "expected a target point or a target formation, not both")

    def __str__(self) -> str:
        text = f"{self.kind} {self.formation}"
        if self.target_formation is not None:
            text += f" on {self.target_formation}"
        elif self.target_point is not None:
            text += f" to {float(self.target_point[0])},{float(self.target_point[1])}"
        return text

    @classmethod
    def from_text(cls, text: str) -> Order:
        words = text.split()
        try:
            if len(words) == 2:
                return cls(words[0], words[1])
            if len(words) == 4 and words[2] == "on":
                return cls(words[0], words[1], target_formation=words[3])
            if len(words) == 4 and words[2] == "to":
                x, y = (float(v) for v in words[3].split(","))
                return cls(words[0], words[1], target_point=(x, y))
        except (IllegalOrderError, ValueError):
            pass
        raise IllegalOrderError(None, f"{_USAGE}, got {text!r}")


@dataclass(slots=True)
class CommanderView:
    """What a commander gets to decide with: the state, its side, and sight queries.

    ``sees(observer_fid, target_fid)`` answers 6.2 sight for the current positions;
    ``battlefield`` is the ground. Commanders must not change the state.
    """

    side: str
    bound: int
    state: BattleState
    battlefield: Any
    scenario: Scenario | None
    sees: Any = None


@runtime_checkable
class Commander(Protocol):
    """Gives a side's orders (9.1). Humans, scripts and automatic commanders implement this."""

    def orders(self, view: CommanderView, bound: int) -> list[Order]: ...


@dataclass(slots=True)
class StandingOrders:
    """The default commander: each formation's scenario order, given at bound 1, then nothing."""

    side: str
    initial: dict[str, Order] = field(default_factory=dict)

    @classmethod
    def from_scenario(cls, scenario: Scenario, side: str, to_xy: Any) -> StandingOrders:
        initial: dict[str, Order] = {}
        for f in scenario.side(side).formations:
            point = f.target.resolve(to_xy) if f.target is not None else None
            initial[f.id] = Order(f.order.value, f.id, point, f.target_formation)
        return cls(side, initial)

    def orders(self, view: CommanderView, bound: int) -> list[Order]:
        if bound != 1:
            return []
        return [o for fid, o in self.initial.items() if fid in view.state.formations]


@runtime_checkable
class Delivery(Protocol):
    """Carries orders from the commander to the formation (9.1-9.2)."""

    def send(self, state: BattleState, side: str, order: Order, bound: int) -> list[Event]: ...

    def arrivals(self, state: BattleState, bound: int) -> tuple[list[Order], list[Event]]: ...

    def snapshot(self) -> list[dict[str, Any]]: ...


@dataclass(slots=True)
class InstantDelivery:
    """Orders arrive the bound they are given (no messengers)."""

    pending: list[Order] = field(default_factory=list)

    def send(self, state: BattleState, side: str, order: Order, bound: int) -> list[Event]:
        self.pending.append(order)
        return []

    def arrivals(self, state: BattleState, bound: int) -> tuple[list[Order], list[Event]]:
        out, self.pending = self.pending, []
        return out, []

    def snapshot(self) -> list[dict[str, Any]]:
        return []


def check_order(state: BattleState, side: str, order: Order) -> None:
    """The public, checked entry (python-chess ``push_san``): raise on an illegal order."""
    f = state.formations.get(order.formation)
    if f is None:
        raise IllegalOrderError(
            None, f"order '{order}': expected a formation, got {order.formation!r}"
        )
    if f.side != side:
        raise IllegalOrderError(None, f"order '{order}': {f.id} belongs to {f.side}, not {side}")
    if f.removed:
        raise IllegalOrderError(None, f"order '{order}': {f.id} has left the field")
    if order.target_formation is not None:
        t = state.formations.get(order.target_formation)
        if t is None:
            raise IllegalOrderError(
                None,
                f"order '{order}': expected a target formation, got {order.target_formation!r}",
            )


def receive_order(
    state: BattleState, order: Order, dice: Dice, ruleset: Ruleset, phase: str = "orders"
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
        roll = dice.roll(1, f"order 9.3 {f.id} {kind} ({temperament.value})")
        outcome = ruleset.order_outcome(temperament, kind, roll.faces[0])
        events.append(OrderRoll(phase, f.id, kind, temperament.value, outcome, roll))
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
