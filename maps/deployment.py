"""Where the armies stand at bound 0, for the print: every base as its true-size rectangle and
every formation's name, from a BattleLog (``scenario-builder run`` output, or the demo's log).

The rectangles are the engine's bases: width ``w`` along the front, depth ``d``, facing degrees
clockwise from grid north (the same corners as ``playback.js``).

>>> r = base_rectangle(0.0, 0.0, 90.0, 40.0, 20.0)
>>> [tuple(round(v, 6) for v in p) for p in r.exterior.coords][:4]
[(10.0, 20.0), (10.0, -20.0), (-10.0, -20.0), (-10.0, 20.0)]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from engine.log import expanded


@dataclass(frozen=True)
class Deployed:
    """One formation at bound 0: its name, side colour, bases and front edges."""

    formation: str
    name: str
    side: str
    colour: str
    bases: BaseGeometry  # union of its base rectangles (bf CRS metres)
    fronts: list[tuple[tuple[float, float], tuple[float, float]]]
    centre: tuple[float, float]


def base_rectangle(x: float, y: float, facing: float, w: float, d: float) -> shapely.Polygon:
    """A base's rectangle; the first edge is its front."""
    r = math.radians(facing)
    fx, fy, rx, ry = math.sin(r), math.cos(r), math.cos(r), -math.sin(r)
    hw, hd = w / 2, d / 2
    return shapely.Polygon(
        [
            (x + fx * hd - rx * hw, y + fy * hd - ry * hw),
            (x + fx * hd + rx * hw, y + fy * hd + ry * hw),
            (x - fx * hd + rx * hw, y - fy * hd + ry * hw),
            (x - fx * hd - rx * hw, y - fy * hd - ry * hw),
        ]
    )


def deployment(log: Mapping[str, Any], bound: int = 0) -> list[Deployed]:
    """Every formation of ``log`` as it stands in snapshot ``bound`` (living bases only)."""
    if bound > 0:  # a later bound's whole snapshot (the log holds its changes: engine.log)
        log = expanded(log)
    sides = {s["id"]: s for s in log.get("sides", [])}
    names = {f["id"]: f.get("name", f["id"]) for f in log.get("formations", []) if "id" in f}
    header = {b["id"]: b for b in log.get("bases", [])}
    bounds = log.get("bounds") or []
    if not bounds:
        return []
    snap = bounds[min(bound, len(bounds) - 1)]["snapshot"]
    per: dict[str, list[tuple[shapely.Polygon, str]]] = {}
    for bid, s in snap.get("bases", {}).items():
        if s.get("state") == "dead":
            continue
        h = header.get(bid, {})
        f = s.get("formation") or h.get("formation") or bid
        rect = base_rectangle(
            float(s["x"]),
            float(s["y"]),
            float(s.get("facing", 0.0)),
            float(h.get("w", 40.0)),
            float(h.get("d", 20.0)),
        )
        per.setdefault(f, []).append((rect, h.get("side", "")))
    out = []
    for f, items in sorted(per.items()):
        rects = [r for r, _ in items]
        side = items[0][1]
        fronts = [(r.exterior.coords[0], r.exterior.coords[1]) for r in rects]
        xy = np.array([r.centroid.coords[0] for r in rects])
        out.append(
            Deployed(
                formation=f,
                name=names.get(f, f),
                side=str(side),
                colour=str(sides.get(side, {}).get("colour", "#555555")),
                bases=shapely.union_all(rects),
                fronts=fronts,
                centre=(float(xy[:, 0].mean()), float(xy[:, 1].mean())),
            )
        )
    return out
