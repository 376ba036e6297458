"""medieval-d10 GAME TURN SEQUENCE phases 11-12, Normal Movement and Firing: side A's then side
B's units shoot (:mod:`.fire`) or move on their orders: an attack advances on its place or its
enemy, a march goes to its place and holds there, a disordered unit that halts re-forms;
batteries fire, manhandle, limber and unlimber by the MOVEMENT CHART's artillery rows. Lone
Inspirational Figures walk to join their unit (:func:`~.commanders.move_lone_figures`).
"""

from __future__ import annotations

import math
from dataclasses import replace as dc_replace
from fractions import Fraction
from typing import TYPE_CHECKING

from engine.rulesets.medieval_d10.charts import FIRING_RANGES, RangeBand, TerrainColumn
from engine.rulesets.medieval_d10.commanders import move_lone_figures
from engine.rulesets.medieval_d10.fire import fire, missile_target
from engine.rulesets.medieval_d10.moves import STEP_M, advance_to, move_toward
from engine.rulesets.medieval_d10.state import Command, Mode, UnitState
from engine.rulesets.medieval_d10.terrain import march_fraction, slope_class
from engine.rulesets.medieval_d10.units import Arm

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle

#: a unit whose centre is this close to the place it was sent to has reached it (as 2mm
#: Earth's General reads a waypoint: commanders.REACHED_M)
GOAL_M = 60.0


def normal_move(game: MedievalBattle, side: str) -> None:
    """Phases 11-12, Normal Movement and Firing of ``side``'s units not yet moved, routing
    or in contact: a shot, an advance, a march, artillery's moves, a re-form."""
    move_lone_figures(game, side)
    for u in list(game.alive(side)):
        if u.moved or u.routing or not u.alive:
            continue
        if game.held(u.id):
            continue  # not ready (engine.readiness): no move and no shot
        enemy = game.nearest_enemy(u)
        engaged = enemy is not None and game.in_contact(u, enemy)
        if engaged:
            continue
        if u.unit.arm is Arm.ARTILLERY:
            _artillery(game, u, enemy)
            continue
        weapon = u.unit.spec.missile
        if weapon is not None and enemy is not None:
            target = missile_target(game, u)
            if target is not None and (
                u.order != Command.ATTACK
                or u.unit.spec.melee is None
                or u.unit.arm is Arm.ARTILLERY
                or game.gap(u, target) > game.allowance(u)
            ):
                fire(game, u, target)
                continue
        advancing = u.order == Command.ATTACK and game.turn >= u.from_turn and enemy is not None
        if u.unit.disordered and not (advancing and u.mode is Mode.OBEY):
            # a disordered unit that spends its movement halted re-forms (reading)
            u.unit = dc_replace(u.unit, disordered=False)
            game.log("reformed", u.id)
            continue
        if u.order == Command.MARCH and u.goal is not None and u.mode is not Mode.NO_ADVANCE:
            _march(game, u)
            continue
        if u.order != Command.ATTACK or game.turn < u.from_turn or enemy is None:
            continue
        if u.mode is Mode.NO_ADVANCE or u.unit.arm is Arm.ARTILLERY:
            continue
        allowance = game.allowance(u)
        if u.mode is Mode.HALF_SPEED:
            allowance /= 2
        if u.goal is not None:
            if math.dist((u.x, u.y), u.goal) <= GOAL_M or game.gap(u, enemy) <= allowance:
                u.goal = None  # there, or an enemy within its move: it goes at the enemy
            else:
                moved = advance_to(game, u, u.goal[0], u.goal[1], allowance)
                u.moved = moved > 0
                if moved:
                    game.log("advance", u.id, toward="place", metres=round(moved, 1))
                continue
        aimed = game.units.get(u.aim) if u.aim is not None else None
        if aimed is not None and aimed.alive and not aimed.routing:
            enemy = aimed  # the enemy the scenario sends it at
        # "any movement not resulting in the unit coming into base-to-base contact": stop
        # 1 cm (chart) short of the nearest enemy
        room = game.gap(u, enemy) - game.m(1)
        if room <= 0:
            continue
        d = math.dist((u.x, u.y), (enemy.x, enemy.y)) or 1.0
        tx = u.x + (enemy.x - u.x) / d * room
        ty = u.y + (enemy.y - u.y) / d * room
        moved = advance_to(game, u, tx, ty, allowance)
        u.moved = moved > 0
        if moved:
            game.log("advance", u.id, toward=enemy.id, metres=round(moved, 1))


def _march(game: MedievalBattle, u: UnitState) -> None:
    """A unit sent to hold a place away from where it stood (a ``hold`` objective) moves
    on it at its rate (half when the last test said so), then holds there: no charge is
    declared on the way (it is not ordered to attack)."""
    assert u.goal is not None
    if math.dist((u.x, u.y), u.goal) <= GOAL_M:
        u.order, u.goal = Command.HOLD, None
        return
    allowance = game.allowance(u) / (2 if u.mode is Mode.HALF_SPEED else 1)
    moved = advance_to(game, u, u.goal[0], u.goal[1], allowance)
    u.moved = moved > 0
    if moved:
        game.log("advance", u.id, toward="place", metres=round(moved, 1))


def _artillery(game: MedievalBattle, u: UnitState, enemy: UnitState | None) -> None:
    """Normal movement and firing of a battery (MOVEMENT CHART artillery rows): unlimbered
    guns fire at an enemy in range, or are manhandled forward when it is less than a
    manhandled move out of range; otherwise a battery ordered to attack limbers, marches
    limbered to long range and unlimbers there. Limbering or unlimbering takes the chart's
    "Limber or Unlimber" time: a whole Game Turn (heavy, medium), so no move or shot that
    turn; half a Game Turn (light, galloper), so the other half may be a half-rate move.
    Limbered guns cannot fire (docs/rules-interpretations.md)."""
    weapon = u.unit.spec.missile
    assert weapon is not None
    advancing = (
        u.order == Command.ATTACK
        and game.turn >= u.from_turn
        and enemy is not None
        and u.mode is not Mode.NO_ADVANCE
    )
    long_m = game.m(FIRING_RANGES[weapon][RangeBand.LONG].cm)
    target = missile_target(game, u)
    half = u.unit.limber_turns() < 1
    if not u.unit.limbered:
        if target is not None:
            fire(game, u, target)
            return
        if not advancing or enemy is None:
            return
        out_of_range = game.gap(u, enemy) - long_m
        if out_of_range <= game.allowance(u):
            # manhandle the guns forward, facing the enemy, to bring it into range
            moved = _toward_range(game, u, enemy, long_m, game.allowance(u))
            u.moved = moved > 0
            game.log("manhandle", u.id, toward=enemy.id, metres=round(moved, 1))
            return
        if not _limbered_can_advance(game, u, enemy):
            return  # no going for limbered guns ahead: the battery stays unlimbered
        _limber(game, u, True)
        if half:
            moved = _toward_range(game, u, enemy, long_m, game.allowance(u) / 2)
            if moved:
                game.log("advance", u.id, toward=enemy.id, metres=round(moved, 1))
        return
    # limbered
    if target is None and advancing and enemy is not None:
        if not _limbered_can_advance(game, u, enemy):
            _limber(game, u, False)  # halted by ground it cannot cross: unlimber there
            return
        moved = _toward_range(game, u, enemy, long_m, game.allowance(u))
        u.moved = moved > 0
        if moved:
            game.log("advance", u.id, toward=enemy.id, metres=round(moved, 1))
        within_half = moved <= game.allowance(u) / 2 + 1e-9
        if half and within_half and missile_target(game, u) is not None:
            _limber(game, u, False)
        return
    if target is not None:
        _limber(game, u, False)


def _limbered_can_advance(game: MedievalBattle, u: UnitState, enemy: UnitState) -> bool:
    """Whether limbered guns can make a tenth of a limbered move toward ``enemy``: the
    TERRAIN CHART lets limbered artillery into marsh "only on track, road or through a
    gap" (and into no impassable ground)."""
    limbered = dc_replace(u.unit, limbered=True)
    reach = game.m(limbered.march_rate_cm()) / 10
    d = math.dist((u.x, u.y), (enemy.x, enemy.y)) or 1.0
    ux, uy = (enemy.x - u.x) / d, (enemy.y - u.y) / d
    z = game.elevation(u.x, u.y)
    n = max(1, math.ceil(reach / STEP_M))
    for i in range(1, n + 1):
        x, y = u.x + ux * reach * i / n, u.y + uy * reach * i / n
        if not game.bf.contains(x, y):
            return False
        terrain, _ = game.terrain_at(x, y)
        nz = game.elevation(x, y)
        slope = slope_class(float(game.bf.slope_at(x, y)))
        frac = march_fraction(
            TerrainColumn.LIMBERED_ARTILLERY, terrain, slope, uphill=nz > z, cavalry=False
        )
        if frac is None or frac <= 0:
            return False
        z = nz
    return True


def _toward_range(
    game: MedievalBattle, u: UnitState, enemy: UnitState, long_m: float, allow: float
) -> float:
    """Move ``u`` toward ``enemy`` until it is just within ``long_m`` (ground metres)."""
    room = game.gap(u, enemy) - long_m + 1.0
    if room <= 0:
        return 0.0
    d = math.dist((u.x, u.y), (enemy.x, enemy.y)) or 1.0
    tx = u.x + (enemy.x - u.x) / d * room
    ty = u.y + (enemy.y - u.y) / d * room
    return move_toward(game, u, tx, ty, allow)


def _limber(game: MedievalBattle, u: UnitState, limber: bool) -> None:
    """MOVEMENT CHART "Limber or Unlimber": the battery spends the chart's time."""
    turns = u.unit.limber_turns()
    u.unit = dc_replace(u.unit, limbered=limber, limber_progress=Fraction(turns))
    u.moved = True
    game.log("limber" if limber else "unlimber", u.id, game_turns=str(turns))


def phase_normal_a(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 11: side A's Normal Movement and Firing."""
    normal_move(game, game.side_a)


def phase_normal_b(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 12: side B's Normal Movement and Firing."""
    normal_move(game, game.side_b)
