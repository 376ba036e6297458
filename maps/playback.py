"""Battle playback: the battlefield map plus every base, bound by bound, drawn by our own JS.

The log is packed into one compact JSON block (positions in decimetres from a centre, one state
letter per base, per-side visibility as base indices) and ``playback.js`` draws it with plain
Leaflet polygons: bases as true-size rotated 40 x 20 m rectangles coloured by side and styled by
state and morale, characters as rings, messenger routes with the messenger's current place, and
shooting and melee as lines whose popups show the dice. One layer per bound would be far too heavy
for hundreds of bases over dozens of bounds; here the same polygons are moved on each step.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import folium
import numpy as np
from branca.element import Element, MacroElement
from jinja2 import Template

from engine.log import EVENT_TYPES, Draw, Event, expanded
from maps.battlefield_map import BaseMap, battlefield_map, write_html
from maps.battlelog import load_battle_log
from maps.colours import distinct_colour, side_palette
from maps.features import short_name
from maps.ground_colour import sides_ground
from maps.leaflet_offline import _MapScript, asset, inline_script, inline_style, root_figure
from maps.reproject import LonLatFit
from maps.visibility import SightCache, side_limits, visible_sets
from scenario_builder.battlefield import Battlefield
from scenario_builder.errors import CRSError

if TYPE_CHECKING:
    from engine.seam import Ruleset

STATE_CODES = {"ok": "o", "injured": "i", "dead": "d"}
MORALE_CODES = {"steady": "s", "retreating": "r", "routing": "R", "destroyed": "D"}
LINE_EVENTS = ("shot", "melee", "pursuit")
#: the default book's name for the core's panic_test event (``Ruleset.morale_test_name``)
TEST_NAME = "panic test 10.5"
#: events drawn as a marker at the formation (or base) they concern, with the text as popup
MARK_EVENTS = (
    "panic_test",
    "rout",
    "retreat",
    "rally",
    "destroyed",
    "wing_split",
    "brigade_merge",
    "brigade_break_up",
    "order_refused",
    "order_roll",
    "ladder",
    "temperament_change",
    "idle",
    "replanned",
)
#: margin around every base's positions for the page's first view (metres)
FIT_MARGIN_M = 200.0
ACTOR_KEYS = ("formation", "attacker", "base", "shooter")
TARGET_KEYS = ("target", "defender", "victim")


def _dm(v: float, c: float) -> int:
    """Metres -> integer decimetres from the centre: short numbers in the JSON."""
    return round((v - c) * 10)


_LONG_FLOAT = re.compile(r"(-?\d+\.\d)\d{2,}")


def _short(v: Any) -> str:
    """Text of a value with long float tails cut (orders carry raw coordinates).

    >>> _short("advance a to 438102.40544620506,5807141.921944543")
    'advance a to 438102.4,5807141.9'
    """
    if isinstance(v, float):
        return f"{v:g}" if abs(v) < 100 else f"{v:.0f}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_short(x) for x in v)
    return _LONG_FLOAT.sub(r"\1", str(v))


def _dice_text(ev: Mapping[str, Any]) -> str:
    dice = ev.get("dice")
    if isinstance(dice, Mapping):
        faces = ", ".join(str(f) for f in dice.get("faces", []))
        need = f" need {ev['need']}+" if "need" in ev else ""
        return f"dice [{faces}]{need}"
    if isinstance(dice, str):  # DiceResult's text form, "2d6[3,5] purpose"
        return f"dice {dice}"
    return ""


# Known event types as sentences: (template, keys the template uses). Missing keys fall back to
# the generic form, so a log from a newer engine still reads.
_SENTENCES: dict[str, str] = {
    "order_issued": "{side}: order to {formation}: {order}",
    "order_received": "{formation} received \u201c{order}\u201d \u2192 {outcome}",
    "order_roll": "{formation} ({temperament}) order roll 9.3 for \u201c{order}\u201d: {dice} "
    "\u2192 {outcome}",
    "order_refused": "{formation}: order \u201c{order}\u201d refused: {reason}",
    "planned_move": "{formation} plans to {kind} (bearing {bearing}\u00b0){toward}",
    "moved": "{formation} moved {distance_m} m (allowance {allowance_m} m)",
    "shot": "{formation} shoots at {target} ({distance_m} m, {mode}): {dice} \u2192 {hits} hit(s)",
    "melee": "{formation} strikes {target} (strike order {order}): {dice} \u2192 {hits} hit(s)",
    "hit": "{formation} takes {hits} hit(s) from {by} ({kind})",
    "injured": "{base} of {formation} injured by {by}",
    "killed": "{base} of {formation} killed by {by}",
    "panic_test": "{formation} {test_name} ({triggers}): {dice}, score {score} vs "
    "resilience {resilience} \u2192 {outcome}",
    "retreat": "{formation} retreats: {reason}",
    "rout": "{formation} routs: {reason}",
    "rally": "{formation} rallies: {reason}",
    "pursuit": "{formation} pursues {target}",
    "destroyed": "{formation} destroyed: {reason}",
    "wing_split": "{formation} splits into wings {wings} (4.2)",
    "brigade_merge": "{merged} rejoins {formation}",
    "brigade_break_up": "{formation} breaks up: {units} (5.1)",
    "temperament_change": "{formation} turns {temperament}: {reason}",
    "ladder": "{formation} ladders: {stage} (8.3)",
    "messenger_sent": "{side}: messenger {id} from {by} to {to}: \u201c{order}\u201d; route "
    "{cost_m} m, due bound {arrival_bound}",
    "messenger_arrived": "{side}: messenger {id} reached {to}: \u201c{order}\u201d",
    "messenger_rerouted": "{side}: messenger {id} to {to} re-routed ({reason}); route now "
    "{cost_m} m, due bound {arrival_bound}",
    # a timed reinforcement comes on (engine.reinforcements)
    "arrived": "{formation} arrives on the table ({edge}), {delayed} bound(s) late",
    # engine.idle: an order not carried out for bounds running, and why
    "idle": "{formation} has not carried out \u201c{order}\u201d for {bounds} bounds: {cause}",
    # engine.command: the commander's answer to an idle report
    "replanned": "{formation}: the General changes its orders to \u201c{order}\u201d ({reason})",
}


class Renamer:
    """Internal ids in an event's text fields -> the names a reader knows: formations (and
    wings) by their scenario names, bases as "<formation> base <n>", sides by name.

    >>> r = Renamer({"sc_errol": {"name": "Errol, Crawford and Montrose"}},
    ...             [{"id": "sc_errol.2", "formation": "sc_errol"}],
    ...             [{"id": "scots", "name": "Scots (James IV)"}])
    >>> r({"type": "order_issued", "side": "scots", "formation": "sc_errol",
    ...    "order": "attack sc_errol on en_edmund", "base": "sc_errol.2"})["order"]
    'attack Errol, Crawford and Montrose on en_edmund'
    >>> r.text("sc_errol.2 of sc_errol")
    'Errol, Crawford and Montrose base 2 of Errol, Crawford and Montrose'
    """

    KEEP = frozenset({"type", "phase", "dice", "need", "outcome", "kind", "mode"})

    def __init__(
        self,
        formations: Mapping[str, Mapping[str, Any]],
        bases: Sequence[Mapping[str, Any]],
        sides: Sequence[Mapping[str, Any]],
    ) -> None:
        self.names: dict[str, str] = {f: str(v.get("name", f)) for f, v in formations.items()}
        for b in bases:
            bid, f = str(b["id"]), b.get("formation")
            suffix = bid.rsplit(".", 1)[-1] if "." in bid else bid
            self.names[bid] = f"{self.names.get(str(f), f)} base {suffix}" if f else bid
        self.sides = {str(s["id"]): str(s.get("name", s["id"])) for s in sides}
        ids = sorted(self.names, key=len, reverse=True)
        self.pattern = (
            re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, ids)) + r")(?![\w])")
            if ids
            else None
        )

    def text(self, value: Any) -> Any:
        if isinstance(value, str):
            if self.pattern is None:
                return value
            return self.pattern.sub(lambda m: self.names[m.group(1)], value)
        if isinstance(value, list):
            return [self.text(v) for v in value]
        return value

    def __call__(self, ev: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in ev.items():
            if k == "dice" and isinstance(v, Mapping):  # its purpose names who rolled
                out[k] = {**v, "purpose": self.text(v.get("purpose"))} if "purpose" in v else v
            elif k in self.KEEP:
                out[k] = v
            elif k == "side" and isinstance(v, str):
                out[k] = self.sides.get(v, v)
            else:
                out[k] = self.text(v)
        return out


def _event_text(ev: Mapping[str, Any], test_name: str = TEST_NAME) -> str:
    """One line for an event: a sentence for the core's known types, every simple field for
    others. A book's own events word themselves (``Event.describe``, :class:`EventReader`);
    one read here is a record its class no longer reads (a log from another version).

    >>> _event_text({"type": "panic_test", "formation": "f", "triggers": ["shot_at"],
    ...              "dice": {"purpose": "panic f", "faces": [2, 5]}, "score": 5,
    ...              "resilience": 4, "outcome": "retreat"})
    'f panic test 10.5 (shot_at): dice [2, 5], score 5 vs resilience 4 \u2192 retreat'
    >>> _event_text({"type": "disorder", "formation": "f", "dps": 1, "total": 3})  # a book's
    'disorder; f; dps 1; total 3'
    >>> _event_text({"type": "arrived", "formation": "f", "edge": "south", "at": [1.0, 2.0],
    ...              "facing": 0.0, "delayed": 0})
    'f arrives on the table (south), 0 bound(s) late'
    >>> _event_text({"type": "idle", "formation": "f", "order": "advance", "bounds": 5,
    ...              "cause": "blocked by friend g"})
    'f has not carried out \u201cadvance\u201d for 5 bounds: blocked by friend g'
    >>> _event_text({"type": "earthquake", "formation": "f", "dice": {"faces": [6]}, "size": 9})
    'earthquake; f; dice [6]; size 9'
    """
    kind = str(ev.get("type", "event"))
    template = _SENTENCES.get(kind)
    if template is not None:
        fields = {k: _short(v) for k, v in ev.items() if v is not None}
        fields["dice"] = _dice_text(ev)
        fields["test_name"] = test_name  # the book's name for its morale test (Ruleset)
        fields["toward"] = f" toward {_short(ev['target'])}" if ev.get("target") else ""
        try:
            text = template.format(**fields)
        except (KeyError, IndexError, ValueError):
            text = ""
        if text:
            if ev.get("character"):
                text += f" (character {ev['character']})"
            if fields["dice"] and "{dice}" not in template:  # e.g. a die chose the base
                purpose = ev["dice"].get("purpose") if isinstance(ev["dice"], Mapping) else None
                text += f"; {fields['dice']}" + (f" ({purpose})" if purpose else "")
            return text
    parts = [kind]
    who = next((ev[k] for k in ACTOR_KEYS if k in ev), None)
    whom = next((ev[k] for k in TARGET_KEYS if k in ev), None)
    if who is not None:
        parts.append(f"{_short(who)}" + (f" \u2192 {_short(whom)}" if whom is not None else ""))
    dice = _dice_text(ev)
    if dice:
        parts.append(dice)
        purpose = ev["dice"].get("purpose") if isinstance(ev.get("dice"), Mapping) else None
        if purpose:
            parts.append(f"({purpose})")
    skip = {"type", "dice", "phase", "need", *ACTOR_KEYS, *TARGET_KEYS}
    for k, v in sorted(ev.items()):
        if k not in skip and isinstance(v, (str, int, float, bool)) and v is not None:
            parts.append(f"{k} {_short(v)}")
    return "; ".join(parts)


@dataclass(frozen=True)
class ReadEvent:
    """One event as the maps read it: its words, how it is drawn, whom it concerns."""

    words: str
    typed: Event | None  # the book's own event class, when it words and draws itself
    draw: Draw
    actor: Any  # the formation (or base) id that acts, when the event names one
    target: Any


class EventReader:
    """A log's events in a player's words (a book's ``describe()``, else the core's sentences)
    with the ids of who acts and whom it concerns: the one reading the playback page and the
    GeoPackage (:mod:`maps.battle_gpkg`) share."""

    def __init__(
        self,
        renamer: Renamer,
        types: Mapping[str, type[Event]],
        formations: Mapping[str, Mapping[str, Any]],
        test_name: str = TEST_NAME,
    ) -> None:
        self.renamer = renamer
        self.types = types
        #: every formation the log names, wings included: its side and name (``_formations``)
        self.formations = formations
        #: the book's name for the core's panic_test (``Ruleset.morale_test_name``)
        self.test_name = test_name

    @classmethod
    def for_log(cls, log: Mapping[str, Any]) -> EventReader:
        """The reader of a read log of any format (a battlelog/2 log is expanded first)."""
        from engine.log import expanded

        log = expanded(log)
        side_of = {b["id"]: b["side"] for b in log["bases"]}
        sides = [{"id": s["id"], "name": s.get("name", s["id"])} for s in log["sides"]]
        formations = _formations(log, side_of)
        return cls(
            Renamer(formations, log["bases"], sides), event_types(log), formations, _test_name(log)
        )

    def name(self, text: str) -> str:
        """What a book's describe() is given: a side's id, a formation's or base's, or text."""
        return self.renamer.sides.get(text) or str(self.renamer.text(text))

    def read(self, ev: Mapping[str, Any]) -> ReadEvent:
        typed = _typed_event(self.types, ev)
        words = typed.describe(self.name) if typed is not None else None
        draw = typed.draw if typed is not None else Draw.NONE
        if typed is not None and draw is not Draw.NONE:
            who, whom = typed.actor_id(), typed.target_id()
        else:
            who = next((ev[k] for k in ACTOR_KEYS if k in ev), None)
            whom = next((ev[k] for k in TARGET_KEYS if k in ev), None)
        text = words if words is not None else _event_text(self.renamer(ev), self.test_name)
        return ReadEvent(text, typed, draw, who, whom)


class _Ends:
    """Where a formation or base stood in one snapshot (centroid of its living bases)."""

    def __init__(self, snap: Mapping[str, Any], form_of: Mapping[str, str]) -> None:
        self.base: dict[str, tuple[float, float]] = {}
        acc: dict[str, list[tuple[float, float]]] = {}
        every: dict[str, list[tuple[float, float]]] = {}
        for bid, b in snap["bases"].items():
            xy = (float(b["x"]), float(b["y"]))
            self.base[bid] = xy
            f = b.get("formation") or form_of.get(bid, "")
            every.setdefault(f, []).append(xy)
            if b.get("state", "ok") != "dead":
                acc.setdefault(f, []).append(xy)
        self.form = {f: tuple(np.mean(v, axis=0)) for f, v in acc.items()}
        self.all = {f: tuple(np.mean(v, axis=0)) for f, v in every.items()}

    def last(self, key: Any) -> tuple[float, float] | None:
        """Where a formation's bases lie, dead ones included (a destroyed formation's place)."""
        return self.all.get(key) if isinstance(key, str) else None

    def at(self, key: Any) -> tuple[float, float] | None:
        if not isinstance(key, str):
            return None
        return self.form.get(key) or self.base.get(key)


_WING = re.compile(r"^(?P<root>.+)_w\d+$")
_INJURED = re.compile(r"^(?P<root>.+)_inj\d*$")


def _formations(log: Mapping[str, Any], side_of: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Every formation the log mentions: the header's, the bases', and wings split off in battle.

    Wings (4.2, ids ``<formation>_w<n>``) appear only in snapshots and ``wing_split`` events; their
    side comes from their bases, else from the formation they split from. A formation's injured
    bases moving as a group (``<formation>_inj``) appear only in events.

    >>> log = {"formations": [{"id": "a", "side": "s", "name": "A"}], "bases": [],
    ...        "bounds": [{"snapshot": {"bases": {}}, "events": [{"formation": "a_inj"}]}]}
    >>> _formations(log, {})["a_inj"]
    {'side': 's', 'name': 'A (injured)'}
    >>> log["bounds"][0]["snapshot"]["formations"] = {"a_inj": {}}  # in a snapshot too
    >>> _formations(log, {})["a_inj"]
    {'side': 's', 'name': 'A (injured)'}
    """
    out: dict[str, dict[str, Any]] = {
        f["id"]: {"side": f.get("side"), "name": f.get("name", f["id"])}
        for f in log.get("formations", [])
        if isinstance(f, Mapping) and "id" in f
    }
    for b in log["bases"]:  # a log without a formations list still draws
        if b.get("formation") is not None:
            out.setdefault(b["formation"], {"side": b["side"], "name": b["formation"]})
    for bound in log["bounds"]:
        snap = bound["snapshot"]
        for bid, s in snap["bases"].items():
            f = s.get("formation") if isinstance(s, Mapping) else None
            if isinstance(f, str) and f not in out:
                out[f] = {"side": side_of.get(bid), "name": _wing_name(f, None, out)}
        for f, st in (snap.get("formations") or {}).items():
            if f not in out:
                parent = st.get("wing_of") if isinstance(st, Mapping) else None
                m = _WING.match(f) or _INJURED.match(f)
                root = parent or (m.group("root") if m else None)
                side = out.get(root, {}).get("side") if root else None
                out[f] = {"side": side, "name": _wing_name(f, parent, out)}
        # a formation's injured bases moving as a group of their own (``<id>_inj``, 2mm
        # Earth's movement) appear in the moves' events only
        for e in bound["events"]:
            f = e.get("formation")
            m = _INJURED.match(f) if isinstance(f, str) and f not in out else None
            if m is not None and m.group("root") in out:
                out[f] = {"side": out[m.group("root")]["side"], "name": _wing_name(f, None, out)}
    for f, v in out.items():
        if v["side"] is None:
            m = _WING.match(f) or _INJURED.match(f)
            v["side"] = out.get(m.group("root"), {}).get("side") if m else None
    return out


def _wing_name(f: str, parent: str | None, known: Mapping[str, Mapping[str, Any]]) -> str:
    """A wing's name a reader knows: its formation's name and its number (4.2).

    >>> _wing_name("sc_king_w2", None, {"sc_king": {"name": "James IV's division"}})
    "James IV's division (wing 2)"
    """
    injured = _INJURED.match(f)
    if injured is not None and injured.group("root") in known:
        # a formation's injured bases moving as a group of their own (2mm Earth's movement)
        return f"{known[injured.group('root')]['name']} (injured)"
    m = _WING.match(f)
    root = parent or (m.group("root") if m else None)
    if root is None or root not in known:
        return f
    number = f.rsplit("_w", 1)[1] if m else f
    return f"{known[root]['name']} (wing {number})"


def _fit(
    xs: list[float], ys: list[float], cx: float, cy: float, within: tuple[float, ...]
) -> list[int] | None:
    """The first view: every place a base stood, with a margin, on the map (dm from the centre).

    >>> _fit([0.0, 1000.0], [0.0, 50.0], 0.0, 0.0, (-100.0, -5000.0, 5000.0, 5000.0))
    [-1000, -2000, 12000, 2500]
    """
    if not xs:
        return None
    m = FIT_MARGIN_M
    x0, y0 = max(min(xs) - m, within[0]), max(min(ys) - m, within[1])
    x1, y1 = min(max(xs) + m, within[2]), min(max(ys) + m, within[3])
    if x0 >= x1 or y0 >= y1:
        return None
    return [_dm(x0, cx), _dm(y0, cy), _dm(x1, cx), _dm(y1, cy)]


def playback_data(bf: Battlefield, log: Mapping[str, Any], *, fog: bool = True) -> dict[str, Any]:
    """The compact JSON that ``playback.js`` draws (see the module docstring)."""
    log = expanded(log)  # every bound whole (a log in memory holds changes after bound 0)
    fit = LonLatFit.fit(bf.crs, bf.bounds)
    cx, cy = fit.centre
    palette = side_palette(
        [str(s.get("colour", "#555555")) for s in log["sides"]], grounds=sides_ground(bf, log)
    )
    sides = [
        {"id": s["id"], "name": s.get("name", s["id"]), "colour": colour}
        for s, colour in zip(log["sides"], palette, strict=True)
    ]
    shot = distinct_colour(palette)
    side_index = {s["id"]: i for i, s in enumerate(sides)}
    bases = log["bases"]
    base_index = {b["id"]: i for i, b in enumerate(bases)}
    side_of = {b["id"]: b["side"] for b in bases}
    form_of = {b["id"]: b.get("formation") for b in bases}
    formations = _formations(log, side_of)
    form_ids = sorted(formations)
    form_index = {f: i for i, f in enumerate(form_ids)}
    form_side = {f: formations[f]["side"] for f in form_ids}
    renamer = Renamer(formations, bases, sides)
    reader = EventReader(renamer, event_types(log), formations, _test_name(log))
    xs: list[float] = []
    ys: list[float] = []
    # 6.2: the engine's own record of what each side saw (``seen`` in every snapshot) is the
    # fog of war; only an older log without it is recomputed here (and says so)
    recorded = all("seen" in b["snapshot"] for b in log["bounds"]) and bool(log["bounds"])
    fog = fog or recorded
    cache = SightCache(bf) if fog and not recorded else None
    limits = side_limits(log)
    known_dead: dict[str, set[str]] = {s["id"]: set() for s in sides}
    prev_seen: dict[str, set[str]] = {s["id"]: set() for s in sides}
    out_bounds: list[dict[str, Any]] = []
    for bound in log["bounds"]:
        snap = bound["snapshot"]
        pos: list[int] = []
        states = []
        moved_to: dict[int, int] = {}  # base index -> formation index, when not its header's
        for i, b in enumerate(bases):
            s = snap["bases"].get(b["id"])
            if s is None:
                pos += [0, 0, 0]
                states.append("-")
                continue
            pos += [_dm(s["x"], cx), _dm(s["y"], cy), round(float(s.get("facing", 0.0)) * 10)]
            states.append(STATE_CODES.get(s.get("state", "ok"), "o"))
            xs.append(float(s["x"]))
            ys.append(float(s["y"]))
            f = s.get("formation")
            if f is not None and f != b.get("formation") and f in form_index:
                moved_to[i] = form_index[f]
        fsnap = snap.get("formations", {})
        morale = "".join(
            MORALE_CODES.get(fsnap[f].get("morale", "steady"), "s") if f in fsnap else "-"
            for f in form_ids
        )
        # a book's own formation record (dark-age: its formation type and DPs, 5.1-5.4, 5.11)
        book = {}
        if any("formation_type" in fsnap.get(f, {}) for f in form_ids):
            book["ft"] = [fsnap.get(f, {}).get("formation_type") for f in form_ids]
        if any("dps" in fsnap.get(f, {}) for f in form_ids):
            book["dp"] = [fsnap.get(f, {}).get("dps") for f in form_ids]
        # medieval-d10: figures left and lost, disorder, what its last test made it do
        if any("figures" in fsnap.get(f, {}) for f in form_ids):
            book["fg"] = [_figures(fsnap.get(f, {})) for f in form_ids]
        ends = _Ends(snap, form_of)
        vis: dict[str, list[int]] = {}
        seen_forms: dict[int, set[str]] = {i: set() for i in range(len(sides))}
        hidden: dict[int, int] = {}
        seen_losses: dict[int, dict[str, int]] = {}
        if recorded:
            seen_now = {sid: set(snap["seen"].get(sid, [])) for sid in side_index}
            sets = {
                sid: [
                    b
                    for b, st in snap["bases"].items()
                    if side_of.get(b) != sid and (st.get("formation") or form_of.get(b)) in seen
                ]
                for sid, seen in seen_now.items()
            }
            for sid, seen in seen_now.items():
                active = {
                    f
                    for f, st in fsnap.items()
                    if form_side.get(f) not in (sid, None) and st.get("morale") != "destroyed"
                }
                hidden[side_index[sid]] = len(active - seen)
                # losses a side knows of: bases that fell in enemy formations it saw then
                for b, st in snap["bases"].items():
                    f = st.get("formation") or form_of.get(b)
                    if (
                        side_of.get(b) != sid
                        and st.get("state") == "dead"
                        and (f in seen or f in prev_seen[sid])
                    ):
                        known_dead[sid].add(b)
                seen_losses[side_index[sid]] = {
                    other: sum(1 for b in known_dead[sid] if side_of.get(b) == other)
                    for other in side_index
                    if other != sid
                }
                prev_seen[sid] = seen
        elif fog:
            sets = visible_sets(
                bf, snap, side_of, [s["id"] for s in sides], limits=limits, cache=cache
            )
        if fog:
            vis = {sid: sorted(base_index[b] for b in ids) for sid, ids in sets.items()}
            for sid, ids in sets.items():
                seen_forms[side_index[sid]] = {
                    snap["bases"][b].get("formation") or form_of[b] for b in ids
                } | set(ids)
        events = []
        for ev in bound.get("events", []):
            if not isinstance(ev, Mapping):
                continue
            read = reader.read(ev)
            item: dict[str, Any] = {"t": str(ev.get("type", "")), "x": read.words}
            typed, draw, who, whom = read.typed, read.draw, read.actor, read.target
            for key, ref in (("a", who), ("b", whom)):
                if isinstance(ref, str):
                    ref_side = form_side.get(ref) or side_of.get(ref)
                    if ref_side in side_index:
                        item[key + "s"] = side_index[ref_side]
            if "as" in item:  # which sides' views show it: the actor's, and who saw the actor
                item["vs"] = [
                    i for i in range(len(sides)) if i == item["as"] or who in seen_forms[i]
                ]
            if draw in (Draw.SHOT, Draw.MELEE) or (draw is Draw.NONE and item["t"] in LINE_EVENTS):
                # a formation wiped out in this very fight is drawn where its bases fell
                pa, pb = ends.at(who) or ends.last(who), ends.at(whom) or ends.last(whom)
                if pa is not None and pb is not None:
                    item["l"] = [_dm(pa[0], cx), _dm(pa[1], cy), _dm(pb[0], cx), _dm(pb[1], cy)]
                    if draw is not Draw.NONE:  # the book's event says which line it is
                        item["lk"] = draw.value
            elif draw is Draw.MARK or (draw is Draw.NONE and item["t"] in MARK_EVENTS):
                at = ends.at(ev.get("base")) or ends.at(who) or ends.last(who)
                if at is not None:
                    item["k"] = [_dm(at[0], cx), _dm(at[1], cy)]
                    if typed is not None and typed.mark:  # drawn with a core event's glyph
                        item["mk"] = typed.mark
            events.append(item)
        messengers = []
        for m in snap.get("messengers", []) or []:
            route = [(float(x), float(y)) for x, y in m.get("route", [])]
            if len(route) < 1:
                continue
            at = _along(route, float(m.get("travelled_m", 0.0)), float(m.get("cost_m", 0.0)))
            messengers.append(
                {
                    "s": side_index.get(m.get("side"), 0),
                    "r": [v for x, y in route for v in (_dm(x, cx), _dm(y, cy))],
                    "p": [_dm(at[0], cx), _dm(at[1], cy)],
                    "x": (
                        f"messenger {m.get('id', '')} to {renamer.text(m.get('to', '?'))}: "
                        f"{renamer.text(m.get('order', '?'))}; "
                        f"sent bound {m.get('sent_bound', '?')}, due "
                        f"{m.get('arrival_bound', '?')}; {m.get('travelled_m', 0):.0f} of "
                        f"{m.get('cost_m', 0):.0f} m"
                    ),
                }
            )
        out_bounds.append(
            {
                "b": bound.get("bound", len(out_bounds)),
                "p": pos,
                "s": "".join(states),
                "m": morale,
                "e": events,
                "g": messengers,
                "l": snap.get("losses", {}),
                "v": vis,
                **({"h": hidden, "ls": seen_losses} if recorded else {}),
                **({"f": {str(k): v for k, v in moved_to.items()}} if moved_to else {}),
                **book,
            }
        )
    arrivals = _arrivals(bf, log, formations)
    for a in log.get("arrivals") or []:  # the first view shows where they will enter too
        xs.append(float(a["at"][0]))
        ys.append(float(a["at"][1]))
    return {
        "proj": fit.to_json(),
        "title": str(log.get("scenario", "battle")),
        "sides": sides,
        "forms": [
            {
                "id": f,
                "name": formations[f]["name"],
                "short": _short_label(str(formations[f]["name"])),
                "s": side_index.get(formations[f]["side"], -1),
            }
            for f in form_ids
        ],
        "palette": {"shot": shot, "melee": distinct_colour([*palette, shot])},
        "bases": {
            "id": [b["id"] for b in bases],
            "s": [side_index[b["side"]] for b in bases],
            "f": [form_index.get(b.get("formation"), -1) for b in bases],
            "w": [float(b.get("w", 40.0)) for b in bases],
            "d": [float(b.get("d", 20.0)) for b in bases],
            "c": [b.get("character") for b in bases],
            "u": [b.get("unit_type", "") for b in bases],
        },
        "bounds": out_bounds,
        "fit": _fit(xs, ys, cx, cy, bf.bounds),
        "result": log.get("result"),
        "resultText": result_text(log.get("result"), [b["b"] for b in out_bounds], arrivals),
        "arrivals": arrivals,
        "fog": fog,
        "fogSource": "engine" if recorded else ("recomputed" if fog else None),
    }


def _figures(record: Mapping[str, Any]) -> str | None:
    """A formation record's figures in words (medieval-d10: one base is one figure).

    >>> _figures({"figures": 18, "figures_lost": 2, "disordered": True, "mode": "no advance"})
    '18 figures (2 lost), disordered, no advance'
    >>> _figures({"figures": 8, "figures_lost": 0, "mode": "act as ordered"})
    '8 figures'
    """
    if "figures" not in record:
        return None
    parts = [f"{record['figures']} figures"]
    if record.get("figures_lost"):
        parts[0] += f" ({record['figures_lost']} lost)"
    if record.get("disordered"):
        parts.append("disordered")
    mode = record.get("mode")
    if mode and mode != "act as ordered":
        parts.append(str(mode))
    return ", ".join(parts)


def _ruleset_of(log: Mapping[str, Any]) -> Ruleset | None:
    """The log's ruleset from the registry; None for a log naming none known here."""
    from engine.rulesets import get_ruleset
    from scenario_builder.errors import RulesetError

    name = log.get("ruleset")
    try:
        return get_ruleset(str(name)) if name else None
    except RulesetError:
        return None


def _test_name(log: Mapping[str, Any]) -> str:
    """The log's book's name for the core's panic_test (a log naming no book known here: the
    default book's)."""
    book = _ruleset_of(log)
    return book.morale_test_name if book is not None else TEST_NAME


def event_types(log: Mapping[str, Any]) -> Mapping[str, type[Event]]:
    """The event classes of the log's ruleset (the core's and the book's own), found through
    the registry; a log naming no ruleset known here reads with the core's alone."""
    book = _ruleset_of(log)
    return book.event_types() if book is not None else EVENT_TYPES


def _typed_event(types: Mapping[str, type[Event]], ev: Mapping[str, Any]) -> Event | None:
    """``ev`` as its class, when the class words and draws itself (a book's own event); None
    for the core's events (worded by :data:`_SENTENCES`) and for a record its class no longer
    reads (a log from another version of the book): those read field by field."""
    cls = types.get(str(ev.get("type")))
    if cls is None or cls.describe is Event.describe:
        return None
    try:
        return cls.from_dict(ev)
    except (TypeError, ValueError, KeyError):
        return None


def _short_label(name: str) -> str:
    """A formation's label at low zoom: its name's head, a wing keeping its number.

    >>> _short_label("Borthwick's great guns (wing 2)")
    "Borthwick's great guns w2"
    """
    m = re.search(r"\(wing (\d+)\)$", name)
    head = short_name(name, 22)
    return f"{head} w{m.group(1)}" if m else head


def arrival_words(a: Mapping[str, Any]) -> str:
    """When and where a reinforcement comes on, in words.

    >>> arrival_words({"bound": 40, "edge": "south"})
    'bound 40, at the south edge'
    """
    where = f"at the {a['edge']} edge" if a.get("edge") else "at its point"
    return f"bound {a['bound']}, {where}"


def _arrivals(
    bf: Battlefield, log: Mapping[str, Any], formations: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The log header's timed reinforcements (engine.reinforcements), with names and lon/lat:
    they are in no bound-0 snapshot, so the preview names and marks them instead."""
    items = [a for a in log.get("arrivals") or [] if isinstance(a, Mapping)]
    if not items:
        return []
    import pyproj

    to_geo = pyproj.Transformer.from_crs(bf.crs, "EPSG:4326", always_xy=True)
    out = []
    for a in items:
        lon, lat = to_geo.transform(float(a["at"][0]), float(a["at"][1]))
        fid = str(a["formation"])
        out.append(
            {
                "id": fid,
                "name": str(formations.get(fid, {}).get("name", fid)),
                "side": a.get("side"),
                "bound": int(a["bound"]),
                "edge": a.get("edge"),
                "lonlat": [round(float(lon), 6), round(float(lat), 6)],
            }
        )
    return out


def result_text(
    result: Mapping[str, Any] | None,
    bounds: list[int],
    arrivals: Sequence[Mapping[str, Any]] = (),
) -> str:
    """What the panel says at the last bound: the result, or that the log is only the
    deployment (``scenario-builder map SCENARIO`` draws bound 0 without fighting), naming the
    formations that are not on the table yet (a plan's timed ``arrives``).

    >>> result_text({"winner": "english", "reason": "scots army routed"}, list(range(15)))
    'result: english (scots army routed)'
    >>> result_text({"winner": None, "reason": "no decision after 30 bounds"}, list(range(31)))
    'result: no winner (no decision after 30 bounds)'
    >>> result_text({"winner": None, "reason": "no decision after 0 bounds"}, [0])
    'deployment (bound 0): not fought'
    >>> result_text({"winner": None}, [0], [{"name": "Soler", "bound": 30, "edge": None}])
    'deployment (bound 0): not fought; arriving later: Soler (bound 30, at its point)'
    >>> result_text(None, [0, 1])
    ''
    """
    if not result:
        return ""
    winner, reason = result.get("winner"), result.get("reason")
    if not winner and all(b == 0 for b in bounds):
        later = "; ".join(f"{a['name']} ({arrival_words(a)})" for a in arrivals)
        return "deployment (bound 0): not fought" + (f"; arriving later: {later}" if later else "")
    return f"result: {winner or 'no winner'}" + (f" ({reason})" if reason else "")


def _along(route: list[tuple[float, float]], travelled: float, cost: float) -> tuple[float, float]:
    """The point ``travelled / cost`` of the way along ``route`` (cost counts triple stretches).

    >>> _along([(0.0, 0.0), (100.0, 0.0), (100.0, 100.0)], 50.0, 100.0)
    (100.0, 0.0)
    """
    if len(route) == 1:
        return route[0]
    lengths = [math.dist(route[i], route[i + 1]) for i in range(len(route) - 1)]
    total = sum(lengths)
    frac = 1.0 if cost <= 0 else min(max(travelled / cost, 0.0), 1.0)
    want = frac * total
    for (p, q), seg in zip(itertools.pairwise(route), lengths):
        if want <= seg and seg > 0:
            t = want / seg
            return (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t)
        want -= seg
    return route[-1]


class _DataBlock(MacroElement):
    """The playback JSON as a ``<script type="application/json">`` block in the page body."""

    def __init__(self, payload: str) -> None:
        super().__init__()
        self._name = "PlaybackData"
        self.payload = payload
        self._template = Template(
            "{% macro html(this, kwargs) %}"
            '<script type="application/json" id="sb-playback-data">{{ this.payload }}</script>'
            "{% endmacro %}"
        )


def playback_map(
    bf: Battlefield,
    log: Mapping[str, Any],
    *,
    offline: bool = True,
    fog: bool = True,
    base: BaseMap | None = None,
) -> folium.Map:
    """The battlefield map with the playback drawn on top (``base``: the base map already
    drawn for another page of the same ground, ``maps.battlefield_map.draw_base_map``)."""
    m = battlefield_map(
        bf,
        offline=offline,
        title=f"{log.get('scenario', 'battle')} playback",
        fit=False,
        base=base,
    )
    data = playback_data(bf, log, fog=fog)
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    m.add_child(_DataBlock(payload))
    if data["arrivals"] and all(b["b"] == 0 for b in data["bounds"]):
        # a deployment preview: reinforcements are off the table, marked where they enter
        colours = {s["id"]: s["colour"] for s in data["sides"]}
        # control=False: the layer control is written before this group is declared, so a
        # listed group would be undefined there (and stop the page)
        group = folium.FeatureGroup(name="Arriving later (plan arrives)", control=False)
        for a in data["arrivals"]:
            text = f"{a['name']}: arrives {arrival_words(a)}"
            folium.CircleMarker(
                location=(a["lonlat"][1], a["lonlat"][0]),
                radius=9,
                color=colours.get(a["side"], "#555555"),
                weight=3,
                dash_array="4 3",
                fill=False,
                tooltip=folium.Tooltip(text, permanent=True),
            ).add_to(group)
        group.add_to(m)
    root = root_figure(m)
    root.header.add_child(Element(inline_style(asset("playback.css"))), name="sb_playback_css")
    root.header.add_child(Element(inline_script(asset("playback.js"))), name="sb_playback_js")
    m.add_child(_MapScript(f"window.sbPlayback = SBPlayback.start({m.get_name()});"))
    return m


def write_playback(
    run_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    offline: bool = True,
    fog: bool = True,
) -> Path:
    """``scenario-builder map RUN_DIR``: read the log and the run's battlefield, write the page."""
    run_dir = Path(run_dir)
    log = load_battle_log(run_dir / "battle_log.json")
    bf = Battlefield.load(run_dir / "battlefield")
    crs = log.get("crs")
    if crs:
        import pyproj

        try:
            same = pyproj.CRS.from_user_input(crs) == bf.crs
        except pyproj.exceptions.CRSError:
            same = False
        if not same:
            raise CRSError(
                run_dir / "battle_log.json",
                f"expected the battlefield's CRS {bf.crs.to_string()}, got {crs!r}",
            )
    return write_html(playback_map(ruleset_view(bf, log), log, offline=offline, fog=fog), out)


def ruleset_view(bf: Battlefield, log: Mapping[str, Any]) -> Any:
    """The battlefield as the battle's ruleset read it (its terrain classes, names and
    colours on the page), through the registry only; a log that names no ruleset (or one
    no longer registered) is drawn as built."""
    name = log.get("ruleset")
    if not name:
        return bf
    from engine.rulesets import get_ruleset
    from scenario_builder.errors import RulesetError

    try:
        rs = get_ruleset(str(name))
    except RulesetError:
        return bf
    return rs.ground(bf)
