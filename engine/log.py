"""The BattleLog: typed events and per-bound snapshots, written as deterministic JSON.

The format is in docs/battle-log.md. The file holds bound 0's whole snapshot and, for every
later bound, only what changed since the bound before (:func:`snapshot_changes`); a reader
gets every bound's whole snapshot back with :func:`expanded`. Events are frozen dataclasses;
each has a ``type`` (the JSON ``type``), the ``phase`` it happened in, and ``to_dict()``.
Floats are rounded to 0.01 m / 0.1 degree so the same battle gives the same bytes.

The bytes are those of :func:`_json_dumps` (the json module); :meth:`BattleLog.to_bytes` makes
them with orjson (a sixth of the time), falling back to json for the whole log on any
value orjson would write otherwise (tests/test_log_write.py holds the older, slower writer).

>>> e = Moved("execute_moves", "eng_centre", (0.0, 0.0), (3.14159, 100.0), 90.0, 100.004, 100.0)
>>> e.to_dict()["to"], e.to_dict()["type"]
([3.14, 100.0], 'moved')
>>> dumps({"b": 1, "a": [1.0]})
'{"a":[1.0],"b":1}'
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

import orjson

from engine.dice import DiceResult

__all__ = [
    "EVENT_TYPES",
    "BattleLog",
    "BoundRecord",
    "Draw",
    "Event",
    "dumps",
    "expanded",
    "round_for_log",
    "snapshot_changes",
]

#: /2: a bound after the first records only what changed (``changes``); /1 wrote every bound's
#: whole snapshot. Readers take both (:data:`READABLE`).
FORMAT = "battlelog/2"
READABLE = ("battlelog/1", FORMAT)
#: snapshot sections recorded entry by entry: an id's entry when it changed (bases, formations,
#: each side's sight); any other section (messengers, losses) whole whenever it changed
KEYED = frozenset(("bases", "formations", "seen"))
#: the keys of a bound's ``changes`` that are not sections: entries gone from a keyed section
#: (section -> ids) and whole sections gone (a list of names)
REMOVED, DROPPED = "removed", "dropped"
_MISSING: Any = object()

#: keys whose floats the log keeps to 0.1 degree (every other float to 0.01 m)
_ANGLES = frozenset(("facing", "bearing", "angle"))
#: Python's ``repr`` and orjson write a float alike when it is 0 or 1e-4 <= |x| < 1e16 (below,
#: orjson writes 0.00001 where repr writes 1e-05; above, 1e16 against 1e+16; tests/test_log_write
#: checks the edges); NaN and infinity fail every comparison, so one chained test catches all
PLAIN_MAX = 1e16
_PLAIN_MIN = 1e-4


class _NotPlain(Exception):
    """A value the orjson writer cannot vouch for (a float outside the range where it writes as
    ``json`` does, NaN, infinity): the log is written by the ``json`` module instead."""


def _round(v: Any, key: str = "") -> Any:
    if isinstance(v, float):
        return round(v, 1) if key in _ANGLES else round(v, 2)
    if isinstance(v, DiceResult):
        return v.to_dict()
    if isinstance(v, dict):
        return {str(k): _round(x, str(k)) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_round(x, key) for x in v]
    return v


def _round_strict(v: Any, key: str = "") -> Any:
    """:func:`_round`, raising :class:`_NotPlain` for a float orjson would write otherwise."""
    if isinstance(v, float):
        r = round(v, 1) if key in _ANGLES else round(v, 2)
        # rounded, a float is 0 or at least 0.01 in size: only the upper bound can fail
        if not -PLAIN_MAX < r < PLAIN_MAX:
            raise _NotPlain
        return r
    if isinstance(v, DiceResult):
        return v.to_dict()
    if isinstance(v, dict):
        return {str(k): _round_strict(x, str(k)) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_round_strict(x, key) for x in v]
    return v


def round_for_log(v: Any, key: str = "") -> tuple[Any, bool]:
    """``v`` as the log stores it (floats to 0.01, angles to 0.1) and whether orjson writes it
    as ``json`` does (False: a float that is NaN, infinite or 1e16 and over).

    >>> round_for_log({"x": 1.234, "facing": 90.06, "n": 3})
    ({'x': 1.23, 'facing': 90.1, 'n': 3}, True)
    >>> round_for_log([float("nan")])[1]
    False
    """
    try:
        return _round_strict(v, key), True
    except _NotPlain:
        return _round(v, key), False


def _plain(v: Any) -> bool:
    """Whether orjson writes ``v`` byte for byte as :func:`_json_dumps` does: str keys, and
    floats (not rounded here) 0 or within [1e-4, 1e16); unknown types are left to ``json``."""
    c = v.__class__
    if c is str or c is int or c is bool or v is None:
        return True
    if c is float:
        return v == 0.0 or _PLAIN_MIN <= abs(v) < PLAIN_MAX
    if c is dict:
        return all(k.__class__ is str and _plain(x) for k, x in v.items())
    if c is list or c is tuple:
        return all(_plain(x) for x in v)
    return False


def _json_dumps(obj: Any) -> str:
    """The reference form, by the ``json`` module: sorted keys, no spaces, ASCII only."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


#: no ``default``: anything orjson does not know (numpy scalars, sets) and the types passed
#: through (dataclasses, datetimes, which ``json`` rejects) raise TypeError -> the json path
_ORJSON_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS
_ORJSON_OPTIONS |= orjson.OPT_PASSTHROUGH_DATETIME
#: what ``json``'s ensure_ascii escapes and orjson writes as it is (DEL and all non-ASCII);
#: both escape the control characters below 0x20 alike
_NOT_ASCII = re.compile("[\x7f-\U0010ffff]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    if c < 0x10000:
        return f"\\u{c:04x}"
    c -= 0x10000  # a UTF-16 surrogate pair, as json writes it
    return f"\\u{0xD800 | (c >> 10):04x}\\u{0xDC00 | (c & 0x3FF):04x}"


def _encode(obj: Any) -> bytes:
    """orjson's bytes for a plain value (see :func:`_plain`): those of :func:`_json_dumps`.
    Raises TypeError (orjson.JSONEncodeError) for what orjson cannot write."""
    raw = orjson.dumps(obj, option=_ORJSON_OPTIONS)
    if raw.isascii() and b"\x7f" not in raw:
        return raw
    # non-ASCII can only be inside strings, where json writes a \uXXXX escape
    return _NOT_ASCII.sub(_escape, raw.decode("utf-8")).encode("ascii")


def dumps(obj: Any) -> str:
    """The one JSON form of the log: sorted keys, no spaces, ASCII only (``json.dumps`` with
    ``sort_keys``, compact separators, ``allow_nan=False``), written by orjson when ``obj`` is
    plain (:func:`_plain`, a walk: the log itself is written by :meth:`BattleLog.to_json`)."""
    if _plain(obj):
        try:
            return _encode(obj).decode("ascii")
        except TypeError:
            pass
    return _json_dumps(obj)


def snapshot_changes(
    prev: typing.Mapping[str, Any],
    snap: typing.Mapping[str, Any],
    known: typing.Mapping[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """What ``snap`` (a bound's whole snapshot) changes of ``prev`` (the bound before's): the
    log's ``changes`` of that bound. A keyed section (:data:`KEYED`) gives the entries that are
    new or differ, and ``removed`` lists the ids gone from it; any other section is given whole
    when it differs; ``dropped`` names a section gone. An entry the same object as the one
    before is unchanged without a look (the record reuses a still base's entry). ``known``:
    keyed sections whose changed entries the caller found as it built them (every entry not
    the one before's own object, and unequal to it), so they are not looked through again.

    >>> prev = {"bases": {"a": {"x": 1.0}, "b": {"x": 2.0}}, "losses": {"red": 0}}
    >>> snapshot_changes(prev, {"bases": {"a": {"x": 1.0}, "c": {"x": 3.0}}, "losses": {"red": 1}})
    {'bases': {'c': {'x': 3.0}}, 'losses': {'red': 1}, 'removed': {'bases': ['b']}}
    """
    out: dict[str, Any] = {}
    removed: dict[str, list[str]] = {}
    for key, value in snap.items():
        old = prev.get(key, _MISSING)
        if value is old:
            continue
        if key in KEYED and value.__class__ is dict and old.__class__ is dict:
            part = known.get(key) if known is not None else None
            if part is None:
                part = {}
                for k, v in value.items():
                    o = old.get(k, _MISSING)
                    if o is not v and o != v:
                        part[k] = v
            if part:
                out[key] = part
            if not old.keys() <= value.keys():  # some went (a set test in C, no loop here)
                removed[key] = sorted(k for k in old if k not in value)
        elif old is _MISSING or value != old:
            out[key] = value
    if removed:
        out[REMOVED] = removed
    dropped = sorted(k for k in prev if k not in snap)
    if dropped:
        out[DROPPED] = dropped
    return out


def _applied(prev: dict[str, Any], changes: typing.Mapping[str, Any]) -> dict[str, Any]:
    """``prev`` with ``changes`` (:func:`snapshot_changes`) applied: a new dict with sections of
    its own (a reader may change one bound's ``seen`` without touching the next), ``prev``
    untouched; the entries that did not change are shared. Sections and entries come in sorted
    key order, as a whole snapshot read from the file has them."""
    snap = {k: dict(v) if v.__class__ is dict else v for k, v in prev.items()}
    grown = False
    removed = changes.get(REMOVED) or {}
    for key, value in changes.items():
        if key in (REMOVED, DROPPED):
            continue
        grown = grown or key not in snap
        old = snap.get(key)
        if key in KEYED and value.__class__ is dict and old.__class__ is dict:
            had = len(old)  # ``old`` is this bound's copy (above): updated in place
            old.update(value)
            if len(old) != had:  # a new id: the file's order is sorted
                snap[key] = dict(sorted(old.items()))
        else:
            snap[key] = value
    for key, ids in removed.items():
        section = snap.setdefault(key, {})
        for k in ids:
            section.pop(k, None)
    for key in changes.get(DROPPED) or ():
        snap.pop(key, None)
    return dict(sorted(snap.items())) if grown else snap


def expanded(log: typing.Mapping[str, Any]) -> dict[str, Any]:
    """A read ``battle_log.json`` (or :meth:`BattleLog.to_dict`) with every bound's whole
    ``snapshot``, as format ``battlelog/1`` wrote it: each bound's ``changes`` applied to the
    snapshot of the bound before (:func:`snapshot_changes`). The log given is not changed; a
    bound that already holds a snapshot (any bound of a /1 log) is kept as it is.

    >>> log = {"bounds": [{"bound": 0, "snapshot": {"bases": {"a": {"x": 1.0}}}},
    ...                   {"bound": 1, "changes": {"bases": {"a": {"x": 2.0}}}}]}
    >>> expanded(log)["bounds"][1]
    {'bound': 1, 'snapshot': {'bases': {'a': {'x': 2.0}}}}
    """
    prev: dict[str, Any] = {}
    bounds = []
    for b in log["bounds"]:
        if "changes" in b:
            rest = {k: v for k, v in b.items() if k != "changes"}
            prev = _applied(prev, b["changes"])
            bounds.append({**rest, "snapshot": prev})
        else:
            prev = b.get("snapshot") or {}
            bounds.append(b)
    return {**log, "bounds": bounds}


class Draw(StrEnum):
    """How the playback draws an event that declares it (:attr:`Event.draw`): a line from the
    actor to the target (shooting, melee), a marker at the actor, or only its line of words."""

    NONE = "none"
    SHOT = "shot"
    MELEE = "melee"
    MARK = "mark"


def _same(text: str) -> str:
    return text


#: what :meth:`Event.describe` is given to turn ids (and free text holding them) into names
Names = Callable[[str], str]


def keep_ids(text: str) -> str:
    """The :data:`Names` that leaves ids as they are (a describe() read without a log)."""
    return text


def in_words(items: typing.Iterable[Any]) -> str:
    """Items as a sentence lists them, the last joined by "and".

    >>> in_words([3]), in_words((10, 9)), in_words(["a", "b", "c"]), in_words([])
    ('3', '10 and 9', 'a, b and c', '')
    """
    said = [str(x) for x in items]
    return ", ".join(said[:-1]) + f" and {said[-1]}" if len(said) > 1 else "".join(said)


def rolled(dice: Any) -> str:
    """Dice in a player's words: "rolled 6 and 5" (a :class:`~engine.dice.DiceResult`, its
    text form, its JSON form, or the faces).

    >>> rolled((3,)), rolled((6, 5)), rolled((1, 4, 6)), rolled(())
    ('rolled 3', 'rolled 6 and 5', 'rolled 1, 4 and 6', 'no dice')
    """
    faces = (
        dice.get("faces", ()) if isinstance(dice, typing.Mapping) else getattr(dice, "faces", dice)
    )
    if isinstance(faces, str):
        from engine.dice import DiceResult

        faces = DiceResult.from_text(faces).faces
    return f"rolled {in_words(faces)}" if faces else "no dice"


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events.

    A ruleset's own events (DESIGN.md: "events are declared classes in every ruleset") also
    say how the playback shows them: :attr:`draw`, :attr:`mark` (the marker glyph, named by
    the core event whose look it shares), :meth:`actor_id` and :meth:`target_id` (ids the playback
    finds in the bound's snapshot) and :meth:`describe`, the event in a player's words. The
    core's events leave them at these defaults and the maps word them from their fields.
    """

    type: ClassVar[str] = "event"
    #: how the playback draws it; NONE: as the maps' own tables say (the core's events)
    draw: ClassVar[Draw] = Draw.NONE
    #: with ``Draw.MARK``: the core event type whose marker it is drawn with ("rout", ...)
    mark: ClassVar[str | None] = None
    phase: str

    def to_dict(self) -> dict[str, Any]:
        convert = _TO_DICT.get(self.__class__)
        if convert is None:
            convert = _TO_DICT[self.__class__] = _converter(self.__class__, strict=False)
        return convert(self)

    def actor_id(self) -> str | None:
        """The formation (or unit) that acts: where a line starts or a marker stands."""
        return None

    def target_id(self) -> str | None:
        """The formation a line ends at (the one shot at, fought, charged)."""
        return None

    def describe(self, names: Callable[[str], str] = _same) -> str | None:
        """The event in a player's words, ids turned into names by ``names`` (which is also
        given free text, to name the ids inside it); None: the maps word it themselves."""
        return None

    @classmethod
    def from_dict(cls, data: typing.Mapping[str, Any]) -> typing.Self:
        """The event back from its log form (``to_dict``): JSON lists become the tuples the
        fields hold, strings the enums; keys the class does not have are refused (TypeError).

        >>> e = Moved("execute_moves", "a", (0.0, 0.0), (1.0, 2.0), 90.0, 2.24, 100.0)
        >>> Moved.from_dict(e.to_dict()) == e
        True
        """
        hints = _hints(cls)
        kwargs = {k: _typed(v, hints[k]) if k in hints else v for k, v in data.items()}
        kwargs.pop("type", None)
        return cls(**kwargs)


#: event class -> its fields' types (resolved once: the annotations are strings)
_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _typed(value: Any, hint: Any) -> Any:
    """A JSON value as a field of type ``hint`` holds it (tuples, enums; others as they are)."""
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        for arm in typing.get_args(hint):
            if arm is not type(None):
                return _typed(value, arm)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if origin is tuple and isinstance(value, list):
        args = typing.get_args(hint)
        item = args[0] if args else Any
        return tuple(_typed(v, item) for v in value)
    return value


_Converter = Callable[[Event], dict[str, Any]]
#: event class -> its generated to_dict (the log's), and the writer's strict one
_TO_DICT: dict[type[Event], _Converter] = {}
_TO_PLAIN_DICT: dict[type[Event], _Converter] = {}


def _converter(cls: type[Event], strict: bool) -> _Converter:
    """``cls``'s to_dict as straight-line code, written once per class as dataclasses writes
    ``__init__``: ``{"type": ..., field: _round(value, field), ...}`` with ``dice`` left out
    when None. A generic loop over ``dataclasses.fields`` with ``_round`` on each value was two
    thirds of the log's write time; here a str, int or None value is stored as it is
    and a float rounded in line, every other value still goes through ``_round``. ``strict``:
    raise :class:`_NotPlain` for a float orjson would not write as ``json`` does."""
    strict_check = [
        f"    if not -{PLAIN_MAX!r} < r < {PLAIN_MAX!r}:",
        "        raise _NotPlain",
    ]
    walk = "_round_strict" if strict else "_round"
    lines = ["def to_dict(self):", f"    out = {{'type': {cls.type!r}}}"]
    for f in dataclasses.fields(cls):
        name, digits = f.name, 1 if f.name in _ANGLES else 2
        as_is = ["if c is str or c is int or v is None:", f"    out[{name!r}] = v"]
        rounded = [
            "if c is float:",
            f"    r = round(v, {digits})",
            *(strict_check if strict else []),
            f"    out[{name!r}] = r",
        ]
        # the likely class tested first: a float field's value is nearly always a float
        first, second = (rounded, as_is) if str(f.type).startswith("float") else (as_is, rounded)
        # a tuple or list (positions, routes, triggers) in one comprehension: a float inside
        # the writer's range rounded in line, anything else through the walk (which, strict,
        # raises for a float outside it)
        items = [
            "elif c is tuple or c is list:",
            f"    out[{name!r}] = [round(x, {digits}) if x.__class__ is float"
            + (f" and -{PLAIN_MAX!r} < x < {PLAIN_MAX!r}" if strict else "")
            + f" else x if x.__class__ is str else {walk}(x, {name!r}) for x in v]",
        ]
        body = [
            *first,
            "el" + second[0],
            *second[1:],
            *items,
            "else:",
            f"    out[{name!r}] = {walk}(v, {name!r})",
        ]
        if name == "dice":  # a roll-free event leaves the key out
            body = ["if v is not None:", *("    " + ln for ln in body)]
        lines += [f"    v = self.{name}", "    c = v.__class__", *("    " + ln for ln in body)]
    lines.append("    return out")
    scope: dict[str, Any] = {
        "_round": _round,
        "_round_strict": _round_strict,
        "_NotPlain": _NotPlain,
    }
    exec("\n".join(lines), scope)  # the code is built above from the class's own fields
    convert: _Converter = scope["to_dict"]
    return convert


def _plain_event(e: Event) -> dict[str, Any]:
    """``e.to_dict()`` for the orjson writer; raises :class:`_NotPlain` if it cannot vouch."""
    cls = e.__class__
    if cls.to_dict is not Event.to_dict:  # its own to_dict (WCTest drops an empty re-roll)
        out = e.to_dict()
        if not _plain(out):
            raise _NotPlain
        return out
    convert = _TO_PLAIN_DICT.get(cls)
    if convert is None:
        convert = _TO_PLAIN_DICT[cls] = _converter(cls, strict=True)
    return convert(e)


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
class BrigadeBreakUp(Event):
    """5.1: a brigade breaks up into its original constituent units (``units``, back on the
    table beside ``formation``)."""

    type: ClassVar[str] = "brigade_break_up"
    formation: str
    units: tuple[str, ...]


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
    """6.3: the light (day, twilight, night) or the weather as a bound begins: at
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
    """Readiness: a formation caught unready (in camp, asleep, on the march) is roused and forms
    up; ``cause`` says what ended its state (engine.readiness)."""

    type: ClassVar[str] = "ready"
    formation: str
    state: str
    cause: str


@dataclass(frozen=True, slots=True)
class Arrived(Event):
    """A timed reinforcement enters the table as bound ``bound`` begins, at map edge
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


@dataclass(frozen=True, slots=True)
class Replanned(Event):
    """engine.command: the commander answered an idle report (``cause``: engine.idle's
    IdleCause) of ``formation``: ``order`` is its new order, ``reason`` the words for it."""

    type: ClassVar[str] = "replanned"
    formation: str
    cause: str
    order: str
    reason: str


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
        BrigadeBreakUp,
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
        Replanned,
    )
}


@dataclass(slots=True)
class BoundRecord:
    """One bound: its events in order and the snapshot of every base after it.

    ``plain``: the snapshot is stored as the log writes it, rounded when it was recorded, and
    orjson writes it as ``json`` does (:func:`engine.battle.snapshot` checks both and says so);
    otherwise it is rounded on the way out, as the older writer did. ``changes``: what the
    snapshot changed of the bound before's (:func:`snapshot_changes`), which is all the file
    holds of it; None: the file holds the whole snapshot (bound 0, a record made apart)."""

    bound: int
    events: list[Event] = field(default_factory=list)
    snapshot: dict[str, Any] = field(default_factory=dict)
    plain: bool = False
    changes: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The log's form; a plain record is shared, not copied (the log's own dicts)."""
        out: dict[str, Any] = {
            "bound": self.bound,
            "events": [e.to_dict() for e in self.events],
        }
        if self.changes is None:
            out["snapshot"] = self.snapshot if self.plain else _round(self.snapshot)
        else:
            out["changes"] = self.changes if self.plain else _round(self.changes)
        return out

    def _plain_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` for the orjson writer; raises :class:`_NotPlain` if it cannot vouch."""
        out: dict[str, Any] = {
            "bound": self.bound,
            "events": [_plain_event(e) for e in self.events],
        }
        if self.changes is None:
            out["snapshot"] = self.snapshot if self.plain else _round_strict(self.snapshot)
        else:
            out["changes"] = self.changes if self.plain else _round_strict(self.changes)
        return out

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

    def to_bytes(self) -> bytes:
        """``battle_log.json``'s bytes: ``dumps(self.to_dict())`` encoded, written by orjson
        (the json module's encoder and the rounding walk were 16 % of a 2 x 240
        fight). Anything orjson would write otherwise than ``json`` (a float it formats apart,
        NaN or infinity, a key that is not a str, a type it does not know) sends the whole
        log down the json path, so the bytes are the same either way (tests/test_log_write)."""
        try:
            out = {"format": FORMAT, **_round_strict(self.header)}
            out["bounds"] = [b._plain_dict() for b in self.bounds]
            if not _plain(self.result):  # written as it is, unrounded
                raise _NotPlain
            out["result"] = self.result
            return _encode(out)
        except (_NotPlain, TypeError):
            return _json_dumps(self.to_dict()).encode("ascii")

    def to_json(self) -> str:
        return self.to_bytes().decode("ascii")

    def events(self, type_: str | None = None) -> list[Event]:
        return [e for b in self.bounds for e in b.events if type_ is None or e.type == type_]
