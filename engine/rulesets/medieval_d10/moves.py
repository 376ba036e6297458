"""medieval-d10 movement on the ground: a unit's move swept in steps over the battlefield,
each step paying the TERRAIN CHART's fraction of its MOVEMENT CHART march rate; the way around
ground the chart forbids (:func:`advance_to`), the MOVEMENT CHART's "March on a Road or Track"
bonus (:func:`road_march`) and the move away from an enemy (rout, fall back, evade:
:func:`move_away`). The phases' moves (GAME TURN SEQUENCE phases 3, 8-9, 11-12) are made
with these.
"""

from __future__ import annotations

import math
from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING

import numpy as np

from engine.pathing import CostAt, first_blocked, way_around
from engine.rulesets.medieval_d10.state import Mode, UnitState
from engine.rulesets.medieval_d10.terrain import (
    Terrain,
    disorders,
    march_fraction,
    slope_class,
    slope_class_of_code,
    slope_classes,
)
from engine.rulesets.medieval_d10.units import Arm

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle

#: step of the movement sweep along a path (ground metres)
STEP_M = 5.0
#: the least widening of the window searched for a way around forbidden ground (metres): a
#: marsh or a lake a few hundred metres across is gone round, not only skirted at its edge
DETOUR_MARGIN_M = 300.0


def move_toward(
    game: MedievalBattle,
    u: UnitState,
    tx: float,
    ty: float,
    allowance_m: float,
    *,
    stop_short_of: UnitState | None = None,
    face: bool = True,
    backwards: bool = False,
) -> float:
    """Sweep ``u`` toward (tx, ty) in steps, paying the TERRAIN CHART's fraction of its
    march rate for each step's ground; stops at impassable ground, at the map edge, on
    reaching the point, or in contact with ``stop_short_of``. Returns metres moved."""
    if math.hypot(tx - u.x, ty - u.y) < 1e-6 or allowance_m <= 0:
        return 0.0
    game.allowance_m[u.id] = game.allowance_m.get(u.id, 0.0) + allowance_m
    pose = (u.x, u.y, u.facing)
    moved, _, _, pose = _sweep(game, u, pose, tx, ty, allowance_m, stop_short_of, face, backwards)
    u.place(*pose)  # once, where the move ends
    _moved(game, u, moved)
    return moved


def move_along(
    game: MedievalBattle, u: UnitState, way: list[tuple[float, float]], allowance_m: float
) -> float:
    """Sweep ``u`` along the points of ``way`` in turn, as :func:`move_toward` sweeps one
    leg, on one allowance: each leg spends what the chart charges for its ground and the
    next starts with what is left. Returns metres moved."""
    if not way or allowance_m <= 0:
        return 0.0
    game.allowance_m[u.id] = game.allowance_m.get(u.id, 0.0) + allowance_m
    moved, budget = 0.0, allowance_m
    pose = (u.x, u.y, u.facing)
    for tx, ty in way:
        leg, spent, done, pose = _sweep(game, u, pose, tx, ty, budget, None, True, False)
        moved, budget = moved + leg, budget - spent
        if not done or budget <= 1e-9:
            break
    u.place(*pose)  # once, where the move ends (not at each leg's end)
    _moved(game, u, moved)
    return moved


def advance_to(
    game: MedievalBattle, u: UnitState, tx: float, ty: float, allowance_m: float
) -> float:
    """A normal move toward (tx, ty) as a table makes it: straight when the straight way
    is ground the unit may cross; around it (:func:`engine.pathing.way_around`) when the
    TERRAIN CHART forbids ground on the straight way (a marsh "only on track, road or
    through a gap", impassable ground), logging the ground it goes around; straight to
    the edge, logging that it is blocked, when no way around is found. Returns metres
    moved."""
    price = ground_price(game, u)
    stop = first_blocked((u.x, u.y), (tx, ty), price, step=STEP_M)
    if stop is None:
        game.around.pop(u.id, None)
        allowance_m = road_march(game, u, [(tx, ty)], allowance_m)
        return move_toward(game, u, tx, ty, allowance_m)
    by = game.terrain_at(*stop)[0].value  # the chart's name of the ground in the way
    straight = math.dist((u.x, u.y), (tx, ty))
    way = way_around(
        (u.x, u.y),
        (tx, ty),
        price,
        cell=max(float(getattr(game.bf, "res", STEP_M)), 2 * STEP_M),
        margin=max(DETOUR_MARGIN_M, straight / 2),
    )
    if way is None:
        if game.around.get(u.id) != "blocked":
            game.log("blocked", u.id, by=by)
        game.around[u.id] = "blocked"
        return move_toward(game, u, tx, ty, allowance_m)
    if game.around.get(u.id) != "detour":
        legs = zip([(u.x, u.y), *way[:-1]], way, strict=True)
        game.log(
            "detour",
            u.id,
            by=by,
            way_m=round(sum(math.dist(a, b) for a, b in legs), 1),
            straight_m=round(straight, 1),
            reaches=way[-1] == (tx, ty),
        )
    game.around[u.id] = "detour"
    return move_along(game, u, way, road_march(game, u, way, allowance_m))


def road_march(
    game: MedievalBattle, u: UnitState, way: list[tuple[float, float]], allowance_m: float
) -> float:
    """MOVEMENT CHART "March on a Road or Track" bonus: ``allowance_m`` plus the unit's
    bonus when its whole move this turn, from where it stands to where the larger
    allowance would take it along ``way``, lies on road or track (TERRAIN CHART note **:
    "A unit must be on a road / track for an entire Game Turn, to claim the Road Bonus");
    a unit at full march rate only (not at half speed, not artillery: its limbered moves
    are :func:`~.normal._toward_range`'s). Logged as ``road_march``."""
    if u.mode is Mode.HALF_SPEED or u.unit.arm is Arm.ARTILLERY:
        return allowance_m
    if game.terrain_at(u.x, u.y)[0] is not Terrain.ROAD_TRACK:
        return allowance_m
    bonus = game.m(u.unit.bonus_cm())
    left, at = allowance_m + bonus, (u.x, u.y)
    for point in way:
        leg = math.dist(at, point)
        n = max(1, math.ceil(min(leg, left) / STEP_M))
        for i in range(1, n + 1):
            t = min(leg, left) * i / n / (leg or 1.0)
            x, y = at[0] + (point[0] - at[0]) * t, at[1] + (point[1] - at[1]) * t
            if game.terrain_at(x, y)[0] is not Terrain.ROAD_TRACK:
                return allowance_m
        left -= leg
        if left <= 0:
            break
        at = point
    game.log("road_march", u.id, bonus_m=round(bonus, 1))
    return allowance_m + bonus


def ground_price(game: MedievalBattle, u: UnitState) -> CostAt:
    """The price of a metre of ground at many points for ``u``'s move: the reciprocal of
    the TERRAIN CHART's share of its march rate (slopes counted as if climbed: a path
    is planned before the way up or down is known), ``inf`` where the chart forbids it
    and off the map."""
    column = game.column_of(u)
    cavalry = u.unit.arm is Arm.CAVALRY
    local = u.unit.spec.local
    legend = game.bf.meta["legend"]["feature"]
    minx, miny, maxx, maxy = game.bf.bounds
    known: dict[int, float] = {}

    def price(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        codes, inside = game.bf.codes_on_map("feature", xs, ys)
        sx = np.clip(xs, minx, np.nextafter(maxx, minx))
        sy = np.clip(ys, np.nextafter(miny, maxy), maxy)
        slopes = slope_classes(np.asarray(game.bf.slope_at(sx, sy), dtype=float))
        keys = np.where(inside, codes.astype(np.int64) * 4 + slopes, -1)
        out = np.full(keys.shape, math.inf)
        for key in np.unique(keys).tolist():
            if key < 0:
                continue
            value = known.get(key)
            if value is None:
                row = game.terrain.rows.get(str(legend.get(key // 4, "unknown")))
                terrain = Terrain.OPEN if row is None else row.terrain
                frac = march_fraction(
                    column,
                    terrain,
                    slope_class_of_code(key % 4),
                    uphill=True,
                    cavalry=cavalry,
                    local=local,
                )
                value = known[key] = math.inf if not frac else 1.0 / float(frac)
            out[keys == key] = value
        return out

    return price


def _moved(game: MedievalBattle, u: UnitState, moved: float) -> None:
    if moved > 0:
        u.moving_turn = game.turn
        game.moved_m[u.id] = game.moved_m.get(u.id, 0.0) + moved


#: where a unit stands in a move being swept: x, y and facing (the unit is placed at the end)
Pose = tuple[float, float, float]


def _sweep(
    game: MedievalBattle,
    u: UnitState,
    pose: Pose,
    tx: float,
    ty: float,
    budget: float,
    stop_short_of: UnitState | None,
    face: bool,
    backwards: bool,
) -> tuple[float, float, bool, Pose]:
    """One leg of a move from ``pose``: (metres moved, allowance spent, whether it reached the
    point, where it ends). The steps are swept here, not on the unit: the move places it."""
    x, y, facing = pose
    dx, dy = tx - x, ty - y
    dist = math.hypot(dx, dy)
    if dist < 1e-6:
        return 0.0, 0.0, True, pose
    ux, uy = dx / dist, dy / dist
    if face:
        facing = math.degrees(math.atan2(ux, uy) if not backwards else math.atan2(-ux, -uy))
    moved, spent, done, x, y = _steps(game, u, x, y, ux, uy, dist, budget, stop_short_of)
    return moved, spent, done, (x, y, facing)


def _steps(
    game: MedievalBattle,
    u: UnitState,
    x: float,
    y: float,
    ux: float,
    uy: float,
    dist: float,
    budget: float,
    stop_short_of: UnitState | None,
) -> tuple[float, float, bool, float, float]:
    """The steps of a leg from (x, y) along (ux, uy): (metres moved, allowance spent, whether
    it reached the end, where it stops)."""
    column = game.column_of(u)
    cavalry = u.unit.arm is Arm.CAVALRY
    local = u.unit.spec.local
    start = budget
    moved = 0.0
    z = game.elevation(x, y)
    while moved < dist - 1e-9 and budget > 1e-9:
        step = min(STEP_M, dist - moved)
        nx, ny = x + ux * step, y + uy * step
        if not game.bf.contains(nx, ny):
            if u.routing:
                game.destroy(u, "routed off the battlefield")
            return moved, start - budget, False, x, y
        terrain, _ = game.terrain_at(nx, ny)
        nz = game.elevation(nx, ny)
        slope = slope_class(float(game.bf.slope_at(nx, ny)))
        fraction = march_fraction(
            column, terrain, slope, uphill=nz > z, cavalry=cavalry, local=local
        )
        if fraction is None or fraction <= 0:
            return moved, start - budget, False, x, y
        cost = step / float(fraction)
        if cost > budget:
            step = budget * float(fraction)
            cost = budget
            nx, ny = x + ux * step, y + uy * step
            # the short last step can end in a cell the full step passed by (a corner of
            # a marsh between two samples): a unit never stops on ground it may not enter
            if (
                march_fraction(
                    column,
                    game.terrain_at(nx, ny)[0],
                    slope,
                    uphill=nz > z,
                    cavalry=cavalry,
                    local=local,
                )
                is None
            ):
                return moved, start - budget, False, x, y
        if stop_short_of is not None:
            gap = game.gap_at(u, stop_short_of, nx, ny)
            if gap < 0:
                # back off to contact
                over = -gap
                moved += max(0.0, step - over)
                return moved, start - budget, False, nx - ux * over, ny - uy * over
        x, y = nx, ny
        moved += step
        budget -= cost
        z = nz
        if disorders(column, terrain) and not u.unit.disordered:
            u.unit = dc_replace(u.unit, disordered=True)
            game.log("disordered", u.id, by=terrain.value)
    return moved, start - budget, moved >= dist - 1e-9, x, y


def move_away(
    game: MedievalBattle,
    u: UnitState,
    enemy: UnitState | None,
    dist: float,
    face_enemy: bool = False,
) -> None:
    """Move ``u`` ``dist`` metres straight away from ``enemy`` (with none, toward its side's
    home bearing, else backwards), facing the enemy when ``face_enemy`` (a fall back)."""
    home = game.header.get("home_bearing", {}).get(u.side)
    if enemy is not None:
        dx, dy = u.x - enemy.x, u.y - enemy.y
    elif home is not None:  # a bearing in degrees, as the core's SideState.home_bearing
        dx, dy = math.sin(math.radians(home)), math.cos(math.radians(home))
    else:
        dx, dy = -u.forward()[0], -u.forward()[1]
    norm = math.hypot(dx, dy) or 1.0
    move_toward(game, u, u.x + dx / norm * dist, u.y + dy / norm * dist, dist, backwards=face_enemy)
