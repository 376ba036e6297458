"""Reference for ``battle_log.json`` (``engine.log``): the file as the ``json`` module wrote
it, before orjson. Same scenario and seed give the same bytes (DESIGN's determinism); the fast
writer must give these bytes. See ``tests/reference/__init__.py`` for the rule it follows."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import engine.log as log_module
from engine.log import BattleLog, _round


def event_to_dict(e: Any) -> dict[str, Any]:
    """Pins ``engine.log.Event.to_dict`` and the per-type encoders: a loop over
    ``dataclasses.fields`` with ``_round`` on each value, as the older writer had it.
    """
    out: dict[str, Any] = {"type": e.type}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if v is None and f.name == "dice":
            continue
        out[f.name] = _round(v, f.name)
    return out


def changes_between(prev: dict[str, Any], snap: dict[str, Any]) -> dict[str, Any]:
    """Pins ``engine.log.snapshot_changes`` (a bound's ``changes``, format ``battlelog/2``) by
    plain comparison of two whole snapshots, with no shortcut by identity: of the sections
    ``bases``, ``formations`` and ``seen`` every entry new or unequal, and the ids gone under
    ``removed``; any other section whole when unequal; sections gone under ``dropped``."""
    out: dict[str, Any] = {}
    removed: dict[str, list[str]] = {}
    for key in snap:
        if key in ("bases", "formations", "seen") and key in prev:
            part = {k: v for k, v in snap[key].items() if k not in prev[key] or prev[key][k] != v}
            if part:
                out[key] = part
            gone = sorted(set(prev[key]) - set(snap[key]))
            if gone:
                removed[key] = gone
        elif key not in prev or prev[key] != snap[key]:
            out[key] = snap[key]
    if removed:
        out["removed"] = removed
    if set(prev) - set(snap):
        out["dropped"] = sorted(set(prev) - set(snap))
    return out


def _record(b: Any, prev: Any) -> dict[str, Any]:
    out = {"bound": b.bound, "events": [e.to_dict() for e in b.events]}
    if b.changes is None:  # a whole snapshot: bound 0, or a record made apart
        out["snapshot"] = _round(b.snapshot)
    else:
        out["changes"] = changes_between(_round(prev.snapshot), _round(b.snapshot))
    return out


def battle_log_json(log: BattleLog) -> bytes:
    """Pins ``engine.log.BattleLog.to_bytes`` (battle_log.json, byte for byte): the file as the
    older ``json`` writer made it, every event through ``event_to_dict``, every snapshot rounded at
    write time (after bound 0, each bound's changes from the whole snapshots by
    ``changes_between``), sorted keys, compact separators, ``allow_nan=False`` (rounding twice
    is rounding once: the record's values, rounded when taken, come out the same)."""
    fast = log_module.Event.to_dict
    log_module.Event.to_dict = event_to_dict  # type: ignore[method-assign]
    try:  # an override (WCTest's) calls Event.to_dict: the generic one here
        out = {"format": log_module.FORMAT, **_round(log.header)}
        out["bounds"] = [
            _record(b, log.bounds[i - 1] if i else None) for i, b in enumerate(log.bounds)
        ]
        out["result"] = log.result
    finally:
        log_module.Event.to_dict = fast  # type: ignore[method-assign]
    text = json.dumps(out, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8")
