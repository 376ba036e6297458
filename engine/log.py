"""The BattleLog: typed events and per-bound snapshots, written as deterministic JSON.

The format is in docs/architecture.md ("BattleLog"). Events are frozen dataclasses; each has a
``type`` (the JSON ``type``), the ``phase`` it happened in, and ``to_dict()``. Floats are rounded
to 0.01 m / 0.1 degree so the same battle gives the same bytes.

>>> e = Moved("execute_moves", "eng_centre", (0.0, 0.0), (3.14159, 100.0), 90.0, 100.004, 100.0)
>>> e.to_dict()["to"], e.to_dict()["type"]
([3.14, 100.0], 'moved')
>>> dumps({"b": 1, "a": [1.0]})
'{"a":[1.0],"b":1}'
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.dice import DiceResult

__all__ = ["EVENT_TYPES", "BattleLog", "BoundRecord", "Event", "dumps"]

FORMAT = "battlelog/1"


def _round(v: Any, key: str = "") -> Any:
    if isinstance(v, float):
        return round(v, 1) if key in ("facing", "bearing", "angle") else round(v, 2)
    if isinstance(v, DiceResult):
        return v.to_dict()
    if isinstance(v, dict):
        return {str(k): _round(x, str(k)) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_round(x, key) for x in v]
    return v


def dumps(obj: Any) -> str:
    """The one JSON form of the log: sorted keys, no spaces."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events."""

    type: ClassVar[str] = "event"
    phase: str

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v is None and f.name == "dice":
                continue
            out[f.name] = _round(v, f.name)
        return out


@dataclass(frozen=True, slots=True)
class OrderIssued(Event):
    """9.1: a commander gave an order (text form of :class:`engine.orders.Order`)."""

    type: ClassVar[str] = "order_issued"
    side: str
    formation: str
    order: str


@dataclass(frozen=True, slots=True)
class OrderReceived(Event):
    """The formation got the order and acts on ``outcome`` (9.3)."""

    type: ClassVar[str] = "order_received"
    formation: str
    order: str
    outcome: str


@dataclass(frozen=True, slots=True)
class OrderRoll(Event):
    """9.3 chart roll."""

    type: ClassVar[str] = "order_roll"
    formation: str
    order: str
    temperament: str
    outcome: str
    dice: DiceResult | None = None


@dataclass(frozen=True, slots=True)
class PlannedMove(Event):
    """1.1 plan: direction of the move (6.1: plan only the direction)."""

    type: ClassVar[str] = "planned_move"
    formation: str
    kind: str
    bearing: float
    target: str | None = None


@dataclass(frozen=True, slots=True)
class Moved(Event):
    """6.1: a formation moved; ``halted`` says why it stopped short (contact, blocked, terrain)."""

    type: ClassVar[str] = "moved"
    formation: str
    from_xy: tuple[Any, ...]
    to: tuple[Any, ...]
    facing: float
    distance_m: float
    allowance_m: float
    halted: str | None = None


@dataclass(frozen=True, slots=True)
class Shot(Event):
    """1.1/2.2 a formation shot (mode normal, ordnance or volley)."""

    type: ClassVar[str] = "shot"
    formation: str
    target: str
    mode: str
    distance_m: float
    n_dice: int
    need: int
    hits: int
    dice: DiceResult | None = None


@dataclass(frozen=True, slots=True)
class Hit(Event):
    """2.4: hits scored on a formation, before allocation."""

    type: ClassVar[str] = "hit"
    formation: str
    by: str
    hits: int
    kind: str


@dataclass(frozen=True, slots=True)
class Injured(Event):
    """2.4: a base injured (red marker)."""

    type: ClassVar[str] = "injured"
    base: str
    formation: str
    by: str
    dice: DiceResult | None = None


@dataclass(frozen=True, slots=True)
class Killed(Event):
    """2.4: a base killed and removed."""

    type: ClassVar[str] = "killed"
    base: str
    formation: str
    by: str
    character: str | None = None
    dice: DiceResult | None = None


@dataclass(frozen=True, slots=True)
class Melee(Event):
    """3.1-3.4 one formation's strike; ``order`` is its place in the strike order."""

    type: ClassVar[str] = "melee"
    formation: str
    target: str
    n_dice: int
    need: int
    hits: int
    order: int
    dice: DiceResult | None = None


@dataclass(frozen=True, slots=True)
class PanicTest(Event):
    """10.5 panic test."""

    type: ClassVar[str] = "panic_test"
    formation: str
    triggers: tuple[Any, ...]
    resilience: int
    score: int
    outcome: str
    dice: DiceResult | None = None


@dataclass(frozen=True, slots=True)
class Retreat(Event):
    """10.3: the formation retreats."""

    type: ClassVar[str] = "retreat"
    formation: str
    reason: str


@dataclass(frozen=True, slots=True)
class Rout(Event):
    """10.4: it routs."""

    type: ClassVar[str] = "rout"
    formation: str
    reason: str


@dataclass(frozen=True, slots=True)
class Rally(Event):
    """11.2 rallied."""

    type: ClassVar[str] = "rally"
    formation: str
    reason: str


@dataclass(frozen=True, slots=True)
class Pursuit(Event):
    """11.1: pursues a broken enemy."""

    type: ClassVar[str] = "pursuit"
    formation: str
    target: str


@dataclass(frozen=True, slots=True)
class Destroyed(Event):
    """11.1 / 8.3: formation or bases destroyed."""

    type: ClassVar[str] = "destroyed"
    formation: str
    reason: str
    bases: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class WingSplit(Event):
    """4.2 split into wings."""

    type: ClassVar[str] = "wing_split"
    formation: str
    wings: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class BrigadeMerge(Event):
    """5.1 brigade / wing re-join."""

    type: ClassVar[str] = "brigade_merge"
    formation: str
    merged: str


@dataclass(frozen=True, slots=True)
class TemperamentChange(Event):
    """11.3 Random troops switch between rash and reluctant."""

    type: ClassVar[str] = "temperament_change"
    formation: str
    temperament: str
    reason: str


@dataclass(frozen=True, slots=True)
class LadderPlaced(Event):
    """8.3 ladders: at the wall foot / on the wall."""

    type: ClassVar[str] = "ladder"
    formation: str
    stage: str


@dataclass(frozen=True, slots=True)
class MessengerSent(Event):
    """9.1 a messenger leaves ``by`` (a character) with its route and the bound it will arrive."""

    type: ClassVar[str] = "messenger_sent"
    side: str
    id: str
    to: str
    order: str
    arrival_bound: int
    sent_bound: int = 0
    by: str | None = None
    cost_m: float = 0.0
    route: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class MessengerArrived(Event):
    """9.1 a messenger arrives (the whole route it took)."""

    type: ClassVar[str] = "messenger_arrived"
    side: str
    id: str
    to: str
    order: str
    arrival_bound: int = 0
    cost_m: float = 0.0
    route: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class MessengerRerouted(Event):
    """9.1 the enemy moved across a messenger's string (or its formation moved): re-planned."""

    type: ClassVar[str] = "messenger_rerouted"
    side: str
    id: str
    to: str
    reason: str
    arrival_bound: int = 0
    cost_m: float = 0.0
    route: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class OrderRefused(Event):
    """An order the rules forbid (e.g. 4.2 wing order beyond the General's reach)."""

    type: ClassVar[str] = "order_refused"
    side: str
    formation: str
    order: str
    reason: str


@dataclass(frozen=True, slots=True)
class SkyChanged(Event):
    """6.3 / issue 12: the light (day, twilight, night) or the weather as a bound begins: at
    bound 1 of a scenario with a start time, then whenever either changes (engine.light)."""

    type: ClassVar[str] = "sky"
    light: str
    weather: str
    local_time: str | None = None
    sun_elevation: float | None = None
    moon_elevation: float | None = None
    moon_phase: float | None = None


@dataclass(frozen=True, slots=True)
class ReadinessEnded(Event):
    """Issue 12: a formation caught unready (in camp, asleep, on the march) is roused and forms
    up; ``cause`` says what ended its state (engine.readiness)."""

    type: ClassVar[str] = "ready"
    formation: str
    state: str
    cause: str


@dataclass(frozen=True, slots=True)
class Arrived(Event):
    """Issue 12: a timed reinforcement enters the table as bound ``bound`` begins, at map edge
    ``edge`` (or at its plan's point: ``edge`` is ``"point"``), centred at ``at``
    (engine.reinforcements); ``delayed`` bounds late when its entry was blocked."""

    type: ClassVar[str] = "arrived"
    formation: str
    edge: str
    at: tuple[float, float]
    facing: float
    delayed: int = 0


@dataclass(frozen=True, slots=True)
class Idle(Event):
    """engine.idle: a formation with an intent (``order``) neither moved, shot nor fought
    for ``bounds`` bounds running, because of ``cause``."""

    type: ClassVar[str] = "idle"
    formation: str
    order: str
    bounds: int
    cause: str


EVENT_TYPES: dict[str, type[Event]] = {
    c.type: c
    for c in (
        OrderIssued,
        OrderReceived,
        OrderRoll,
        PlannedMove,
        Moved,
        Shot,
        Hit,
        Injured,
        Killed,
        Melee,
        PanicTest,
        Retreat,
        Rout,
        Rally,
        Pursuit,
        Destroyed,
        WingSplit,
        BrigadeMerge,
        TemperamentChange,
        LadderPlaced,
        MessengerSent,
        MessengerArrived,
        MessengerRerouted,
        OrderRefused,
        SkyChanged,
        ReadinessEnded,
        Arrived,
        Idle,
    )
}


@dataclass(slots=True)
class BoundRecord:
    """One bound: its events in order and the snapshot of every base after it."""

    bound: int
    events: list[Event] = field(default_factory=list)
    snapshot: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "bound": self.bound,
            "events": [e.to_dict() for e in self.events],
            "snapshot": _round(self.snapshot),
        }

    def of_type(self, type_: str) -> list[Event]:
        return [e for e in self.events if e.type == type_]


@dataclass(slots=True)
class BattleLog:
    """The engine's one output."""

    header: dict[str, Any]
    bounds: list[BoundRecord] = field(default_factory=list)
    result: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"format": FORMAT, **_round(self.header)}
        out["bounds"] = [b.to_dict() for b in self.bounds]
        out["result"] = self.result
        return out

    def to_json(self) -> str:
        return dumps(self.to_dict())

    def events(self, type_: str | None = None) -> list[Event]:
        return [e for b in self.bounds for e in b.events if type_ is None or e.type == type_]
