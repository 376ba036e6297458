"""A messenger's route (9.1) and when it arrives (9.2).

>>> r = Route(cost_m=1200.0, length_m=800.0, triple_share=0.5,
...           path=((0.0, 0.0), (400.0, 0.0), (800.0, 0.0)), stretch_costs=(400.0, 800.0))
>>> arrival_bound(r.cost_m, 500.0, sent_bound=2)     # ancients: 500 m a bound
4
>>> r.position_at(600.0)                             # 600 m of cost: half-way through the wood
(500.0, 0.0)
>>> r.to_geojson()["geometry"]["coordinates"][-1]
[800.0, 0.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from shapely.geometry import LineString
from shapely.geometry.base import BaseGeometry

Point = tuple[float, float]


def arrival_bound(cost_m: float, rate_m: float, sent_bound: int) -> int:
    """The bound in which a message sent in ``sent_bound`` arrives and is acted on (9.2).

    It travels ``rate_m`` metres of string a bound (200 prehistoric, 500 ancients, 1000 modern;
    triple stretches already counted in ``cost_m``), starting in the bound it is sent, and the
    formation acts on it in the bound the string runs out: ``sent + ceil(cost / rate) - 1`` (never
    before ``sent``). So arrival is continuous in distance, one bound per ``rate_m`` of string:
    up to 500 m at 500 m a bound acts at once (the 9.1 "reach" of a character), 501-1000 m
    the next bound, 1001-1500 m the one after (docs/rules-interpretations.md, 9.2).

    >>> arrival_bound(500.0, 500.0, 3), arrival_bound(501.0, 500.0, 3), arrival_bound(0.0, 200, 3)
    (3, 4, 3)
    """
    if rate_m <= 0:
        raise ValueError(f"expected a positive messenger rate, got {rate_m}")
    if cost_m < 0:
        raise ValueError(f"expected a non-negative cost, got {cost_m}")
    # Round off float noise first so a 1000.0000000001 m string does not lose a bound.
    return int(sent_bound) + max(0, math.ceil(round(cost_m / rate_m, 9)) - 1)


@dataclass(frozen=True)
class Route:
    """The string a messenger follows: ``path`` in map metres, its ``cost_m`` with the triple
    stretches counted three times, its plain ``length_m``, and the share of the length at triple
    cost. ``stretch_costs`` holds the cost of each straight stretch (one fewer than points)."""

    cost_m: float
    length_m: float
    triple_share: float
    path: tuple[Point, ...]
    stretch_costs: tuple[float, ...]

    @property
    def n_vertices(self) -> int:
        return len(self.path)

    @property
    def line(self) -> LineString:
        return LineString(self.path)

    def position_at(self, cost_m: float) -> Point:
        """Where the messenger is after ``cost_m`` metres of string (clamped to the ends).

        Inside a stretch the cost is spread evenly over its length (a stretch that is partly in a
        wood is placed by the share of cost, which is what the messenger has "paid" so far).
        """
        if cost_m <= 0 or len(self.path) == 1:
            return self.path[0]
        left = cost_m
        for (a, b), c in zip(
            zip(self.path, self.path[1:], strict=False), self.stretch_costs, strict=True
        ):
            if left <= c and c > 0:
                t = left / c
                return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            left -= c
        return self.path[-1]

    def blocked_by(self, blocked: list[BaseGeometry], from_cost_m: float = 0.0) -> bool:
        """Whether the rest of the route (after ``from_cost_m``) runs into any ``blocked`` ground.

        The engine asks this each bound; if true it re-plans with ``RouteGraph.route_from``.
        """
        if not blocked:
            return False
        rest = self.remaining(from_cost_m)
        geom = LineString(rest) if len(rest) > 1 else None
        if geom is None:
            return False
        return any(geom.intersects(p) for p in blocked)

    def remaining(self, from_cost_m: float) -> tuple[Point, ...]:
        """The points still ahead after ``from_cost_m`` metres of string, starting where it is."""
        here = self.position_at(from_cost_m)
        spent = 0.0
        for i, c in enumerate(self.stretch_costs):
            spent += c
            if spent > from_cost_m:
                return (here, *self.path[i + 1 :])
        return (self.path[-1],)

    def to_geojson(self, properties: dict[str, Any] | None = None) -> dict[str, Any]:
        """A GeoJSON Feature (LineString, coordinates in the battlefield CRS)."""
        props = {
            "cost_m": round(self.cost_m, 2),
            "length_m": round(self.length_m, 2),
            "triple_share": round(self.triple_share, 4),
            "n_vertices": self.n_vertices,
        }
        props.update(properties or {})
        coords = [[round(x, 2), round(y, 2)] for x, y in self.path]
        if len(coords) == 1:
            coords = coords * 2
        return {
            "type": "Feature",
            "geometry": {"type": "LineString", "coordinates": coords},
            "properties": props,
        }
