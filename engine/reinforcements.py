"""Timed reinforcements: formations off the table until their bound, then
placed at a map edge or a point.

A side's plan may give a formation ``arrives: {bound, edge, point}``
(``engine.scenario.Arrival``). The formation is deployed as written (so its ground and its
overlaps are checked at load time like any other), then taken off the table before bound 1: it
is in no ``state.formations``, so nothing sees, shoots, orders or counts it on the field. As
bound ``bound`` begins (before the ruleset's start of bound, so it takes part in the whole
bound) it is placed:

- at ``edge``: just inside that edge of the table, facing into the table, at the place on the
  edge nearest ``point`` (or its deployed position);
- at ``point`` alone: centred there, facing as deployed.

If its footprint there would be off the map, on impractical ground (7.1) or on other bases, the
place is slid along the edge (or across its front at a point) a frontage at a time, up to
:data:`SLIDES` each way; if no place is free it waits for the next bound (``delayed`` in the
``arrived`` event). It arrives with the orders it was given before it set out, its scenario
``order`` and ``target`` (the bound-1 briefing, 9.1): no messenger has to find it. Once its army
has broken (``victory.rout_fraction``; the winner's pursuit may run on) it does not come on:
the battle is decided, and its generals give no more orders.

Reading (docs/rules-interpretations.md, "Reinforcements"): 2mm Earth v0.9 has no rule for
troops entering during a battle; they are deployed as in 3.1 at the place they enter, and a
side's strength for its break point (``victory.rout_fraction``) is the whole army's, off-table
formations included, as the army's general counts on them.

>>> SLIDES
6
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.geometry import obb_array, overlaps, right
from engine.log import Arrived
from engine.movement import footprint_classes
from engine.state import BattleState, Formation

if TYPE_CHECKING:
    from engine.context import BoundContext
    from engine.scenario import Scenario
    from engine.seam import Ruleset
    from engine.terrain import Ground

__all__ = ["SLIDES", "Arrivals", "arrivals_for"]

#: how many frontages a blocked entry slides each way before the formation waits a bound
SLIDES = 6
#: the gap left between the table edge and the rear of an entering formation (m)
EDGE_GAP_M = 1.0
#: how much further in (m) an entry at an edge is tried when its footprint is off the map
_INWARD_STEPS_M = (0.0, 1.0, 2.0, 4.0, 8.0)
#: facing into the table from each edge (degrees, 0 = north)
_INWARD = {"north": 180.0, "south": 0.0, "east": 270.0, "west": 90.0}


@dataclass(slots=True)
class _Waiting:
    formation: Formation
    bound: int
    edge: str | None
    point: tuple[float, float]  # where along the edge (or the entry point)
    order: str
    target_point: tuple[float, float] | None
    target_formation: str | None


class Arrivals:
    """The bound-start hook that brings reinforcements on (see the module docstring)."""

    #: run before the ruleset's start of bound, so the newcomer's bound notes are set there
    before_start = True

    def __init__(self, waiting: dict[str, _Waiting], ground: Ground, impractical: int | None):
        self.waiting = waiting
        self.ground = ground
        self.impractical = impractical

    def off_table(self) -> list[str]:
        """Formations not yet arrived."""
        return list(self.waiting)

    def schedule(self, bounds_xy: tuple[float, float, float, float]) -> list[dict[str, Any]]:
        """Who arrives when and where, for the log header (the deployment preview marks them
        there): formation, side, bound, edge (None at a point) and ``at``, the entry point (on
        the edge itself for an edge entry; the slide a blocked entry may need is not known
        before the bound)."""
        minx, miny, maxx, maxy = bounds_xy
        out = []
        for fid, w in self.waiting.items():
            px, py = w.point
            at = {
                None: (px, py),
                "north": (px, maxy),
                "south": (px, miny),
                "east": (maxx, py),
                "west": (minx, py),
            }[w.edge]
            out.append(
                {
                    "formation": fid,
                    "side": w.formation.side,
                    "bound": w.bound,
                    "edge": w.edge,
                    "at": [at[0], at[1]],
                }
            )
        return out

    def __call__(self, ctx: BoundContext) -> None:
        state: BattleState = ctx.state
        n = state.bound
        for fid in list(self.waiting):
            w = self.waiting[fid]
            if n < w.bound:
                continue
            broken = ctx.aftermath
            if broken is not None and w.formation.side in broken:
                continue  # the army has broken (engine.battle): it never comes on
            pose = self._entry(state, w)
            if pose is None:
                continue  # no free place: it tries again next bound
            f = w.formation
            f.set_pose(*pose)
            f.order = w.order
            f.target_point = w.target_point
            f.target_formation = w.target_formation
            state.formations[fid] = f
            state.version += 1
            del self.waiting[fid]
            ctx.emit(Arrived("orders", fid, w.edge or "point", (f.cx, f.cy), f.facing, n - w.bound))

    # -- where it enters --------------------------------------------------------------------
    def _entry(self, state: BattleState, w: _Waiting) -> tuple[float, float, float] | None:
        f = w.formation
        minx, miny, maxx, maxy = state.bounds_xy
        px, py = w.point
        if w.edge is not None:
            facing = _INWARD[w.edge]
            f.set_pose(px, py, facing)
            o = f.obb()
            hw, hd = o.hw, o.hd
            if w.edge in ("north", "south"):
                y = maxy - hd - EDGE_GAP_M if w.edge == "north" else miny + hd + EDGE_GAP_M
                x = min(max(px, minx + hw + EDGE_GAP_M), maxx - hw - EDGE_GAP_M)
                base, step = (x, y), (2.0 * hw, 0.0)
            else:
                x = maxx - hd - EDGE_GAP_M if w.edge == "east" else minx + hd + EDGE_GAP_M
                y = min(max(py, miny + hw + EDGE_GAP_M), maxy - hw - EDGE_GAP_M)
                base, step = (x, y), (0.0, 2.0 * hw)
        else:
            facing = f.facing
            f.set_pose(px, py, facing)
            hw = f.obb().hw
            rx, ry = right(facing)
            base, step = (px, py), (2.0 * hw * rx, 2.0 * hw * ry)
        # from an edge, a little further in where the footprint's sample points (7.1) reach
        # past the rectangle (a ruleset's small bases: medieval-d10's figures) off the map
        inward = _INWARD_STEPS_M if w.edge is not None else (0.0,)
        fx, fy = math.sin(math.radians(facing)), math.cos(math.radians(facing))
        for k in _slides():
            for d in inward:
                pose = (base[0] + k * step[0] + d * fx, base[1] + k * step[1] + d * fy, facing)
                if self._free(state, f, pose):
                    return pose
        return None

    def _free(self, state: BattleState, f: Formation, pose: tuple[float, float, float]) -> bool:
        f.set_pose(*pose)
        xs = np.array([b.x for b in f.bases])
        ys = np.array([b.y for b in f.bases])
        if not np.atleast_1d(self.ground.contains(xs, ys)).all():
            return False
        if self.impractical is not None:
            classes, off = footprint_classes(self.ground, f, "move")
            if off or self.impractical in classes:
                return False  # 7.1: no troops stand on impractical ground
        others = [b for g in state.active() for b in g.alive_bases]
        if not others:
            return True
        arr = obb_array([b.obb() for b in others])
        return not any(bool(overlaps(b.obb(), arr, tol=0.5).any()) for b in f.bases)


def _slides() -> list[int]:
    out = [0]
    for k in range(1, SLIDES + 1):
        out += [k, -k]
    return out


def arrivals_for(
    scenario: Scenario, state: BattleState, ground: Ground, ruleset: Ruleset
) -> Arrivals | None:
    """Take every formation with a timed arrival off the table; the hook that brings them on
    (None when no plan has one)."""
    waiting: dict[str, _Waiting] = {}
    for side in scenario.sides:
        plan = scenario.plan_of(side.id)
        if plan is None:
            continue
        for fp in plan.formations:
            if fp.arrives is None or fp.formation not in state.formations:
                continue
            a = fp.arrives
            spec = scenario.formation(fp.formation)
            f = state.formations.pop(fp.formation)
            point = plan.place(a.point, ground.to_xy) if a.point is not None else (f.cx, f.cy)
            target = spec.target.resolve(ground.to_xy) if spec.target is not None else None
            waiting[f.id] = _Waiting(
                f, a.bound, a.edge, point, str(spec.order), target, spec.target_formation
            )
    if not waiting:
        return None
    names = ruleset.terrain.class_names().get("move", [])
    code = next((i for i, n in enumerate(names) if n in ("impractical", "impassable")), None)
    state.version += 1
    return Arrivals(waiting, ground, code)
