"""Reading a ``battle_log.json`` (format ``battlelog/2`` or the older ``/1``, docs/battle-log.md)
for drawing: every bound comes back with its whole snapshot (``engine.log.expanded``: the file
holds bound 0's and then each bound's changes), so the maps read a /2 log as they read a /1.

Only what the maps need is checked, and every problem is one line naming the file: a log from a
newer engine with extra keys still draws; a truncated or hand-broken one is refused before any
output is written.

>>> import json, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "battle_log.json"
>>> _ = p.write_text(json.dumps({"format": "battlelog/2", "sides": [], "bases": [], "bounds": []}))
>>> try:
...     load_battle_log(p)
... except DataSourceError as e:
...     print(str(e).split(": ", 1)[1])
expected at least one bound in "bounds", got 0
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from engine.log import FORMAT, READABLE, expanded
from scenario_builder.errors import DataSourceError

__all__ = ["FORMAT", "load_battle_log"]


def _need(cond: bool, path: Path, problem: str) -> None:
    if not cond:
        raise DataSourceError(path, problem)


def load_battle_log(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check a battle log; returns the parsed JSON with every bound's whole snapshot."""
    path = Path(path)
    _need(path.is_file(), path, "missing (expected the battle_log.json of `scenario-builder run`)")
    try:
        log = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataSourceError(path, f"not valid JSON ({exc})") from None
    _need(isinstance(log, dict), path, f"expected a JSON object, got {type(log).__name__}")
    fmt = log.get("format")
    _need(fmt in READABLE, path, f"expected format {FORMAT!r} (or {READABLE[0]!r}), got {fmt!r}")
    for key in ("sides", "bases", "bounds"):
        _need(
            isinstance(log.get(key), list),
            path,
            f"expected a list in {key!r}, got {type(log.get(key)).__name__}",
        )
    _need(len(log["bounds"]) > 0, path, 'expected at least one bound in "bounds", got 0')
    side_ids = set()
    for i, side in enumerate(log["sides"]):
        _need(
            isinstance(side, dict) and "id" in side,
            path,
            f"sides[{i}]: expected an object with an 'id'",
        )
        side_ids.add(side["id"])
    base_ids = set()
    for i, base in enumerate(log["bases"]):
        _need(
            isinstance(base, dict) and "id" in base and "side" in base,
            path,
            f"bases[{i}]: expected an object with 'id' and 'side'",
        )
        _need(
            base["side"] in side_ids,
            path,
            f"bases[{i}] ({base['id']}): expected a side in {sorted(side_ids)}, got "
            f"{base['side']!r}",
        )
        base_ids.add(base["id"])
    for i, bound in enumerate(log["bounds"]):
        _need(isinstance(bound, dict), path, f"bounds[{i}]: expected an object")
        # bound 0 (every bound of a /1 log) holds the whole snapshot, a later bound of a /2
        # log what changed: either way the bases it gives are checked as they stand in the file
        key = "changes" if i > 0 and "changes" in bound else "snapshot"
        part = bound.get(key)
        # a bound's changes may leave the bases out (none moved); a snapshot holds them all
        bases = (
            part.get("bases", {} if key == "changes" else None) if isinstance(part, dict) else None
        )
        _need(
            isinstance(bases, dict),
            path,
            f"bounds[{i}]: expected a snapshot with a 'bases' object"
            if key == "snapshot"
            else f"bounds[{i}]: expected changes as an object, with 'bases' an object if given",
        )
        assert isinstance(part, dict) and isinstance(bases, dict)
        for bid, b in bases.items():
            _need(bid in base_ids, path, f"bounds[{i}].{key}.bases: unknown base {bid!r}")
            ok = isinstance(b, dict) and all(
                isinstance(b.get(k), (int, float)) and not isinstance(b.get(k), bool)
                for k in ("x", "y")
            )
            _need(
                ok,
                path,
                f"bounds[{i}].{key}.bases[{bid!r}]: expected numbers x and y, got {b!r}"[:200],
            )
        if key == "changes":
            removed = part.get("removed") or {}
            gone = removed.get("bases", []) if isinstance(removed, dict) else None
            _need(
                isinstance(gone, list) and all(g in base_ids for g in gone),
                path,
                f"bounds[{i}].changes.removed.bases: expected a list of known base ids",
            )
        _need(
            isinstance(bound.get("events", []), list),
            path,
            f"bounds[{i}]: expected a list of events",
        )
    return expanded(log)
