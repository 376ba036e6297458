"""medieval-d10 morale: THE MORALE TEST CHART (:func:`take_morale_test`, the factors a unit's
situation gives), its MORALE TEST RESULT for "All other Reasons" (:func:`apply_other`) and a
rout (:func:`set_rout`); GAME TURN SEQUENCE phase 10, Morale Tests for seeing friends rout, and
phase 15, Morale Tests for the turn's REASONS TO TAKE A MORALE TEST (a rally for routers); and
the units' look at the enemy (MORALE reason 7, :func:`look`).
"""

from __future__ import annotations

from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING

import numpy as np

from engine.rulesets.medieval_d10.charts import MoraleColumn, MoraleResult
from engine.rulesets.medieval_d10.commanders import commanders_near, contingent_lost, inspired
from engine.rulesets.medieval_d10.procedures import (
    morale_modifier,
    morale_test,
    strength_lost_steps,
)
from engine.rulesets.medieval_d10.state import (
    R_CONTINGENT_LOST,
    R_HALF,
    R_UNSEEN_ENEMY,
    Mode,
    UnitState,
)
from engine.rulesets.medieval_d10.terrain import Cover
from engine.rulesets.medieval_d10.units import Arm, Order

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle

#: the factors a morale or control event shows (the situation's lines; classes are implied)
SHOWN_FACTORS = frozenset(
    {
        "commander_seen",
        "commander_near",
        "contingent_commander_lost",
        "inspirational",
        "inspirational_lost",
        "insecure_flank",
        "charge_soft_target",
    }
)


def going_back(u: UnitState) -> bool:
    """Routing or falling back: the charts' "Routing / Falling Back" line, not "Halted /
    Advancing"."""
    return u.routing or u.mode is Mode.FALL_BACK


def pushed(game: MedievalBattle, u: UnitState) -> bool:
    """Pushed back in this turn's phase 3 (its move was backwards, not an advance)."""
    return u.pushed_back_turn == game.turn


def lines_of(units: list[UnitState]) -> tuple[int, int]:
    """How many of ``units`` stand on the charts' "Halted / Advancing" line and how many on
    "Routing / Falling Back": each unit on exactly one."""
    back = sum(1 for v in units if going_back(v))
    return len(units) - back, back


def look(game: MedievalBattle) -> None:
    """MORALE reason 7, "The testing unit has just seen previously unseen enemy, for the
    first time": each unit notes the enemy units it sees; those it sees at its first look
    (the deployment) are not a surprise, and neither is an enemy first seen further off
    than 150 yds (the distance the book gives its other sight tests, reasons 5 and 6: an
    army seen coming from afar is watched, not sprung on the unit; docs/
    rules-interpretations.md)."""
    # an enemy a unit has seen before can give it no first sight: only the others are
    # looked at (the answers are the same, and no other question asks of enemy pairs, so
    # the turn's sight cache answers nothing else differently); the first look sees all.
    # Sight is mutual (docs/rules-interpretations.md, "Sight between two units is mutual"):
    # one line a pair of units, from the unit of the battle's first side, answers both
    # units' look, so the lines asked are at most half the pairs
    first, other = game.sides
    ours, theirs = list(game.alive(first)), list(game.alive(other))
    our_ids, their_ids = [u.id for u in ours], [e.id for e in theirs]
    ask_ours = _unseen(ours, their_ids)  # (ours, theirs): whom each of ours looks at
    ask_theirs = _unseen(theirs, our_ids).T  # (ours, theirs): who looks at each of ours
    rows, cols = np.nonzero(ask_ours | ask_theirs)
    sees = np.zeros(ask_ours.shape, dtype=bool)
    sees[rows, cols] = game.sight_of_grid(ours, theirs, rows, cols)
    looks = [(u, ask_ours[i] & sees[i], theirs, their_ids) for i, u in enumerate(ours)]
    looks += [(e, ask_theirs[:, j] & sees[:, j], ours, our_ids) for j, e in enumerate(theirs)]
    for u, hit, enemies, ids in looks:
        if u.routing:
            continue
        found = np.flatnonzero(hit).tolist()
        now = {ids[k] for k in found}
        if u.seen is None:
            u.seen = now
            continue
        if now:
            u.seen |= now
            near = sorted(e.id for e in game.within_150yd(u, [enemies[k] for k in found]))
            if near:
                u.pending.append((R_UNSEEN_ENEMY, f"first sight of {', '.join(near)}"))


def _unseen(lookers: list[UnitState], enemy_ids: list[str]) -> np.ndarray:
    """(lookers, enemies) flags: the enemies each looker has not seen yet (none for a routing
    looker: it does not look; all at its first look)."""
    col = {k: j for j, k in enumerate(enemy_ids)}
    out = np.zeros((len(lookers), len(enemy_ids)), dtype=bool)
    for i, u in enumerate(lookers):
        if u.routing:
            continue
        out[i] = True
        if u.seen:
            out[i, [col[k] for k in u.seen if k in col]] = False
    return out


def phase_morale_seeing(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 10, Morale Tests: units that have neither charged nor
    moved this turn test when a friendly unit (not artillery, not skirmishers) is routing
    within 150 yds of them ("seeing friends rout")."""
    fleeing = [
        u
        for u in game.alive()
        if u.routing and u.unit.arm is not Arm.ARTILLERY and u.unit.order is not Order.SKIRMISH
    ]
    if not fleeing:
        return
    fleeing_ids = {f.id for f in fleeing}
    for u in list(game.alive()):
        if u.routing or u.charged_this_turn or u.moved:
            continue
        # the friends within 150 yds from the battle's unit table, then those fleeing: the
        # same answer as a walk over every fleeing friend, without one a unit
        if any(f.id in fleeing_ids for f in game.within_150yd(u, u.side)):
            result = take_morale_test(game, u, MoraleColumn.OTHER, "seeing friends rout")
            apply_other(game, u, result)


def phase_morale(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 15, Morale Tests: routers test to rally; every other unit
    tests once for its highest-priority REASON TO TAKE A MORALE TEST this turn (or a "Half
    speed" / "No advance" result runs out)."""
    look(game)
    for u in list(game.alive()):
        if u.routing:
            result = take_morale_test(game, u, MoraleColumn.RALLY, "rally from a rout")
            if result is MoraleResult.NO_ADVANCE:
                u.mode, u.mode_until = Mode.NO_ADVANCE, game.turn + 1
                game.log("rallied", u.id)
            elif result is MoraleResult.FALL_BACK_DISORDER:
                u.mode, u.fall_back_disordered = Mode.FALL_BACK, True
                game.log("rallied", u.id, falling_back=True)
            u.pending.clear()
            continue
        if u.unit.figures_left * 2 <= u.unit.figures:
            u.pending.append((R_HALF, "at 50% strength or less"))
        lost, chief = contingent_lost(game, u)
        if lost and chief is not None and not chief.alive:
            # "The unit's contingent Commander figure is either killed or wounded (Test
            # every Game Turn)"
            u.pending.append((R_CONTINGENT_LOST, f"contingent commander {chief.id} killed"))
        if not u.pending:
            if u.mode in (Mode.NO_ADVANCE, Mode.HALF_SPEED) and game.turn >= u.mode_until:
                u.mode = Mode.OBEY
            continue
        u.pending.sort()
        reason = u.pending[0][1]
        u.pending.clear()
        result = take_morale_test(game, u, MoraleColumn.OTHER, reason)
        apply_other(game, u, result)
    declare_push_backs(game)


def declare_push_backs(game: MedievalBattle) -> None:
    """Phase 15, "declare which units must Rout, Fall-back, Follow-up or be Pushed-back, in
    Phase 3 of the next Game Turn": a unit beaten in this turn's melee that its morale test
    left in the fight (not routing, not falling back) is pushed back by the unit that beat it,
    if that unit still stands in contact with it (docs/rules-interpretations.md, "Melee:
    push-backs and follow-ups")."""
    for u in game.alive():
        winner = game.units.get(u.beaten_by or "")
        u.pushed_by = None
        if winner is None or not winner.alive or winner.routing or u.routing:
            continue
        if u.mode is Mode.FALL_BACK or not game.in_contact(u, winner):
            continue
        u.pushed_by = winner.id


def apply_other(game: MedievalBattle, u: UnitState, result: MoraleResult) -> None:
    """MORALE TEST RESULT, "All other Reasons" (and declaring a charge)."""
    if result is MoraleResult.ROUT:
        set_rout(game, u, "morale test")
    elif result in (MoraleResult.FALL_BACK_GOOD_ORDER, MoraleResult.FALL_BACK_DISORDER):
        u.mode = Mode.FALL_BACK
        u.fall_back_disordered = result is MoraleResult.FALL_BACK_DISORDER
        u.charging = False
    elif result is MoraleResult.NO_ADVANCE:
        u.mode, u.mode_until, u.charging = Mode.NO_ADVANCE, game.turn + 1, False
    elif result is MoraleResult.HALF_SPEED:
        u.mode, u.mode_until = Mode.HALF_SPEED, game.turn + 1
    elif result is MoraleResult.ACT_AS_ORDERED and u.mode in (Mode.NO_ADVANCE, Mode.HALF_SPEED):
        u.mode = Mode.OBEY


def set_rout(game: MedievalBattle, u: UnitState, why: str) -> None:
    """MORALE TEST RESULT "Rout": ``u`` routs, disordered (a routing battery abandons its
    guns)."""
    if u.routing or not u.alive:
        return
    u.mode, u.charging, u.target = Mode.ROUTING, False, None
    u.routed_turn = game.turn
    u.unit = dc_replace(u.unit, disordered=True)
    game.log("rout", u.id, reason=why)
    if u.unit.arm is Arm.ARTILLERY:
        game.destroy(u, "routing battery abandons its guns")


def take_morale_test(
    game: MedievalBattle,
    u: UnitState,
    column: MoraleColumn,
    reason: str,
    extra: dict[str, int] | None = None,
) -> MoraleResult:
    """THE MORALE TEST CHART for ``u`` with the factors its situation gives."""
    friends = game.within_150yd(u, u.side)
    enemies = game.within_150yd(u, game.enemy_of(u.side))
    friends_on, enemies_on = lines_of(friends), lines_of(enemies)
    _, cover = game.terrain_at(u.x, u.y)
    shooters = [game.units[s] for s in u.under_fire_by if s in game.units]
    lost = u.unit.figures_lost
    factors = {
        # each unit within 150 yds is Halted / Advancing or Routing / Falling Back, never
        # both (docs/rules-interpretations.md, "Morale factors: one line a unit")
        "friend_halted_advancing": friends_on[0],
        "friend_routing": friends_on[1],
        "enemy_halted_advancing": enemies_on[0],
        "enemy_routing": enemies_on[1],
        # "No other friendly units are in sight": in sight, not merely alive
        "no_friends_in_sight": int(
            not any(game.sees(u, f) for f in game.alive(u.side) if f is not u)
        ),
        "impetuous": int(u.unit.spec.impetuous),
        "soft_cover": int(cover is Cover.SOFT),
        "hard_cover": int(cover is Cover.HARD),
        "charging": int(u.charging or u.charged_this_turn),
        # a rout or a fall back moves the unit, but not forward: no "Advancing" for it
        "advancing": int(
            u.moving_turn == game.turn
            and not u.charged_this_turn
            and not going_back(u)
            and not pushed(game, u)
        ),
        "firing": int(u.fired_turn >= game.turn - 1),
        "under_fire_formed": int(
            u.under_fire_turn >= game.turn - 1
            and any(
                s.unit.arm is not Arm.ARTILLERY and s.unit.order is not Order.SKIRMISH
                for s in shooters
            )
        ),
        "under_fire_skirmishers": int(
            u.under_fire_turn >= game.turn - 1
            and any(s.unit.order is Order.SKIRMISH for s in shooters)
        ),
        "under_fire_artillery": int(
            u.under_fire_turn >= game.turn - 1
            and any(s.unit.arm is Arm.ARTILLERY for s in shooters)
        ),
        # "Falling Back / Being Pushed Back in good order": a push-back keeps the unit's order
        # (a disordered unit pushed back is on the disorder line)
        "falling_back_good_order": int(
            (u.mode is Mode.FALL_BACK and not u.fall_back_disordered)
            or (pushed(game, u) and not u.unit.disordered)
        ),
        "falling_back_disorder": int(
            (u.mode is Mode.FALL_BACK and u.fall_back_disordered)
            or (pushed(game, u) and u.unit.disordered)
        ),
        "routing": int(u.routing),
        "disordered": int(u.unit.disordered and not u.routing),
        "artillery_wagons_skirmish_loose": int(
            u.unit.arm is Arm.ARTILLERY or u.unit.order is not Order.CLOSE
        ),
        "per_10pct_lost": strength_lost_steps(lost, u.unit.figures, 10),
        "downslope": downslope(game, u, enemies),
        "commander_seen": int(bool(commanders_near(game, u))),
        "contingent_commander_lost": int(contingent_lost(game, u)[0]),
        "inspirational": int(inspired(game, u)),
        "inspirational_lost": int(u.saw_inspirational_lost),
        "insecure_flank": len(game.insecure_flanks(u)),
    }
    factors.update(extra or {})
    modifier = morale_modifier(u.unit.spec.troop_class, factors, u.commander)
    shown = {k: v for k, v in factors.items() if v and k in SHOWN_FACTORS}
    if u.commander is not None:
        shown["commander_with"] = 1
    test = morale_test(game.dice, column, modifier, purpose=f"{u.id} {reason}")
    game.log(
        "morale",
        u.id,
        reason=reason,
        column=column.value,
        face=test.face,
        modifier=modifier,
        total=test.total,
        result=test.result.value,
        factors=shown,
    )
    return test.result


def downslope(game: MedievalBattle, u: UnitState, enemies: list[UnitState]) -> int:
    """THE MORALE / CONTROL TEST CHART "Unit is downslope of enemy within 150yds": an
    enemy within 150 yds stands more than a metre higher."""
    z = game.elevation(u.x, u.y)
    return int(any(game.elevation(e.x, e.y) > z + 1.0 for e in enemies))
