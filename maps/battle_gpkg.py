"""The battle as a GeoPackage for QGIS: every base at every bound, the events, the messengers,
each with a ``datetime`` and a QGIS style stored in the file, so QGIS's Temporal Controller plays
the battle bound by bound (docs/qgis.md).

Layers, all in the battlefield's CRS (the log's ``crs``):

* ``bases``: one polygon per base per bound, the true-size rectangle of its snapshot;
* ``events``: one row per event, a point where its formation stood (no geometry when the event
  names no place, a side's orders say);
* ``messengers``: the route of every messenger in flight at a bound, one line per bound.

The log holds no other routes. Every row carries its ``bound`` and a ``datetime``: the moment
its bound begins (:class:`Timeline`), so one Temporal Controller frame of one bound's length
shows that bound's positions (as it ends) and what happened in it, as the playback page does.
The styles (``layer_styles``, the table QGIS itself writes) colour the bases by side and by
condition and switch the layers' temporal properties on.

>>> t = Timeline(dt.datetime(2000, 1, 1), 1.0, TimeBasis.STAND_IN)
>>> t.at(0), t.at(3)
(datetime.datetime(2000, 1, 1, 0, 0), datetime.datetime(2000, 1, 1, 0, 3))
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeGuard
from xml.sax.saxutils import quoteattr

import numpy as np
import pandas as pd

from maps.colours import STATE_STYLES, hex_to_rgb, side_palette
from maps.playback import EventReader, _Ends, _short
from scenario_builder.atomic import atomic_path

__all__ = [
    "GPKG_NAME",
    "STAND_IN_START",
    "Layer",
    "TimeBasis",
    "Timeline",
    "battle_layers",
    "layer_qml",
    "write_battle_gpkg",
]

GPKG_NAME = "battle.gpkg"
#: the moment of bound 0 when the battle has no clock of its own (no date, no start time)
STAND_IN_START = dt.datetime(2000, 1, 1)
#: a bound's length when the ruleset states none (engine.rulesets.Ruleset.bound_minutes)
STAND_IN_BOUND_MINUTES = 1.0
#: the name QGIS shows for the stored styles
STYLE_NAME = "scenario-builder"


class Layer(StrEnum):
    BASES = "bases"
    EVENTS = "events"
    MESSENGERS = "messengers"


class Condition(StrEnum):
    """How a base is drawn: its own state, else its formation's morale (playback's looks)."""

    OK = "ok"
    INJURED = "injured"
    RETREATING = "retreating"
    ROUTING = "routing"
    DEAD = "dead"


class TimeBasis(StrEnum):
    """Where a layer's datetimes come from."""

    CLOCK = "clock"  # the scenario's date and start time (the log's clock)
    DATE = "date"  # the scenario's date; the time of day a stand-in
    STAND_IN = "stand-in"  # neither: STAND_IN_START


@dataclass(frozen=True)
class Timeline:
    """When each bound begins: ``origin`` is bound 0 (the deployment), a bound lasts
    ``bound_minutes``."""

    origin: dt.datetime
    bound_minutes: float
    basis: TimeBasis

    def at(self, bound: int) -> dt.datetime:
        return self.origin + dt.timedelta(minutes=bound * self.bound_minutes)

    @classmethod
    def for_log(
        cls, log: Mapping[str, Any], date: str | None = None, calendar: str | None = None
    ) -> Timeline:
        """The log's clock (``start`` is when bound 1 begins: bound 0, the deployment, is one
        bound before); else ``date`` (the scenario's, as its sources write it) at midnight;
        else :data:`STAND_IN_START`. A bound lasts what the log's clock or its ruleset says."""
        clock = log.get("clock")
        if isinstance(clock, Mapping) and clock.get("start") and clock.get("bound_minutes"):
            minutes = float(clock["bound_minutes"])
            start = dt.datetime.fromisoformat(str(clock["start"]))
            return cls(start - dt.timedelta(minutes=minutes), minutes, TimeBasis.CLOCK)
        minutes = _ruleset_bound_minutes(log) or STAND_IN_BOUND_MINUTES
        if date:
            from engine.light import gregorian_date

            try:
                day = gregorian_date(date, calendar)
            except ValueError:
                day = None
            if day is not None:
                return cls(dt.datetime.combine(day, dt.time()), minutes, TimeBasis.DATE)
        return cls(STAND_IN_START, minutes, TimeBasis.STAND_IN)

    def words(self) -> str:
        """How the datetimes were made, for the layers' descriptions."""
        every = f"a bound lasts {self.bound_minutes:g} min"
        if self.basis is TimeBasis.CLOCK:
            return (
                f"datetime: local mean solar time from the scenario's date and start time "
                f"(bound 1 begins {self.at(1).isoformat(timespec='minutes')}); {every}; each "
                f"row carries the moment its bound begins"
            )
        if self.basis is TimeBasis.DATE:
            return (
                f"datetime: the scenario's date (Gregorian) with a stand-in clock, bound 0 at "
                f"{self.origin.isoformat(timespec='minutes')} + bound x "
                f"{self.bound_minutes:g} min (the scenario gives no start time)"
            )
        return (
            f"datetime: a stand-in clock, {self.origin.isoformat(timespec='minutes')} + bound x "
            f"{self.bound_minutes:g} min (the scenario gives no date or start time)"
        )


def _ruleset_bound_minutes(log: Mapping[str, Any]) -> float | None:
    from engine.rulesets import get_ruleset
    from scenario_builder.errors import RulesetError

    name = log.get("ruleset")
    if not name:
        return None
    try:
        return get_ruleset(str(name)).bound_minutes
    except RulesetError:
        return None


def _rectangles(
    x: np.ndarray, y: np.ndarray, facing: np.ndarray, w: np.ndarray, d: np.ndarray
) -> Any:
    """Every base's rectangle at once: the same corners as ``maps.deployment.base_rectangle``
    (facing clockwise from grid north, the front the first edge)."""
    import shapely

    r = np.radians(facing)
    fx, fy, rx, ry = np.sin(r), np.cos(r), np.cos(r), -np.sin(r)
    hw, hd = w / 2, d / 2
    corners = np.stack(
        [
            np.stack([x + fx * hd - rx * hw, y + fy * hd - ry * hw], axis=-1),
            np.stack([x + fx * hd + rx * hw, y + fy * hd + ry * hw], axis=-1),
            np.stack([x - fx * hd + rx * hw, y - fy * hd + ry * hw], axis=-1),
            np.stack([x - fx * hd - rx * hw, y - fy * hd - ry * hw], axis=-1),
        ],
        axis=1,
    )
    return shapely.polygons(corners)


def _condition(state: str, morale: str | None) -> Condition:
    if state == "dead":
        return Condition.DEAD
    if morale == "routing":
        return Condition.ROUTING
    if morale == "retreating":
        return Condition.RETREATING
    return Condition.INJURED if state == "injured" else Condition.OK


def _datetimes(values: Sequence[dt.datetime]) -> pd.Series:
    # milliseconds, not pandas' default nanoseconds: those stop at 1677 (Barnet is 1471)
    return pd.Series(np.array(values, dtype="datetime64[ms]"), dtype="datetime64[ms]")


def battle_layers(log: Mapping[str, Any], timeline: Timeline) -> dict[Layer, Any]:
    """The log (as read by :func:`maps.battlelog.load_battle_log`) as GeoDataFrames."""
    import geopandas as gpd
    import shapely

    from engine.log import expanded

    log = expanded(log)  # every bound whole (a log in memory holds changes after bound 0)

    crs = log.get("crs")
    header = {b["id"]: b for b in log["bases"]}
    form_of = {b["id"]: b.get("formation") for b in log["bases"]}
    reader = EventReader.for_log(log)
    names = reader.renamer.names
    side_names = reader.renamer.sides
    form_side = {
        f: v.get("side") for f, v in reader.formations.items() if v.get("side") is not None
    }
    side_of = {b["id"]: b["side"] for b in log["bases"]}

    base_rows: dict[str, list[Any]] = {k: [] for k in _BASE_FIELDS}
    xs: list[float] = []
    ys: list[float] = []
    fs: list[float] = []
    ws: list[float] = []
    ds: list[float] = []
    event_rows: dict[str, list[Any]] = {k: [] for k in _EVENT_FIELDS}
    event_geoms: list[Any] = []
    msg_rows: dict[str, list[Any]] = {k: [] for k in _MESSENGER_FIELDS}
    msg_geoms: list[Any] = []
    for i, bound in enumerate(log["bounds"]):
        n = int(bound.get("bound", i))
        when = timeline.at(n)
        snap = bound["snapshot"]
        fsnap = snap.get("formations") or {}
        for bid, s in snap["bases"].items():
            h = header.get(bid, {})
            f = s.get("formation") or h.get("formation") or ""
            morale = fsnap.get(f, {}).get("morale") if isinstance(fsnap.get(f), Mapping) else None
            state = str(s.get("state", "ok"))
            side = str(h.get("side", ""))
            for k, v in (
                ("bound", n),
                ("datetime", when),
                ("base", bid),
                ("formation", f),
                ("formation_name", names.get(f, f)),
                ("side", side),
                ("side_name", side_names.get(side, side)),
                ("state", state),
                ("morale", morale),
                ("condition", str(_condition(state, morale))),
                ("unit_type", h.get("unit_type")),
                ("facing", float(s.get("facing", 0.0))),
            ):
                base_rows[k].append(v)
            xs.append(float(s["x"]))
            ys.append(float(s["y"]))
            fs.append(float(s.get("facing", 0.0)))
            ws.append(float(h.get("w", 40.0)))
            ds.append(float(h.get("d", 20.0)))
        ends = _Ends(snap, form_of)
        for seq, ev in enumerate(e for e in bound.get("events", []) if isinstance(e, Mapping)):
            read = reader.read(ev)
            # a book's own event names its actor even when the page draws it as words only
            who, whom = read.actor, read.target
            if read.typed is not None:
                who = who if isinstance(who, str) else read.typed.actor_id()
                whom = whom if isinstance(whom, str) else read.typed.target_id()
            who = who if isinstance(who, str) else None
            whom = whom if isinstance(whom, str) else None
            at = ends.at(ev.get("base")) or (ends.at(who) or ends.last(who) if who else None)
            if at is None:
                at = _place_in(ev)
            said = ev.get("side")
            ev_side = said if isinstance(said, str) else None
            ev_side = ev_side or (form_side.get(who) or side_of.get(who) if who else None)
            for k, v in (
                ("bound", n),
                ("datetime", when),
                ("seq", seq),
                ("type", str(ev.get("type", ""))),
                ("phase", ev.get("phase") if isinstance(ev.get("phase"), str) else None),
                ("words", read.words),
                ("side", ev_side),
                ("formation", who),
                ("formation_name", names.get(who, who) if who else None),
                ("target", whom),
                ("target_name", names.get(whom, whom) if whom else None),
            ):
                event_rows[k].append(v)
            event_geoms.append(shapely.Point(at) if at is not None else None)
        for m in snap.get("messengers", []) or []:
            route = [(float(p[0]), float(p[1])) for p in m.get("route", [])]
            if len(route) < 2:
                continue
            side = str(m.get("side", ""))
            to = str(m.get("to", ""))
            for k, v in (
                ("bound", n),
                ("datetime", when),
                ("id", str(m.get("id", ""))),
                ("side", side),
                ("side_name", side_names.get(side, side)),
                ("to", to),
                ("to_name", names.get(to, to)),
                ("order", _short(reader.renamer.text(str(m.get("order", ""))))),
                ("sent_bound", m.get("sent_bound")),
                ("arrival_bound", m.get("arrival_bound")),
                ("travelled_m", float(m.get("travelled_m", 0.0))),
                ("cost_m", float(m.get("cost_m", 0.0))),
            ):
                msg_rows[k].append(v)
            msg_geoms.append(shapely.LineString(route))

    def frame(rows: dict[str, list[Any]], geoms: Any, kinds: Mapping[str, str]) -> Any:
        data = {
            k: (_datetimes(v) if k == "datetime" else pd.Series(v, dtype=kinds[k]))
            for k, v in rows.items()
        }
        return gpd.GeoDataFrame(data, geometry=gpd.GeoSeries(geoms), crs=crs)

    polygons = _rectangles(*(np.array(v, dtype=float) for v in (xs, ys, fs, ws, ds)))
    return {
        Layer.BASES: frame(base_rows, polygons, _BASE_FIELDS),
        Layer.EVENTS: frame(event_rows, event_geoms, _EVENT_FIELDS),
        Layer.MESSENGERS: frame(msg_rows, msg_geoms, _MESSENGER_FIELDS),
    }


# the layers' fields and their pandas types (object: text, may be empty)
_BASE_FIELDS: dict[str, str] = {
    "bound": "int32",
    "datetime": "datetime64[ms]",
    "base": "object",
    "formation": "object",
    "formation_name": "object",
    "side": "object",
    "side_name": "object",
    "state": "object",
    "morale": "object",
    "condition": "object",
    "unit_type": "object",
    "facing": "float64",
}
_EVENT_FIELDS: dict[str, str] = {
    "bound": "int32",
    "datetime": "datetime64[ms]",
    "seq": "int32",
    "type": "object",
    "phase": "object",
    "words": "object",
    "side": "object",
    "formation": "object",
    "formation_name": "object",
    "target": "object",
    "target_name": "object",
}
_MESSENGER_FIELDS: dict[str, str] = {
    "bound": "int32",
    "datetime": "datetime64[ms]",
    "id": "object",
    "side": "object",
    "side_name": "object",
    "to": "object",
    "to_name": "object",
    "order": "object",
    "sent_bound": "Int32",
    "arrival_bound": "Int32",
    "travelled_m": "float64",
    "cost_m": "float64",
}


def _place_in(ev: Mapping[str, Any]) -> tuple[float, float] | None:
    """A place the event gives itself (an arrival's point, a messenger's first step)."""
    for key in ("at", "to", "from_xy"):
        p = ev.get(key)
        if _is_xy(p):
            return (float(p[0]), float(p[1]))
    route = ev.get("route")
    if isinstance(route, list) and route and _is_xy(route[0]):
        return (float(route[0][0]), float(route[0][1]))
    return None


def _is_xy(p: Any) -> TypeGuard[Sequence[float]]:
    return (
        isinstance(p, (list, tuple))
        and len(p) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p)
    )


# -- QGIS styles ---------------------------------------------------------------------------------

_OPACITY: dict[Condition, float] = {
    c: float(str(STATE_STYLES[c]["fillOpacity"])) for c in Condition
}
_DASHED: dict[Condition, bool] = {c: STATE_STYLES[c]["dashArray"] is not None for c in Condition}


def _rgba(colour: str, alpha: float = 1.0) -> str:
    r, g, b = hex_to_rgb(colour)
    return f"{r},{g},{b},{round(alpha * 255)}"


def _temporal(bound_minutes: float) -> str:
    # mode 1 = Qgis::VectorTemporalMode::FeatureDateTimeInstantFromField; limitMode 0 = include
    # the frame's beginning, exclude its end: a frame one bound long holds exactly one bound
    return (
        '  <temporal enabled="1" mode="1" limitMode="0" startField="datetime" endField="" '
        'startExpression="" endExpression="" durationField="" durationUnit="min" '
        'fixedDuration="0" accumulate="0">\n'
        "    <fixedRange><start></start><end></end></fixedRange>\n"
        "  </temporal>\n"
    )


def _fill_symbol(name: str, colour: str, condition: Condition) -> str:
    style = "no" if _OPACITY[condition] == 0 else "solid"
    outline = "dash" if _DASHED[condition] else "solid"
    return (
        f'      <symbol type="fill" name="{name}" alpha="1" clip_to_extent="1" force_rhr="0">\n'
        '        <layer class="SimpleFill" enabled="1" locked="0" pass="0">\n'
        f'          <prop k="color" v="{_rgba(colour, _OPACITY[condition])}"/>\n'
        f'          <prop k="style" v="{style}"/>\n'
        f'          <prop k="outline_color" v="{_rgba(colour)}"/>\n'
        f'          <prop k="outline_style" v="{outline}"/>\n'
        '          <prop k="outline_width" v="0.4"/>\n'
        '          <prop k="outline_width_unit" v="MM"/>\n'
        "        </layer>\n"
        "      </symbol>\n"
    )


def _marker_symbol(name: str, colour: str) -> str:
    return (
        f'      <symbol type="marker" name="{name}" alpha="1" clip_to_extent="1" force_rhr="0">\n'
        '        <layer class="SimpleMarker" enabled="1" locked="0" pass="0">\n'
        '          <prop k="name" v="circle"/>\n'
        f'          <prop k="color" v="{_rgba(colour, 0.9)}"/>\n'
        '          <prop k="outline_color" v="255,255,255,255"/>\n'
        '          <prop k="outline_width" v="0.3"/>\n'
        '          <prop k="size" v="2.4"/>\n'
        '          <prop k="size_unit" v="MM"/>\n'
        "        </layer>\n"
        "      </symbol>\n"
    )


def _line_symbol(name: str, colour: str) -> str:
    return (
        f'      <symbol type="line" name="{name}" alpha="1" clip_to_extent="1" force_rhr="0">\n'
        '        <layer class="SimpleLine" enabled="1" locked="0" pass="0">\n'
        f'          <prop k="line_color" v="{_rgba(colour)}"/>\n'
        '          <prop k="line_style" v="dash"/>\n'
        '          <prop k="line_width" v="0.6"/>\n'
        '          <prop k="line_width_unit" v="MM"/>\n'
        "        </layer>\n"
        "      </symbol>\n"
    )


_NO_SIDE = "#777777"


def _qml(body: str, geometry_type: int, bound_minutes: float) -> str:
    return (
        "<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n"
        '<qgis version="3.22.0" styleCategories="AllStyleCategories">\n'
        f"{_temporal(bound_minutes)}{body}"
        f"  <layerGeometryType>{geometry_type}</layerGeometryType>\n"
        "</qgis>\n"
    )


def _bases_qml(sides: Sequence[tuple[str, str, str]], bound_minutes: float) -> str:
    """Rules per side and condition: the side's colour, filled as solidly as the playback
    fills that condition, dashed when retreating or routing, an outline when dead."""
    rules: list[str] = []
    symbols: list[str] = []
    for side_id, side_name, colour in sides:
        for c in Condition:
            key = str(len(symbols))
            expr = f'"side" = {_sql(side_id)} AND "condition" = {_sql(str(c))}'
            rules.append(
                f"      <rule key={quoteattr('r' + key)} symbol={quoteattr(key)} "
                f"filter={quoteattr(expr)} label={quoteattr(f'{side_name}: {c}')}/>\n"
            )
            symbols.append(_fill_symbol(key, colour, c))
    body = (
        '  <renderer-v2 type="RuleRenderer" symbollevels="0" enableorderby="0" forceraster="0">\n'
        '    <rules key="root">\n'
        f"{''.join(rules)}"
        "    </rules>\n"
        "    <symbols>\n"
        f"{''.join(symbols)}"
        "    </symbols>\n"
        "  </renderer-v2>\n"
    )
    return _qml(body, 2, bound_minutes)


def _by_side_qml(
    sides: Sequence[tuple[str, str, str]], bound_minutes: float, geometry_type: int
) -> str:
    """A categorized renderer on ``side`` (events: points, messengers: dashed lines)."""
    symbol = _marker_symbol if geometry_type == 0 else _line_symbol
    cats: list[str] = []
    symbols: list[str] = []
    for i, (side_id, side_name, colour) in enumerate([*sides, ("", "no side", _NO_SIDE)]):
        cats.append(
            f'      <category render="true" value={quoteattr(side_id)} '
            f'label={quoteattr(side_name)} symbol="{i}"/>\n'
        )
        symbols.append(symbol(str(i), colour))
    body = (
        '  <renderer-v2 type="categorizedSymbol" attr="side" symbollevels="0" '
        'enableorderby="0" forceraster="0">\n'
        f"    <categories>\n{''.join(cats)}    </categories>\n"
        f"    <symbols>\n{''.join(symbols)}    </symbols>\n"
        "  </renderer-v2>\n"
    )
    return _qml(body, geometry_type, bound_minutes)


def _sql(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def layer_qml(log: Mapping[str, Any], timeline: Timeline) -> dict[Layer, str]:
    """Each layer's QGIS style (QML): its look by side and its temporal properties."""
    palette = side_palette([str(s.get("colour", "#555555")) for s in log["sides"]])
    sides = [
        (str(s["id"]), str(s.get("name", s["id"])), c)
        for s, c in zip(log["sides"], palette, strict=True)
    ]
    return {
        Layer.BASES: _bases_qml(sides, timeline.bound_minutes),
        Layer.EVENTS: _by_side_qml(sides, timeline.bound_minutes, 0),
        Layer.MESSENGERS: _by_side_qml(sides, timeline.bound_minutes, 1),
    }


def _styles(
    log: Mapping[str, Any], timeline: Timeline, layers: Mapping[Layer, Any]
) -> pd.DataFrame:
    """The ``layer_styles`` rows: QGIS's own table, read when it opens a layer."""
    qml = layer_qml(log, timeline)
    names = [str(layer) for layer in layers]
    return pd.DataFrame(
        {
            "f_table_catalog": [""] * len(names),
            "f_table_schema": [""] * len(names),
            "f_table_name": names,
            "f_geometry_column": ["geom"] * len(names),
            "styleName": [STYLE_NAME] * len(names),
            "styleQML": [qml[layer] for layer in layers],
            "styleSLD": [""] * len(names),
            "useAsDefault": [True] * len(names),
            "description": [
                f"{layer}: by side; temporal on datetime, one bound {timeline.bound_minutes:g} min"
                for layer in layers
            ],
            "owner": [""] * len(names),
            "ui": [""] * len(names),
            "update_time": _datetimes([dt.datetime(2000, 1, 1)] * len(names)),
        }
    )


_DESCRIPTIONS: dict[Layer, str] = {
    Layer.BASES: "every base at every bound: its true-size rectangle as the bound ends",
    Layer.EVENTS: "every event of the battle log, in words, where its formation stood",
    Layer.MESSENGERS: "every messenger in flight at a bound: its route",
}


def write_battle_gpkg(
    log: Mapping[str, Any],
    out: str | os.PathLike[str],
    *,
    date: str | None = None,
    calendar: str | None = None,
    timeline: Timeline | None = None,
) -> Path:
    """Write ``log`` (as read by :func:`maps.battlelog.load_battle_log`) as a GeoPackage with
    its QGIS styles, atomically; ``date``/``calendar``: the scenario's, for a log with no clock
    (or the ``timeline`` made from them, :meth:`Timeline.for_log`).
    """
    import pyogrio

    out = Path(out)
    timeline = timeline or Timeline.for_log(log, date, calendar)
    layers = battle_layers(log, timeline)
    title = str(log.get("scenario", "battle"))
    # the file is a temporary renamed into place once whole (atomic_path): SQLite's fsync after
    # each table buys nothing here and is half the write
    sync = pyogrio.get_gdal_config_option("OGR_SQLITE_SYNCHRONOUS")
    pyogrio.set_gdal_config_options({"OGR_SQLITE_SYNCHRONOUS": "OFF"})
    try:
        _write_layers(pyogrio, out, log, timeline, layers, title)
    finally:
        pyogrio.set_gdal_config_options({"OGR_SQLITE_SYNCHRONOUS": sync})
    return out


def _write_layers(
    pyogrio: Any,
    out: Path,
    log: Mapping[str, Any],
    timeline: Timeline,
    layers: Mapping[Layer, Any],
    title: str,
) -> None:
    with atomic_path(out) as tmp:
        tmp.unlink()  # GDAL refuses to open an existing empty file as a GeoPackage
        for layer, gdf in layers.items():
            pyogrio.write_dataframe(
                gdf,
                tmp,
                layer=str(layer),
                driver="GPKG",
                # 1.2: what older GDAL (QGIS 3.22's 3.6) reads without a warning
                dataset_options={"VERSION": "1.2"},
                layer_options={
                    "DESCRIPTION": f"{title}: {_DESCRIPTIONS[layer]}; {timeline.words()}",
                    "IDENTIFIER": f"{title} {layer}",
                },
            )
        pyogrio.write_dataframe(_styles(log, timeline, layers), tmp, layer="layer_styles")
