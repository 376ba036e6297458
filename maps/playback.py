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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import folium
import numpy as np
from branca.element import Element, MacroElement
from jinja2 import Template

from maps.battlefield_map import battlefield_map, write_html
from maps.battlelog import load_battle_log
from maps.leaflet_offline import _MapScript, asset, inline_script, inline_style
from maps.reproject import LonLatFit
from maps.visibility import visible_sets
from scenario_builder.battlefield import Battlefield
from scenario_builder.errors import CRSError

STATE_CODES = {"ok": "o", "injured": "i", "dead": "d"}
MORALE_CODES = {"steady": "s", "retreating": "r", "routing": "R", "destroyed": "D"}
LINE_EVENTS = ("shot", "melee", "pursuit")
ACTOR_KEYS = ("formation", "attacker", "base", "shooter")
TARGET_KEYS = ("target", "defender", "victim")


def _dm(v: float, c: float) -> int:
    """Metres -> integer decimetres from the centre: short numbers in the JSON."""
    return round((v - c) * 10)


def _event_text(ev: Mapping[str, Any]) -> str:
    parts = [str(ev.get("type", "event"))]
    who = next((ev[k] for k in ACTOR_KEYS if k in ev), None)
    whom = next((ev[k] for k in TARGET_KEYS if k in ev), None)
    if who is not None:
        parts.append(f"{who}" + (f" \u2192 {whom}" if whom is not None else ""))
    dice = ev.get("dice")
    if isinstance(dice, Mapping):
        faces = dice.get("faces", [])
        parts.append(f"dice [{', '.join(str(f) for f in faces)}]")
        if dice.get("purpose"):
            parts.append(f"({dice['purpose']})")
    elif isinstance(dice, str):  # DiceResult's text form, "2d6[3,5] purpose"
        parts.append(f"dice {dice}")
    skip = {"type", "dice", "phase", *ACTOR_KEYS, *TARGET_KEYS}
    for k, v in sorted(ev.items()):
        if k not in skip and isinstance(v, (str, int, float, bool)) and v is not None:
            parts.append(f"{k} {v}")
    return "; ".join(parts)


class _Ends:
    """Where a formation or base stood in one snapshot (centroid of its living bases)."""

    def __init__(self, snap: Mapping[str, Any], form_of: Mapping[str, str]) -> None:
        self.base: dict[str, tuple[float, float]] = {}
        acc: dict[str, list[tuple[float, float]]] = {}
        for bid, b in snap["bases"].items():
            xy = (float(b["x"]), float(b["y"]))
            self.base[bid] = xy
            if b.get("state", "ok") != "dead":
                acc.setdefault(b.get("formation") or form_of.get(bid, ""), []).append(xy)
        self.form = {f: tuple(np.mean(v, axis=0)) for f, v in acc.items()}

    def at(self, key: Any) -> tuple[float, float] | None:
        if not isinstance(key, str):
            return None
        return self.form.get(key) or self.base.get(key)


def playback_data(bf: Battlefield, log: Mapping[str, Any], *, fog: bool = True) -> dict[str, Any]:
    """The compact JSON that ``playback.js`` draws (see the module docstring)."""
    fit = LonLatFit.fit(bf.crs, bf.bounds)
    cx, cy = fit.centre
    sides = [
        {"id": s["id"], "name": s.get("name", s["id"]), "colour": s.get("colour", "#555555")}
        for s in log["sides"]
    ]
    side_index = {s["id"]: i for i, s in enumerate(sides)}
    bases = log["bases"]
    base_index = {b["id"]: i for i, b in enumerate(bases)}
    side_of = {b["id"]: b["side"] for b in bases}
    form_of = {b["id"]: b.get("formation") for b in bases}
    formations = {
        f["id"]: {"side": f.get("side"), "name": f.get("name", f["id"])}
        for f in log.get("formations", [])
    }
    for b in bases:  # a log without a formations list still draws
        formations.setdefault(b.get("formation"), {"side": b["side"], "name": b.get("formation")})
    form_ids = sorted(k for k in formations if k is not None)
    form_index = {f: i for i, f in enumerate(form_ids)}
    form_side = {f: formations[f]["side"] for f in form_ids}
    out_bounds = []
    for bound in log["bounds"]:
        snap = bound["snapshot"]
        pos: list[int] = []
        states = []
        for b in bases:
            s = snap["bases"].get(b["id"])
            if s is None:
                pos += [0, 0, 0]
                states.append("-")
                continue
            pos += [_dm(s["x"], cx), _dm(s["y"], cy), round(float(s.get("facing", 0.0)) * 10)]
            states.append(STATE_CODES.get(s.get("state", "ok"), "o"))
        fsnap = snap.get("formations", {})
        morale = "".join(
            MORALE_CODES.get(fsnap.get(f, {}).get("morale", "steady"), "s") for f in form_ids
        )
        ends = _Ends(snap, form_of)
        vis: dict[str, list[int]] = {}
        seen_forms: dict[int, set[str]] = {i: set() for i in range(len(sides))}
        if fog:
            sets = visible_sets(bf, snap, side_of, [s["id"] for s in sides])
            vis = {sid: sorted(base_index[b] for b in ids) for sid, ids in sets.items()}
            for sid, ids in sets.items():
                seen_forms[side_index[sid]] = {form_of[b] for b in ids} | set(ids)
        events = []
        for ev in bound.get("events", []):
            if not isinstance(ev, Mapping):
                continue
            item: dict[str, Any] = {"t": str(ev.get("type", "")), "x": _event_text(ev)}
            who = next((ev[k] for k in ACTOR_KEYS if k in ev), None)
            whom = next((ev[k] for k in TARGET_KEYS if k in ev), None)
            for key, ref in (("a", who), ("b", whom)):
                if isinstance(ref, str):
                    sid = form_side.get(ref) or side_of.get(ref)
                    if sid in side_index:
                        item[key + "s"] = side_index[sid]
            if "as" in item:  # which sides' views show it: the actor's, and who saw the actor
                item["vs"] = [
                    i for i in range(len(sides)) if i == item["as"] or who in seen_forms[i]
                ]
            if item["t"] in LINE_EVENTS:
                pa, pb = ends.at(who), ends.at(whom)
                if pa is not None and pb is not None:
                    item["l"] = [_dm(pa[0], cx), _dm(pa[1], cy), _dm(pb[0], cx), _dm(pb[1], cy)]
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
                        f"messenger {m.get('id', '')} to {m.get('to', '?')}: "
                        f"{m.get('order', '?')}; sent bound {m.get('sent_bound', '?')}, due "
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
            }
        )
    return {
        "proj": fit.to_json(),
        "title": str(log.get("scenario", "battle")),
        "sides": sides,
        "forms": [
            {"id": f, "name": formations[f]["name"], "s": side_index.get(formations[f]["side"], 0)}
            for f in form_ids
        ],
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
        "result": log.get("result"),
        "fog": fog,
    }


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
    bf: Battlefield, log: Mapping[str, Any], *, offline: bool = False, fog: bool = True
) -> folium.Map:
    """The battlefield map with the playback drawn on top."""
    m = battlefield_map(bf, offline=offline, title=f"{log.get('scenario', 'battle')} playback")
    data = playback_data(bf, log, fog=fog)
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    m.add_child(_DataBlock(payload))
    root = m.get_root()
    root.header.add_child(Element(inline_style(asset("playback.css"))), name="sb_playback_css")
    root.header.add_child(Element(inline_script(asset("playback.js"))), name="sb_playback_js")
    m.add_child(_MapScript(f"window.sbPlayback = SBPlayback.start({m.get_name()});"))
    return m


def write_playback(
    run_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    offline: bool = False,
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
    return write_html(playback_map(bf, log, offline=offline, fog=fog), out)
