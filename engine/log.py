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


def _event(name: str, type_: str, fields: list[tuple[str, Any, Any]], doc: str) -> type[Event]:
    ns: dict[str, Any] = {"type": type_, "__doc__": doc, "__annotations__": {"type": ClassVar[str]}}
    for fname, ftype, default in fields:
        ns["__annotations__"][fname] = ftype
        if default is not dataclasses.MISSING:
            ns[fname] = default
    cls = type(name, (Event,), ns)
    return dataclass(frozen=True, slots=True)(cls)


_D = dataclasses.MISSING
OrderIssued = _event(
    "OrderIssued",
    "order_issued",
    [("side", str, _D), ("formation", str, _D), ("order", str, _D)],
    "9.1: a commander gave an order (text form of :class:`engine.orders.Order`).",
)
OrderReceived = _event(
    "OrderReceived",
    "order_received",
    [("formation", str, _D), ("order", str, _D), ("outcome", str, _D)],
    "The formation got the order and acts on ``outcome`` (9.3).",
)
OrderRoll = _event(
    "OrderRoll",
    "order_roll",
    [
        ("formation", str, _D),
        ("order", str, _D),
        ("temperament", str, _D),
        ("outcome", str, _D),
        ("dice", DiceResult | None, None),
    ],
    "9.3 chart roll.",
)
PlannedMove = _event(
    "PlannedMove",
    "planned_move",
    [
        ("formation", str, _D),
        ("kind", str, _D),
        ("bearing", float, _D),
        ("target", str | None, None),
    ],
    "1.1 plan: direction of the move (6.1: plan only the direction).",
)
Moved = _event(
    "Moved",
    "moved",
    [
        ("formation", str, _D),
        ("from_xy", tuple, _D),
        ("to", tuple, _D),
        ("facing", float, _D),
        ("distance_m", float, _D),
        ("allowance_m", float, _D),
        ("halted", str | None, None),
    ],
    "6.1: a formation moved; ``halted`` says why it stopped short (contact, blocked, terrain).",
)
Shot = _event(
    "Shot",
    "shot",
    [
        ("formation", str, _D),
        ("target", str, _D),
        ("mode", str, _D),
        ("distance_m", float, _D),
        ("n_dice", int, _D),
        ("need", int, _D),
        ("hits", int, _D),
        ("dice", DiceResult | None, None),
    ],
    "1.1/2.2 a formation shot (mode normal, ordnance or volley).",
)
Hit = _event(
    "Hit",
    "hit",
    [("formation", str, _D), ("by", str, _D), ("hits", int, _D), ("kind", str, _D)],
    "2.4: hits scored on a formation, before allocation.",
)
Injured = _event(
    "Injured",
    "injured",
    [("base", str, _D), ("formation", str, _D), ("by", str, _D), ("dice", DiceResult | None, None)],
    "2.4: a base injured (red marker).",
)
Killed = _event(
    "Killed",
    "killed",
    [
        ("base", str, _D),
        ("formation", str, _D),
        ("by", str, _D),
        ("character", str | None, None),
        ("dice", DiceResult | None, None),
    ],
    "2.4: a base killed and removed.",
)
Melee = _event(
    "Melee",
    "melee",
    [
        ("formation", str, _D),
        ("target", str, _D),
        ("n_dice", int, _D),
        ("need", int, _D),
        ("hits", int, _D),
        ("order", int, _D),
        ("dice", DiceResult | None, None),
    ],
    "3.1-3.4 one formation's strike; ``order`` is its place in the strike order.",
)
PanicTest = _event(
    "PanicTest",
    "panic_test",
    [
        ("formation", str, _D),
        ("triggers", tuple, _D),
        ("resilience", int, _D),
        ("score", int, _D),
        ("outcome", str, _D),
        ("dice", DiceResult | None, None),
    ],
    "10.5 panic test.",
)
Retreat = _event(
    "Retreat",
    "retreat",
    [("formation", str, _D), ("reason", str, _D)],
    "10.3: the formation retreats.",
)
Rout = _event("Rout", "rout", [("formation", str, _D), ("reason", str, _D)], "10.4: it routs.")
Rally = _event("Rally", "rally", [("formation", str, _D), ("reason", str, _D)], "11.2 rallied.")
Pursuit = _event(
    "Pursuit",
    "pursuit",
    [("formation", str, _D), ("target", str, _D)],
    "11.1: pursues a broken enemy.",
)
Destroyed = _event(
    "Destroyed",
    "destroyed",
    [("formation", str, _D), ("reason", str, _D), ("bases", tuple, ())],
    "11.1 / 8.3: formation or bases destroyed.",
)
WingSplit = _event(
    "WingSplit",
    "wing_split",
    [("formation", str, _D), ("wings", tuple, _D)],
    "4.2 split into wings.",
)
BrigadeMerge = _event(
    "BrigadeMerge",
    "brigade_merge",
    [("formation", str, _D), ("merged", str, _D)],
    "5.1 brigade / wing re-join.",
)
TemperamentChange = _event(
    "TemperamentChange",
    "temperament_change",
    [("formation", str, _D), ("temperament", str, _D), ("reason", str, _D)],
    "11.3 Random troops switch between rash and reluctant.",
)
LadderPlaced = _event(
    "LadderPlaced",
    "ladder",
    [("formation", str, _D), ("stage", str, _D)],
    "8.3 ladders: at the wall foot / on the wall.",
)
MessengerSent = _event(
    "MessengerSent",
    "messenger_sent",
    [
        ("side", str, _D),
        ("id", str, _D),
        ("to", str, _D),
        ("order", str, _D),
        ("arrival_bound", int, _D),
        ("sent_bound", int, 0),
        ("by", str | None, None),
        ("cost_m", float, 0.0),
        ("route", tuple, ()),
    ],
    "9.1 a messenger leaves ``by`` (a character) with its route and the bound it will arrive.",
)
MessengerArrived = _event(
    "MessengerArrived",
    "messenger_arrived",
    [
        ("side", str, _D),
        ("id", str, _D),
        ("to", str, _D),
        ("order", str, _D),
        ("arrival_bound", int, 0),
        ("cost_m", float, 0.0),
        ("route", tuple, ()),
    ],
    "9.1 a messenger arrives (the whole route it took).",
)
MessengerRerouted = _event(
    "MessengerRerouted",
    "messenger_rerouted",
    [
        ("side", str, _D),
        ("id", str, _D),
        ("to", str, _D),
        ("reason", str, _D),
        ("arrival_bound", int, 0),
        ("cost_m", float, 0.0),
        ("route", tuple, ()),
    ],
    "9.1 the enemy moved across a messenger's string (or its formation moved): re-planned.",
)
OrderRefused = _event(
    "OrderRefused",
    "order_refused",
    [("side", str, _D), ("formation", str, _D), ("order", str, _D), ("reason", str, _D)],
    "An order the rules forbid (e.g. 4.2 wing order beyond the General's reach).",
)

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
