"""Reading a ``battle_log.json`` (format ``battlelog/1``, docs/architecture.md) for drawing.

Only what the maps need is checked, and every problem is one line naming the file: a log from a
newer engine with extra keys still draws; a truncated or hand-broken one is refused before any
output is written.

>>> import json, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "battle_log.json"
>>> _ = p.write_text(json.dumps({"format": "battlelog/1", "sides": [], "bases": [], "bounds": []}))
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

from scenario_builder.errors import DataSourceError

FORMAT = "battlelog/1"


def _need(cond: bool, path: Path, problem: str) -> None:
    if not cond:
        raise DataSourceError(path, problem)


def load_battle_log(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check a battle log; returns the parsed JSON."""
    path = Path(path)
    _need(path.is_file(), path, "missing (expected the battle_log.json of `scenario-builder run`)")
    try:
        log = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataSourceError(path, f"not valid JSON ({exc})") from None
    _need(isinstance(log, dict), path, f"expected a JSON object, got {type(log).__name__}")
    fmt = log.get("format")
    _need(fmt == FORMAT, path, f"expected format {FORMAT!r}, got {fmt!r}")
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
        snap = bound.get("snapshot")
        _need(
            isinstance(snap, dict) and isinstance(snap.get("bases"), dict),
            path,
            f"bounds[{i}]: expected a snapshot with a 'bases' object",
        )
        for bid, b in snap["bases"].items():
            _need(bid in base_ids, path, f"bounds[{i}].snapshot.bases: unknown base {bid!r}")
            ok = isinstance(b, dict) and all(
                isinstance(b.get(k), (int, float)) and not isinstance(b.get(k), bool)
                for k in ("x", "y")
            )
            _need(
                ok,
                path,
                f"bounds[{i}].snapshot.bases[{bid!r}]: expected numbers x and y, got {b!r}"[:200],
            )
        _need(
            isinstance(bound.get("events", []), list),
            path,
            f"bounds[{i}]: expected a list of events",
        )
    return log
