"""Friendly jams: who was stopped by a friend, stall detection, re-planning.

A move that meets a friendly formation stops short of it (6.1: bases never pass through one
another; engine.movement reports ``halted="blocked"`` and the friend). Without more, formations
given the same point converge and stop each other for the rest of the battle: each is blocked
by a friend that is blocked by it. This module

- records, bound by bound, which formations were *stuck* (moved less than 6.1's minimum move
  of 25 m because a friend was in the way) and by whom (:class:`JamWatch`);
- finds *stalls*: the same formations stuck by each other (a cycle of "stuck behind") for
  :data:`STALL_BOUNDS` bounds running; ``engine.testing`` fails a battle with one and
  ``montecarlo`` counts the replays that had one;
- re-plans a stuck formation's move (:func:`unjam`), the way a commander on the ground would:

  * formations stuck by *each other* (a cycle): the one farthest from its goal gives way, the
    others keep their plans: an advance to a point **side-steps into a lane** (below), a charge
    or an attack (aimed anew at its enemy as it moves) **steps back** a bound, away from the
    friend, facing kept;
  * stuck behind a friend that is not stuck by it: **wait a bound** when the friend moved on
    last bound (a queue clears by itself); a move aimed at an enemy **side-steps** a bound into
    the lane beside the friend, then aims anew; **hold** when the friend already stands on the point
    both were sent to (the place is held; crowding onto it achieves nothing); otherwise
    **side-step into a lane**;
  * a lane: the goal moved sideways, away from the friend, by the two formations'
    half-frontages and a gap (:data:`LANE_GAP_M`); the formation keeps it (the same sideways
    offset to every later goal) until it is given a new order.

The rulebook says nothing about friendly formations blocking each other (6.1 only forbids
moving through): this reading is in docs/rules-interpretations.md ("Friendly jams").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from engine.geometry import bearing, right

__all__ = ["LANE_GAP_M", "STALL_BOUNDS", "JamWatch", "Stall", "stuck_cycles", "unjam"]

#: 6.1 the minimum move: a formation that moved less than this was stopped.
MIN_MOVE_M = 25.0
#: bounds running the same formations must be stuck by each other to count as a stall
STALL_BOUNDS = 3
#: room left between two formations side by side in lanes (half a base frontage)
LANE_GAP_M = 20.0
#: a friend whose rectangle comes this close to the goal point already holds it
HELD_M = 25.0


@dataclass(frozen=True)
class Stall:
    """Formations stuck by each other (a cycle) from ``first_bound`` for ``bounds`` bounds."""

    formations: tuple[str, ...]
    first_bound: int
    bounds: int

    def __str__(self) -> str:
        return (
            f"{' and '.join(self.formations)} blocked by each other from bound "
            f"{self.first_bound} for {self.bounds} bounds"
        )


def stuck_cycles(stuck_by: dict[str, str]) -> list[tuple[str, ...]]:
    """The cycles of the "stuck behind" graph (each formation has at most one blocker), each
    as a sorted tuple of formation ids, sorted.

    >>> stuck_cycles({"a": "b", "b": "a", "c": "a", "d": "e"})
    [('a', 'b')]
    >>> stuck_cycles({"a": "b", "b": "c", "c": "a"})
    [('a', 'b', 'c')]
    """
    cycles: set[tuple[str, ...]] = set()
    for start in stuck_by:
        path: list[str] = []
        node: str | None = start
        while node is not None and node not in path:
            path.append(node)
            node = stuck_by.get(node)
        if node is not None:  # came back to a node of this path: the loop from it
            cycles.add(tuple(sorted(path[path.index(node) :])))
    return sorted(cycles)


@dataclass
class JamWatch:
    """Per battle: who was stuck behind whom in the last bound, and the stalls so far."""

    stuck_by: dict[str, str] = field(default_factory=dict)  # last bound: fid -> friend
    cycles: list[tuple[str, ...]] = field(default_factory=list)  # last bound: stuck cycles
    moved: set[str] = field(default_factory=set)  # last bound: moved 25 m or more
    runs: dict[tuple[str, ...], tuple[int, int]] = field(default_factory=dict)  # first, count
    stalls: list[Stall] = field(default_factory=list)
    lanes: dict[str, tuple[float, float, str]] = field(default_factory=dict)  # fid -> dx, dy, order

    def record(self, bound: int, stuck_by: dict[str, str], moved: set[str]) -> None:
        """The end of a bound's moves: ``stuck_by`` maps each formation stopped by a friend
        (moved < 25 m) to that friend; ``moved``: those that moved 25 m or more."""
        self.stuck_by = dict(stuck_by)
        self.moved = set(moved)
        self.cycles = stuck_cycles(stuck_by)
        runs: dict[tuple[str, ...], tuple[int, int]] = {}
        for cyc in self.cycles:
            first, n = self.runs.get(cyc, (bound, 0))
            runs[cyc] = (first, n + 1)
            if n + 1 == STALL_BOUNDS:
                self.stalls.append(Stall(cyc, first, n + 1))
        self.runs = runs

    @property
    def stalled(self) -> Stall | None:
        """The first stall of the battle (None if there was none)."""
        return self.stalls[0] if self.stalls else None


def note_move(stuck: dict[str, str], moved: set[str], state: Any, fid: str, res: Any) -> None:
    """After one move: remember ``fid`` as stuck if a friend stopped it short of 25 m, or as
    moved if it went 25 m or more."""
    if res.distance_m >= MIN_MOVE_M:
        moved.add(fid)
        return
    if res.halted != "blocked" or res.contact_with is None:
        return
    g = state.formations.get(res.contact_with)
    if g is not None and g.side == state.formations[fid].side:
        stuck[fid] = g.id


def _order_key(f: Any) -> str:
    return f"{f.order}|{f.target_point}|{f.target_formation}"


def _to_goal(f: Any, plan: Any) -> float:
    if plan is None or plan.kind == "none":
        return -1.0  # not moving: never the one to yield
    if plan.goal is None:
        return math.inf
    return math.dist((f.cx, f.cy), plan.goal)


def unjam(watch: JamWatch, state: Any, f: Any, plan: Any, plans: dict[str, Any]) -> Any:
    """The move plan of ``f`` re-planned if a friend stopped it last bound (see the module
    docstring); ``plans``: every formation's plan this bound before re-planning. Returns
    ``plan`` itself when nothing changes, else a new plan."""
    lane = watch.lanes.get(f.id)
    if lane is not None and lane[2] != _order_key(f):
        del watch.lanes[f.id]  # a new order: the lane was for the old one
        lane = None
    if plan.kind == "none":
        return plan
    gid = watch.stuck_by.get(f.id)
    g = state.formations.get(gid) if gid is not None else None
    if g is not None and not g.removed:
        cycle = next((c for c in watch.cycles if f.id in c), None)
        if cycle is not None:
            # stuck by each other: the one farthest from its goal steps back out of the way
            # for a bound (the others keep their plans), so the jam opens
            forms = [state.formations[x] for x in cycle]
            yielder = max(forms, key=lambda h: (_to_goal(h, plans.get(h.id)), h.id))
            if yielder is not f or _to_goal(f, plan) < 0:
                return plan
            if plan.kind != "advance" or plan.goal is None or plan.target is not None:
                return _step_away(f, g)  # a move aimed at an enemy aims anew: make room
            if lane is None:
                return _take_lane(watch, f, g, plan)
        elif g.id in watch.moved:
            return plan  # wait a bound: the friend in front is moving on
        elif plan.target is not None and g.id != plan.target:
            # aimed at an enemy (a charge, an attack, an advance on it) behind a friend that
            # stands: go round it, a bound's side-step, then aim anew (its goal is the enemy's
            # place, which a friend in combat there "holds" without taking it)
            return _side_step(f, g, plan)
        elif plan.kind == "advance" and plan.goal is not None:
            if _holds_point(g, plan.goal):
                return replace(plan, kind="none")  # the friend holds the point: stay
            if lane is None:
                return _take_lane(watch, f, g, plan)
    if lane is None or plan.kind != "advance" or plan.goal is None:
        return plan  # charges and attacks aim at an enemy anew when they move
    gx, gy = plan.goal
    goal = (gx + lane[0], gy + lane[1])
    b = bearing(f.cx, f.cy, *goal)
    return replace(plan, goal=goal, bearing=b, facing=b if plan.facing is not None else None)


def _take_lane(watch: JamWatch, f: Any, g: Any, plan: Any) -> Any:
    """Choose the lane and side-step into it this bound (straight sideways, facing kept: a
    move toward the shifted goal would clip the friend it is stuck against)."""
    lane = _lane(f, g, plan.bearing)
    watch.lanes[f.id] = lane
    goal = (f.cx + lane[0], f.cy + lane[1])
    return replace(plan, goal=goal, bearing=bearing(f.cx, f.cy, *goal), facing=None)


def _side_step(f: Any, g: Any, plan: Any) -> Any:
    """A bound's move straight sideways, away from the friend ``g`` in the way, into the lane
    beside it (:func:`_lane`), facing kept; not aimed at the enemy (the move phase would aim it
    back into the friend), so the next bound's plan aims from the new place."""
    from engine.movement import MovePlan

    dx, dy, _key = _lane(f, g, plan.bearing)
    goal = (f.cx + dx, f.cy + dy)
    return MovePlan(f.id, "advance", bearing(f.cx, f.cy, *goal), goal=goal, facing=None)


def _step_away(f: Any, g: Any) -> Any:
    """An advance straight away from ``g``, facing kept, as far as the allowance goes."""
    from engine.movement import MovePlan

    b = bearing(g.cx, g.cy, f.cx, f.cy)
    return MovePlan(f.id, "advance", b, goal=None, facing=None)


def _holds_point(g: Any, goal: tuple[float, float]) -> bool:
    o = g.obb()
    return math.dist((o.cx, o.cy), goal) <= math.hypot(o.hw, o.hd) + HELD_M


def _lane(f: Any, g: Any, bearing_deg: float) -> tuple[float, float, str]:
    """Sideways offset (perpendicular to the bearing) away from ``g``: half-frontages + a gap.
    A tie (g dead ahead) goes to the right, so two formations facing each other part."""
    rx, ry = right(bearing_deg)
    side = (g.cx - f.cx) * rx + (g.cy - f.cy) * ry
    sign = -1.0 if side > 0 else 1.0
    fo, go = f.obb(), g.obb()
    off = fo.hw + go.hw + LANE_GAP_M
    return (sign * rx * off, sign * ry * off, _order_key(f))
