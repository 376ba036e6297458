"""Messengers (9.1-9.2): orders that travel from the General to formations out of reach.

:class:`MessengerDelivery` implements :class:`engine.orders.Delivery`:

- **Reach** (9.1 "given by the General or any other Character within a given distance"): an
  order arrives in the bound it is given when the General, or any other living character of the
  side, is within the age's distance per bound (9.2: 200 / 500 / 1000 m) of the formation,
  measured as the messenger's string: the route cost (triple through sight-blocking,
  impractical or overhead ground) from the character to the nearest point of the formation.
- Otherwise a **messenger** leaves the General (or, if he is dead, the character with the
  highest leadership) along the cheapest route of the routing graph
  (:mod:`scenario_builder.routing`), around enemy formations (their rectangles buffered by
  :data:`ENEMY_BUFFER_M`) and straight through allies. It covers the age's rate each bound,
  starting in the bound it is sent, and the formation acts on the order in the orders phase of
  the bound in which the string runs out: ``sent + ceil(cost / rate) - 1``
  (:func:`scenario_builder.routing.arrival_bound`). The reach above is that rule's first bound,
  so arrival is continuous in distance (9.2): 380 m acts at once, 603 m one bound later.
- Each bound, before moving on, a messenger whose remaining string now runs into an enemy, or
  whose formation has moved more than :data:`FOLLOW_M` from the string's end, re-plans from where
  it is (``RouteGraph.route_from``); cost and arrival bound are updated (``messenger_rerouted``).
- It is never captured (9.1). If its formation leaves the field the message is dropped.
- Orders given in the first bound are the pre-battle briefing and arrive at once, and so do
  orders the formation's plan gave it then (``engine.orders.BriefedOrder``).
- A newer order to the same formation supersedes older ones still in flight.
- :class:`~wings.WingOrder` is carried out at once by the General (4.2), or refused.

The messengers in flight are in ``snapshot()`` (the BattleLog's ``messengers``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
import shapely.ops
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from engine.geometry import corners, point_distance
from engine.log import Event, MessengerArrived, MessengerRerouted, MessengerSent, OrderRefused
from engine.orders import BriefedOrder, Order
from engine.rulesets.two_mm_earth.charts import MESSENGER_RATE_M
from engine.rulesets.two_mm_earth.wings import WingOrder, character_xy, general_of, split_into_wings
from engine.state import BattleState, Character, Formation
from scenario_builder.errors import IllegalOrderError, NoRouteError, OffMapError

if TYPE_CHECKING:
    from engine.terrain import Ground
    from scenario_builder.routing import Route, RouteGraph


__all__ = [
    "ENEMY_BUFFER_M",
    "FOLLOW_M",
    "Messenger",
    "MessengerDelivery",
    "enemy_footprints",
]

#: enemy rectangles are grown by this much so the string goes round, not along, their edge
ENEMY_BUFFER_M = 5.0
#: a formation that moved this far from the string's end makes the messenger re-plan
FOLLOW_M = 50.0


def enemy_footprints(
    state: BattleState, side: str, buffer_m: float = ENEMY_BUFFER_M
) -> list[BaseGeometry]:
    """The rectangles of the enemy formations on the field, grown by ``buffer_m`` (9.1).

    Built once per table revision (every send and reach test of a side in one orders phase
    asks for the same ones), in one vectorised shapely call."""
    memo = state.table().memo
    key = ("enemy_footprints", side, buffer_m)
    hit: tuple[BaseGeometry, ...] | None = memo.get(key)
    if hit is None:
        enemies = state.enemies_of(side)
        if not enemies:
            hit = ()
        else:
            polys = shapely.polygons(np.stack([corners(f.obb()) for f in enemies]))
            if buffer_m > 0:
                polys = shapely.buffer(polys, buffer_m, join_style="mitre")
            hit = tuple(polys.tolist())
        memo[key] = hit
    return list(hit)


def _nearest_point(f: Formation, x: float, y: float) -> tuple[float, float]:
    """The point of the formation's rectangle nearest (x, y) (the point itself if inside)."""
    poly = Polygon(corners(f.obb()))
    p = shapely.Point(x, y)
    if poly.covers(p):
        return (x, y)
    q = shapely.ops.nearest_points(poly, p)[0]
    return (float(q.x), float(q.y))


@dataclass(slots=True)
class Messenger:
    """One message in flight (9.1): the string it follows and how far along it is."""

    id: str
    side: str
    to: str
    order: Order
    by: str
    sent_bound: int
    arrival_bound: int
    route: Route
    done_path: tuple[tuple[float, float], ...] = ()  # string already run before a re-plan
    done_cost_m: float = 0.0
    travelled_m: float = 0.0  # metres of string (triple stretches counted x3) run so far
    seq: int = 0

    @property
    def cost_m(self) -> float:
        return self.done_cost_m + self.route.cost_m

    @property
    def path(self) -> list[tuple[float, float]]:
        return [*self.done_path, *self.route.path[1 if self.done_path else 0 :]]

    def position(self) -> tuple[float, float]:
        return self.route.position_at(self.travelled_m - self.done_cost_m)

    def to_dict(self) -> dict[str, Any]:
        """The BattleLog snapshot entry (docs/architecture.md)."""
        return {
            "id": self.id,
            "side": self.side,
            "to": self.to,
            "order": str(self.order),
            "route": [[x, y] for x, y in self.path],
            "travelled_m": min(self.travelled_m, self.cost_m),
            "cost_m": self.cost_m,
            "sent_bound": self.sent_bound,
            "arrival_bound": self.arrival_bound,
        }


@dataclass(slots=True)
class MessengerDelivery:
    """Orders carried by messengers at the age's rate (9.1-9.2); see the module docstring."""

    battlefield: Ground
    rate_m: float
    graph: RouteGraph | None = None
    briefing_bound: int = 1
    buffer_m: float = ENEMY_BUFFER_M
    in_flight: list[Messenger] = field(default_factory=list)
    pending: list[Order] = field(default_factory=list)
    wing_splits: dict[tuple[str, int], str] = field(default_factory=dict)
    _count: int = 0
    _latest: dict[str, int] = field(default_factory=dict)  # formation -> seq of newest order
    #: 9.1's triple classes in the ground's own vocabulary (``Ruleset.route_triple``)
    triple: Mapping[str, frozenset[str]] | None = None
    #: 9.2 a side whose age differs from the scenario's: its own rate (SideSpec.age)
    side_rates: Mapping[str, float] = field(default_factory=dict)

    def rate_for(self, side: str) -> float:
        """The distance a message of ``side`` travels in a bound (9.2)."""
        return self.side_rates.get(side, self.rate_m)

    @classmethod
    def for_scenario(cls, battlefield: Ground, scenario: Any) -> MessengerDelivery:
        """The delivery for a scenario's age (9.2); the routing graph is built on first use."""
        rates = {sd.id: MESSENGER_RATE_M[sd.age] for sd in scenario.sides if sd.age is not None}
        return cls(battlefield, MESSENGER_RATE_M[scenario.age], side_rates=rates)

    # -- the routing graph (one per battlefield, cached by identity in routing) ------------
    def prepare(self) -> None:
        """Build the routing graph now rather than for the first messenger: a Monte Carlo
        worker's preload (``scenario_builder.montecarlo.warm``), whose one bound sends none."""
        self._graph()

    def _graph(self) -> RouteGraph:
        # routing (networkx, scipy.sparse) imported on first use, not with the ruleset: a
        # battle fought without a messenger (a Monte Carlo's deployment check) never needs it
        from scenario_builder.routing import RouteGraph

        if self.graph is None:
            self.graph = RouteGraph.from_battlefield(self.battlefield, triple=self.triple)
        return self.graph

    def _route(
        self, a: tuple[float, float], b: tuple[float, float], blocked: list[BaseGeometry]
    ) -> Route:
        """Cheapest string a -> b round ``blocked``; ends inside an enemy's ground (a formation
        in contact) drop the polygons that hold them; an end off the map is pulled onto it."""
        g = self._graph()
        a, b = self._on_map(a), self._on_map(b)
        pa, pb = shapely.Point(a), shapely.Point(b)
        usable = [p for p in blocked if not (p.covers(pa) or p.covers(pb))]
        try:
            return g.route(a, b, blocked=usable)
        except NoRouteError:
            return g.route(a, b)

    def _on_map(self, p: tuple[float, float]) -> tuple[float, float]:
        minx, miny, maxx, maxy = self.battlefield.bounds
        eps = 0.51 * float(self.battlefield.res)
        return (min(max(p[0], minx + eps), maxx - eps), min(max(p[1], miny + eps), maxy - eps))

    # -- Delivery protocol ----------------------------------------------------------------
    def send(self, state: BattleState, side: str, order: Order, bound: int) -> list[Event]:
        if isinstance(order, WingOrder):
            try:
                return split_into_wings(
                    state, side, order, self.battlefield, bound, self.wing_splits
                )
            except IllegalOrderError as exc:
                return [OrderRefused("orders", side, order.formation, str(order), exc.problem)]
        f = state.formations[order.formation]
        self._count += 1
        seq = self._count
        self._latest[f.id] = seq
        if bound <= self.briefing_bound or isinstance(order, BriefedOrder):
            self.pending.append(order)  # the briefing, and what the plan told it then
            return []
        giver, gxy = self._giver(state, side)
        if giver is None or gxy is None:
            why = "no living character to give or send the order (9.1)"
            return [OrderRefused("orders", side, f.id, str(order), why)]
        if self._within_reach(state, side, f):
            self.pending.append(order)
            return []
        blocked = enemy_footprints(state, side, self.buffer_m)
        target = _nearest_point(f, *gxy)
        try:
            route = self._route(gxy, target, blocked)
        except (NoRouteError, OffMapError):
            route = _straight(gxy, target, self._graph())
        m = Messenger(
            f"m{seq}",
            side,
            f.id,
            order,
            giver.id,
            bound,
            _arrival(route.cost_m, self.rate_for(side), bound),
            route,
            seq=seq,
        )
        # 9.1: it covers the distance of a bound in the bound sent
        m.travelled_m = self.rate_for(side)
        self.in_flight.append(m)
        return [
            MessengerSent(
                "orders",
                side,
                m.id,
                f.id,
                str(order),
                m.arrival_bound,
                bound,
                giver.id,
                m.cost_m,
                tuple(tuple(p) for p in m.path),
            )
        ]

    def arrivals(self, state: BattleState, bound: int) -> tuple[list[Order], list[Event]]:
        out = [o for o in self.pending if self._latest.get(o.formation) is not None]
        self.pending = []
        events: list[Event] = []
        keep: list[Messenger] = []
        blocked_by_side: dict[str, list[BaseGeometry]] = {}
        for m in self.in_flight:
            f = state.formations.get(m.to)
            if f is None or f.removed or self._latest.get(m.to, 0) > m.seq:
                continue  # its formation left the field, or a newer order overtook it
            if m.sent_bound >= bound:
                keep.append(m)
                continue
            # re-plan from where the marker stands, then cover this bound's string: the order
            # is acted on in the bound the string runs out (9.2, continuous in distance)
            if m.side not in blocked_by_side:
                blocked_by_side[m.side] = enemy_footprints(state, m.side, self.buffer_m)
            ev = self._replan(m, f, blocked_by_side[m.side])
            if ev is not None:
                events.append(ev)
            m.travelled_m += self.rate_for(m.side)
            if bound >= m.arrival_bound:
                m.travelled_m = min(m.travelled_m, m.cost_m)
                events.append(
                    MessengerArrived(
                        "orders",
                        m.side,
                        m.id,
                        m.to,
                        str(m.order),
                        m.arrival_bound,
                        m.cost_m,
                        tuple(tuple(p) for p in m.path),
                    )
                )
                out.append(m.order)
                continue
            keep.append(m)
        self.in_flight = keep
        return out, events

    def snapshot(self) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.in_flight]

    # -- helpers --------------------------------------------------------------------------
    def _giver(self, state: BattleState, side: str) -> tuple[Character | None, Any]:
        """The General, or if he is dead the living character with the best leadership."""
        gen = general_of(state, side)
        cands = [gen] if gen is not None else []
        cands += sorted(
            (c for c in state.characters.values() if c.side == side and c.alive and c is not gen),
            key=lambda c: (-c.leadership, c.id),
        )
        for c in cands:
            xy = character_xy(state, c)
            if xy is not None:
                return c, xy
        return None, None

    def _within_reach(self, state: BattleState, side: str, f: Formation) -> bool:
        """9.1: some living character of the side is within one bound's string of ``f``."""
        blocked: list[BaseGeometry] | None = None
        o = f.obb()
        for c in sorted(state.characters.values(), key=lambda c: c.id):
            if c.side != side or not c.alive:
                continue
            xy = character_xy(state, c)
            if xy is None:
                continue
            if point_distance(o, *xy) > self.rate_for(side):
                continue  # the string is never shorter than the straight line
            if point_distance(o, *xy) == 0.0:
                return True
            if blocked is None:
                blocked = enemy_footprints(state, side, self.buffer_m)
            try:
                r = self._route(xy, _nearest_point(f, *xy), blocked)
            except (NoRouteError, OffMapError):
                continue
            if r.cost_m <= self.rate_for(side):
                return True
        return False

    def reach_route(self, state: BattleState, side: str, fid: str) -> Route:
        """The string from the order giver to formation ``fid`` now (for tools and tests)."""
        _, gxy = self._giver(state, side)
        if gxy is None:
            raise IllegalOrderError(None, f"{side} has no living character to give orders")
        f = state.formations[fid]
        return self._route(
            gxy, _nearest_point(f, *gxy), enemy_footprints(state, side, self.buffer_m)
        )

    def _replan(self, m: Messenger, f: Formation, blocked: list[BaseGeometry]) -> Event | None:
        here = m.position()
        end = m.route.path[-1]
        reason = None
        if point_distance(f.obb(), *end) > FOLLOW_M:
            reason = f"{f.id} moved"
        elif m.route.blocked_by(blocked, m.travelled_m - m.done_cost_m):
            reason = "enemy across the route"
        if reason is None:
            return None
        target = _nearest_point(f, *here)
        try:
            new = self._route(here, target, blocked)
        except (NoRouteError, OffMapError):
            new = _straight(here, target, self._graph())
        done = m.route.path[: 1 + _stretches_done(m.route, m.travelled_m - m.done_cost_m)]
        m.done_path = (*(m.done_path or ()), *(done if not m.done_path else done[1:]), here)
        m.done_cost_m = m.travelled_m
        m.route = new
        m.arrival_bound = _arrival(m.cost_m, self.rate_for(m.side), m.sent_bound)
        return MessengerRerouted(
            "orders",
            m.side,
            m.id,
            m.to,
            reason,
            m.arrival_bound,
            m.cost_m,
            tuple(tuple(p) for p in m.path),
        )


def _stretches_done(route: Route, cost: float) -> int:
    """How many whole stretches of ``route`` lie behind ``cost`` metres of string."""
    spent, n = 0.0, 0
    for c in route.stretch_costs:
        if spent + c > cost:
            break
        spent += c
        n += 1
    return n


def _arrival(cost_m: float, rate_m: float, sent_bound: int) -> int:
    from scenario_builder.routing import arrival_bound

    return arrival_bound(cost_m, rate_m, sent_bound)


def _straight(a: tuple[float, float], b: tuple[float, float], g: RouteGraph) -> Route:
    """Fallback string when the graph finds no way: the straight line, costed on the grid."""
    from scenario_builder.routing import Route

    length = math.hypot(b[0] - a[0], b[1] - a[1])
    ua, va = g.grid.to_grid(*a)
    ub, vb = g.grid.to_grid(*b)
    cost_u, triple_u, _ = g.grid.stretch(ua, va, ub, vb)
    cost = cost_u * g.grid.res if math.isfinite(cost_u) else length
    ok = length > 0 and math.isfinite(cost_u)
    share = min(1.0, triple_u * g.grid.res / length) if ok else 0.0
    return Route(cost, length, share, (a, b), (cost,))
