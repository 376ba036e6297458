"""medieval-d10 charges, GAME TURN SEQUENCE phases 4-9: side A declares its charges (phase 4),
side B its charges and counter-charges (5); side B then side A declare their reactions to the
charges against them (6-7: stand, stand and fire, evade); side A's then side B's chargers move,
and "simultaneously move ... units that are reacting" (8-9: counter-chargers meet the charge,
evaders move off, reaction fire, a rout on contact).
"""

from __future__ import annotations

import math
from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING

from engine.pathing import first_blocked
from engine.rulesets.medieval_d10.charts import MoraleColumn, MoraleResult
from engine.rulesets.medieval_d10.fire import fire
from engine.rulesets.medieval_d10.morale import apply_other, set_rout, take_morale_test
from engine.rulesets.medieval_d10.moves import STEP_M, ground_price, move_away, move_toward
from engine.rulesets.medieval_d10.nearby import SLACK_M
from engine.rulesets.medieval_d10.state import CONTACT_M, Command, Mode, UnitState
from engine.rulesets.medieval_d10.units import Arm, Order

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle

#: MORALE TEST RESULT: a counter-charge goes in on "Act as Ordered", and on "Half speed advance"
#: ("Troops wishing to Charge ... may React-to-a-charge (including Counter-charging ...)")
COUNTER_CHARGE_GOES_IN = frozenset({MoraleResult.ACT_AS_ORDERED, MoraleResult.HALF_SPEED})


def declare(game: MedievalBattle, side: str) -> None:
    """Phases 4-5, Charges to Declare: each of ``side``'s units ordered to attack and free
    to charge tests to declare a charge at the nearest enemy within its charge reach (THE
    MORALE TEST CHART, "Wishing to charge"); side B first looks for a charger to counter-charge."""
    for u in game.alive(side):
        if (
            u.moved
            or u.routing
            or u.mode in (Mode.NO_ADVANCE, Mode.HALF_SPEED, Mode.FALL_BACK, Mode.PURSUING)
        ):
            continue
        if u.unit.arm is Arm.ARTILLERY or u.order != Command.ATTACK or game.turn < u.from_turn:
            continue
        if game.held(u.id):
            continue  # not ready (engine.readiness): it declares no charge
        if any(game.in_contact(u, e) for e in game.nearby.near(u, CONTACT_M, game.enemy_of(side))):
            continue
        reach = game.allowance(u, bonus=True)
        if side == game.side_b and _counter_charge(game, u, reach):
            continue
        enemy = game.nearest_enemy(u)
        if enemy is None:
            continue
        if game.gap(u, enemy) > reach:
            continue
        if _charge_blocked(game, u, enemy):
            # its straight charge would stop at ground it may not enter: it declares none
            # and makes its normal move round that ground (docs/rules-interpretations.md,
            # "A charge goes straight over ground it may enter")
            continue
        soft = (
            enemy.unit.disordered
            or enemy.unit.order is Order.SKIRMISH
            or (enemy.unit.arm is Arm.ARTILLERY and enemy.unit.limbered)
        )
        result = take_morale_test(
            game, u, MoraleColumn.OTHER, "declare a charge", extra={"charge_soft_target": int(soft)}
        )
        if result is MoraleResult.ACT_AS_ORDERED:
            u.charging, u.target = True, enemy.id
            game.log("charge_declared", u.id, target=enemy.id)
        else:
            apply_other(game, u, result)


def _charge_blocked(game: MedievalBattle, u: UnitState, enemy: UnitState) -> bool:
    """Whether ``u``'s charge at ``enemy`` (:func:`_charge_way`) crosses ground the TERRAIN
    CHART forbids it (a marsh "only on track, road or through a gap", impassable ground, the
    map's edge) before it would meet it: the charge move stops there (``moves._steps``), so
    the automatic commander does not declare it."""
    if math.dist((u.x, u.y), (enemy.x, enemy.y)) < 1e-6:
        return False
    way = _charge_way(game, u, enemy)
    return first_blocked(way[0], way[-1], ground_price(game, u), step=STEP_M) is not None


def charge_path(game: MedievalBattle, c: UnitState) -> list[tuple[float, float]]:
    """The points (every STEP_M) a declared charger ``c`` will pass through in its charge at
    its target (:func:`_charge_way`)."""
    target = game.units.get(c.target) if c.target is not None else None
    if target is None:
        return [(c.x, c.y)]
    return _charge_way(game, c, target)


def _charge_way(game: MedievalBattle, c: UnitState, target: UnitState) -> list[tuple[float, float]]:
    """The points (every STEP_M) ``c``'s charge at ``target`` passes through: straight at it,
    at most its charge rate, ending where it would meet it."""
    d = math.dist((c.x, c.y), (target.x, target.y))
    length = min(game.allowance(c, bonus=True), max(0.0, game.gap(c, target)))
    if d < 1e-6:
        return [(c.x, c.y)]
    ux, uy = (target.x - c.x) / d, (target.y - c.y) / d
    n = int(length // STEP_M)
    steps = [i * STEP_M for i in range(n + 1)] + ([length] if length > n * STEP_M else [])
    return [(c.x + ux * t, c.y + uy * t) for t in steps]


def interception(
    game: MedievalBattle, u: UnitState, c: UnitState, reach: float
) -> tuple[float, float] | None:
    """GAME TURN SEQUENCE phase 8: "Move Side A's charging units and simultaneously move ...
    Side B's units that are reacting": the first point of the charger ``c``'s charge path
    where the counter-charger ``u`` can meet it within ``reach`` (None: nowhere)."""
    for x, y in charge_path(game, c):
        if game.gap_at(c, u, x, y) <= reach:
            return x, y
    return None


def _counter_charge(game: MedievalBattle, u: UnitState, reach: float) -> bool:
    """Phase 5: side B may counter-charge an enemy unit charging another friendly unit
    (MORALE reason 1, "Wishing to Counter-Charge an enemy unit (that is charging another
    friendly unit)"): the automatic commander does so with an attacking unit that can meet
    such a charger anywhere on its charge path within its own charge reach (the two move
    simultaneously, phase 8). Returns whether it tested.

    MORALE TEST RESULT "Half speed advance", Troops wishing to Charge: "may not now declare
    a Charge ... but it may React-to-a-charge (including Counter-charging or Evading, at
    full speed)": a counter-charge goes in on Act as Ordered or Half speed advance
    (docs/rules-interpretations.md, "Counter-charges")."""
    # a charge path's points lie within the charger's charge allowance of where it stands,
    # so a charger further than that plus ``reach`` cannot be met (the path is not walked)
    chargers = [
        c
        for c in game.alive(game.enemy_of(u.side))
        if c.charging
        and c.target not in (None, u.id)
        and not c.counter_charge
        and game.gap(u, c) - game.allowance(c, bonus=True) <= reach + SLACK_M
        and interception(game, u, c, reach) is not None
    ]
    if not chargers:
        return False
    charger = min(chargers, key=lambda c: (game.gap(u, c), c.id))
    # "Wishing to charge enemy unit's Flank or Rear, or ... Disordered Troops" (+2)
    soft = game.sector(charger, u.x, u.y) != "front" or charger.unit.disordered
    result = take_morale_test(
        game,
        u,
        MoraleColumn.OTHER,
        f"counter-charge {charger.id}",
        extra={"charge_soft_target": int(soft)},
    )
    if result in COUNTER_CHARGE_GOES_IN:
        u.charging, u.target, u.counter_charge = True, charger.id, True
        game.log(
            "charge_declared",
            u.id,
            target=charger.id,
            counter_charge=True,
            charging_at=charger.target,
        )
    apply_other(game, u, result)
    return True


def phase_declare_a(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 4: side A's Charges to Declare."""
    declare(game, game.side_a)


def phase_declare_b(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 5: side B's Charges and Counter-charges to Declare."""
    declare(game, game.side_b)


def react(game: MedievalBattle, side: str) -> None:
    """Phases 6-7, Declare Reaction-to-Charges: each of ``side``'s units charged tests (THE
    MORALE TEST CHART's Receiving / Evading a Charge columns) and stands, stands and fires,
    evades, receives in disorder, routs on contact or falls back."""
    # the enemy's charges by target, in unit order: a reaction changes the reacting unit
    # alone, never who charges whom (each still checked as it is asked)
    charging: dict[str, list[UnitState]] = {}
    for c in game.alive(game.enemy_of(side)):
        if c.charging and c.target is not None:
            charging.setdefault(c.target, []).append(c)
    for u in game.alive(side):
        chargers = [
            c for c in charging.get(u.id, ()) if c.alive and c.charging and c.target == u.id
        ]
        if not chargers or u.routing:
            continue
        # skirmishers evade (the automatic commanders' choice); the rest stand (and fire);
        # troops not yet ready (engine.readiness) only stand
        held = game.held(u.id)
        evade = u.unit.order is Order.SKIRMISH and not held
        column = MoraleColumn.EVADING_CHARGE if evade else MoraleColumn.RECEIVING_CHARGE
        result = take_morale_test(
            game, u, column, "evade a charge" if evade else "receive a charge"
        )
        if evade and result in (
            MoraleResult.FALL_BACK_GOOD_ORDER,
            MoraleResult.FALL_BACK_DISORDER,
        ):
            # the evade succeeds: it moves off at its evade rate as the chargers come on
            u.reactions.add("evade")
        elif result is MoraleResult.RECEIVE_DISORDER:
            u.unit = dc_replace(u.unit, disordered=True)
        elif result is MoraleResult.ROUT_ON_CONTACT:
            u.reactions.add("rout_on_contact")
        elif result in (
            MoraleResult.FALL_BACK_GOOD_ORDER,
            MoraleResult.FALL_BACK_DISORDER,
            MoraleResult.ROUT,
        ):
            apply_other(game, u, result)
            game.log("reaction", u.id, result=result.value, chargers=[c.id for c in chargers])
            continue
        limbered = u.unit.arm is Arm.ARTILLERY and u.unit.limbered
        if u.unit.spec.missile is not None and not evade and not limbered and not held:
            u.reactions.add("fire_at_chargers")
        game.log("reaction", u.id, result=result.value, chargers=[c.id for c in chargers])


def phase_react_b(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 6: side B's Declare Reaction-to-Charges."""
    react(game, game.side_b)


def phase_react_a(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 7: side A's Declare Reaction to Charges."""
    react(game, game.side_a)


def charge_move(game: MedievalBattle, side: str) -> None:
    """Phases 8-9, Charge & Reaction-to-Charge Movement: each of ``side``'s chargers first
    meets any counter-charge against it; else its target evades or fires at it (a charger
    taking casualties tests, and may halt short), and the charge comes on into contact."""
    for u in list(game.alive(side)):
        if not u.charging or u.target not in game.units:
            continue
        target = game.units[u.target]
        u.charging = False
        if u.counter_charge:
            u.counter_charge = False
            continue  # it moved with the charge it met
        if not target.alive:
            continue
        if _meet_counter_charges(game, u):
            continue
        if "evade" in target.reactions and not target.moved:
            # MOVEMENT CHART: evade at march rate plus bonus, away from the charger;
            # skirmishers fall back without becoming disordered
            move_away(game, target, u, game.allowance(target, bonus=True))
            target.moved = True
            game.log(
                "evade",
                target.id,
                charger=u.id,
                metres=round(game.moved_m.get(target.id, 0.0), 1),
            )
        if "fire_at_chargers" in target.reactions and not target.routing:
            target.reactions.discard("fire_at_chargers")
            kills = fire(game, target, u, reaction=True)
            if kills:
                result = take_morale_test(
                    game, u, MoraleColumn.CASUALTIES_CHARGING, "casualties while charging"
                )
                if result is MoraleResult.NO_ADVANCE:
                    # halt disordered 5 cm in front of the enemy
                    gap = game.gap(u, target) - game.m(5)
                    if gap > 0:
                        move_toward(game, u, target.x, target.y, gap, stop_short_of=target)
                    u.unit = dc_replace(u.unit, disordered=True)
                    u.moved = True
                    continue
        moved = move_toward(
            game, u, target.x, target.y, game.allowance(u, bonus=True), stop_short_of=target
        )
        u.moved, u.charged_this_turn = True, True
        contact = game.in_contact(u, target)
        game.log("charge", u.id, target=target.id, metres=round(moved, 1), contact=contact)
        if contact and "rout_on_contact" in target.reactions:
            target.reactions.discard("rout_on_contact")
            set_rout(game, target, "routed on contact")


def _meet_counter_charges(game: MedievalBattle, u: UnitState) -> bool:
    """GAME TURN SEQUENCE phases 8-9: "simultaneously move ... units that are reacting":
    the charger ``u`` comes on along its charge path to the first point where a unit
    counter-charging it can meet it, and that unit charges it there; if one meets it, ``u``'s
    charge ends there (in contact, charging; its target is the unit it met). Returns whether
    met; if none meets it, ``u`` is back where it started, to make its own charge."""
    met = None
    start = (u.x, u.y, u.facing)
    for c in sorted(game.alive(game.enemy_of(u.side)), key=lambda v: v.id):
        if not (c.charging and c.counter_charge and c.target == u.id) or c.routing:
            continue
        c.charging, c.counter_charge = False, False
        reach = game.allowance(c, bonus=True)
        point = interception(game, c, u, reach) if met is None else None
        if point is not None:
            move_toward(game, u, point[0], point[1], game.allowance(u, bonus=True))
        moved = move_toward(game, c, u.x, u.y, reach, stop_short_of=u)
        c.moved, c.charged_this_turn = True, True
        contact = game.in_contact(c, u)
        game.log(
            "counter_charge",
            c.id,
            target=u.id,
            metres=round(moved, 1),
            contact=contact,
            charger_metres=round(game.moved_m.get(u.id, 0.0), 1),
        )
        if contact and met is None:
            met = c
        elif met is None:
            # not met: the charger's partial move is undone, it makes its own charge
            game.moved_m.pop(u.id, None)
            game.allowance_m.pop(u.id, None)
            u.place(*start)
    if met is None:
        return False
    u.moved, u.charged_this_turn = True, True
    game.log(
        "charge",
        u.id,
        target=u.target,
        metres=round(game.moved_m.get(u.id, 0.0), 1),
        contact=True,
        met_by=met.id,
    )
    return True


def phase_charge_a(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 8: side A's Charge & Reaction-to-Charge Movement."""
    charge_move(game, game.side_a)


def phase_charge_b(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 9: side B's Charge & Reaction-to-Charge Movement."""
    charge_move(game, game.side_b)
