"""Orders (9.1) and the command hook: who gives orders, and how they reach a formation.

Three replaceable parts, so a messenger system and automatic commanders can plug in:

1. A :class:`Commander` (one per side) returns the orders it gives this bound:
   ``orders(view, bound) -> list[Order]``. :class:`StandingOrders` gives each formation its
   scenario order at bound 1.
2. A :class:`Delivery` carries orders from the commander to the formation: ``send`` takes an
   order given, ``arrivals`` returns the orders that reach their formation this bound.
   :class:`InstantDelivery` delivers at once (no messengers); a messenger delivery (9.1-9.2) keeps
   orders in flight and reports them in ``snapshot()`` for the BattleLog.
3. The ruleset applies an arrived order to the formation (2mm Earth: chart 9.3,
   ``engine.rulesets.two_mm_earth.orders.receive_order``).

An order's kind is one of the words a registered ruleset gives orders with
(:data:`ORDER_WORDS`, filled in by ``engine.rulesets.register``).

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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from engine.idle import IdleReport
from engine.log import Event
from engine.state import BattleState
from scenario_builder.errors import IllegalOrderError

if TYPE_CHECKING:
    from engine.scenario import Scenario
    from engine.terrain import Ground

__all__ = [
    "ORDER_WORDS",
    "BriefedOrder",
    "Commander",
    "CommanderView",
    "Delivery",
    "InstantDelivery",
    "Order",
    "ScriptedOrders",
    "StandingOrders",
    "check_order",
]

#: every order word of the registered rulesets (``engine.rulesets.register`` adds them)
ORDER_WORDS: set[str] = set()

_USAGE = "expected an order like 'attack <formation> [on <formation> | to <x>,<y>]'"


@dataclass(frozen=True, slots=True)
class Order:
    """An order to one formation (9.1): attack, hold, advance or retreat, with a target."""

    kind: str
    formation: str
    target_point: tuple[float, float] | None = None
    target_formation: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ORDER_WORDS:
            raise IllegalOrderError(None, f"{_USAGE}, got kind {self.kind!r}")
        if self.target_point is not None and self.target_formation is not None:
            raise IllegalOrderError(None, "expected a target point or a target formation, not both")

    def __str__(self) -> str:
        return order_text(self.kind, self.formation, self.target_point, self.target_formation)

    @classmethod
    def from_text(cls, text: str) -> Order:
        parts = parse_order_text(text)
        if parts is not None:
            try:
                return cls(*parts)
            except IllegalOrderError:
                pass
        raise IllegalOrderError(None, f"{_USAGE}, got {text!r}")


_Point = tuple[float, float]


def order_text(kind: str, formation: str, point: _Point | None, target: str | None) -> str:
    """``kind formation [on target | to x,y]``: how an order (or an intent) prints.

    >>> order_text("advance", "f", (1.0, 2.5), None)
    'advance f to 1.0,2.5'
    """
    text = f"{kind} {formation}"
    if target is not None:
        text += f" on {target}"
    elif point is not None:
        text += f" to {float(point[0])},{float(point[1])}"
    return text


def parse_order_text(text: str) -> tuple[str, str, _Point | None, str | None] | None:
    """(kind, formation, point, target) of what :func:`order_text` prints; None if it is not
    that shape (the kind's word is not checked here).

    >>> parse_order_text("attack a on b")
    ('attack', 'a', None, 'b')
    >>> parse_order_text("attack a to x") is None
    True
    """
    words = text.split()
    if len(words) == 2:
        return words[0], words[1], None, None
    if len(words) == 4 and words[2] == "on":
        return words[0], words[1], None, words[3]
    if len(words) == 4 and words[2] == "to":
        try:
            x, y = (float(v) for v in words[3].split(","))
        except ValueError:
            return None
        return words[0], words[1], (x, y), None
    return None


@dataclass(frozen=True, slots=True)
class BriefedOrder(Order):
    """An order a formation carries from its pre-battle plan (the next waypoint or
    step, the end of a feint, fire released on its own condition). Reading of 9.1: the plan was
    given before the battle with the bound-1 briefing, so no messenger has to carry it; the
    order is still received as any other (chart 9.3)."""


@dataclass(slots=True)
class CommanderView:
    """What a commander gets to decide with: the state, its side, and sight queries.

    ``sees(observer_fid, target_fid)`` answers 6.2 sight for the current positions;
    ``battlefield`` is the ground; ``idle`` the idle watcher's reports of the bound just ended
    (engine.idle.IdleReport), which the commander may answer, logging the answer through
    ``emit``. Commanders must not change the state.
    """

    side: str
    bound: int
    state: BattleState
    battlefield: Ground
    scenario: Scenario | None
    sees: Any = None
    idle: Mapping[str, IdleReport] = field(default_factory=dict)
    emit: Callable[[Event], None] | None = None


@runtime_checkable
class Commander(Protocol):
    """Gives a side's orders (9.1). Humans, scripts and automatic commanders implement this."""

    def orders(self, view: CommanderView, bound: int) -> list[Any]:
        """This bound's orders: :class:`Order` or the ruleset's own kinds (2mm Earth: wing
        orders)."""
        ...


class ScriptedOrders(Protocol):
    """A human plan read from a file (``run --orders FILE``): what a ruleset's
    ``orders_script`` returns and its ``scripted_commanders`` follows. ``read_as`` counts how
    its positions were read (map metres or lon,lat), for the CLI to say."""

    source: str
    read_as: dict[str, int]


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
            initial[f.id] = Order(str(f.order), f.id, point, f.target_formation)
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
