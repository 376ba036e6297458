"""medieval-d10 GAME TURN SEQUENCE phase 3, Compulsory Movement: routers and units falling back
move first (the MORALE TEST RESULT's rout and fall back; a battery falling back may abandon its
guns), then units pushed back in an on-going melee, then pursuers and units following up.
"""

from __future__ import annotations

import math
from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING

from engine.rulesets.medieval_d10.charts import ARTILLERY_FALL_BACK_ABANDON_MAX, FALL_BACK_DISTANCE
from engine.rulesets.medieval_d10.moves import move_away, move_toward
from engine.rulesets.medieval_d10.state import Mode, UnitState
from engine.rulesets.medieval_d10.units import Arm

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle


def phase_compulsory(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 3, Compulsory Movement: rout moves (march rate plus bonus
    plus a d10 cm), falls back (FALL BACK DISTANCE), then pursuits and follow-ups."""
    # routers and units falling back move first, then units pushed back, then pursuers and
    # followers-up (who close on where their foes now stand)
    order = sorted(game.alive(), key=_move_order)
    for u in order:
        if not u.alive:
            continue
        if u.pushed_by is not None and u.mode is not Mode.ROUTING:
            _pushed_back(game, u)
        elif u.follow_up is not None and u.mode is not Mode.ROUTING:
            _follow_up(game, u)
        elif u.mode is Mode.ROUTING:
            enemy = game.nearest_enemy(u, routing_ok=True)
            (face,) = game.dice.roll(1, f"{u.id} rout", 10).faces
            dist = game.allowance(u, bonus=True) + game.m(face)
            move_away(game, u, enemy, dist)
            u.moved = True
            game.log("rout_move", u.id, metres=round(game.moved_m.get(u.id, 0.0), 1), die=face)
        elif u.mode is Mode.FALL_BACK and u.unit.arm is Arm.ARTILLERY:
            _battery_falls_back(game, u)
        elif u.mode is Mode.FALL_BACK:
            enemy = game.nearest_enemy(u, routing_ok=True)
            back = FALL_BACK_DISTANCE["cavalry" if u.unit.arm is Arm.CAVALRY else "infantry"].cm
            move_away(game, u, enemy, game.m(back), face_enemy=True)
            if u.fall_back_disordered:
                u.unit = dc_replace(u.unit, disordered=True)
            u.mode, u.moved = Mode.OBEY, True
            game.log("fall_back", u.id, metres=round(game.moved_m.get(u.id, 0.0), 1))
        elif u.mode is Mode.PURSUING and u.loot is not None:
            _run_at_loot(game, u, u.loot)
        elif u.mode is Mode.PURSUING and u.target in game.units:
            target = game.units[u.target]
            if not target.alive:
                u.mode, u.target = Mode.OBEY, None
                continue
            moved = move_toward(
                game, u, target.x, target.y, game.allowance(u, bonus=True), stop_short_of=target
            )
            u.moved = True
            contact = game.in_contact(u, target)
            game.log("pursue", u.id, target=target.id, metres=round(moved, 1), contact=contact)
            if contact and not target.routing:
                u.mode = Mode.OBEY  # followed up into contact: the melee goes on


def _run_at_loot(game: MedievalBattle, u: UnitState, loot: tuple[float, float]) -> None:
    """THE CONTROL TEST reason 7 failed: "an Impetuous Charge" of mercenaries at the enemy's
    settlement, at charge speed; there, they stay to plunder (``arrived``) until a retaken
    test (phase 16) puts them back under orders."""
    arrived = math.dist((u.x, u.y), loot) <= game.size(u)[1] / 2
    moved = 0.0
    if not arrived:
        moved = move_toward(game, u, loot[0], loot[1], game.allowance(u, bonus=True))
        arrived = math.dist((u.x, u.y), loot) <= game.size(u)[1] / 2 + 1.0
    u.moved = True
    game.log(
        "loot",
        u.id,
        x=round(loot[0], 1),
        y=round(loot[1], 1),
        metres=round(moved, 1),
        arrived=arrived,
    )


def _move_order(u: UnitState) -> int:
    """Phase 3's order: routers and units falling back, units pushed back, then pursuers and
    units following up."""
    if u.mode is Mode.PURSUING or u.follow_up is not None:
        return 2
    return 1 if u.pushed_by is not None else 0


def _pushed_back(game: MedievalBattle, u: UnitState) -> None:
    """MELEE result, "Pushed-back ... in an on-going Melee": the beaten unit gives ground by
    the fall-back distance (infantry 5 cm, cavalry 10 cm), facing the unit that beat it and
    keeping its order (the book gives no push-back distance: docs/rules-interpretations.md,
    "Melee: push-backs and follow-ups")."""
    winner = game.units.get(u.pushed_by or "")
    u.pushed_by = None
    if winner is None or not winner.alive:
        return
    back = FALL_BACK_DISTANCE["cavalry" if u.unit.arm is Arm.CAVALRY else "infantry"].cm
    move_away(game, u, winner, game.m(back), face_enemy=True)
    u.pushed_back_turn, u.moved = game.turn, True
    game.log("push_back", u.id, by=winner.id, metres=round(game.moved_m.get(u.id, 0.0), 1))


def _follow_up(game: MedievalBattle, u: UnitState) -> None:
    """ "Following-up in an on-going Melee": the winner closes again on the unit it pushed
    back, back into contact (at most its march rate); a foe that has broken since is left to
    the pursuit rules."""
    target = game.units.get(u.follow_up or "")
    u.follow_up = None
    if target is None or not target.alive or target.routing:
        return
    moved = move_toward(game, u, target.x, target.y, game.allowance(u), stop_short_of=target)
    u.followed_up_turn, u.moved = game.turn, True
    contact = game.in_contact(u, target)
    game.log("follow_up", u.id, target=target.id, metres=round(moved, 1), contact=contact)


def _battery_falls_back(game: MedievalBattle, u: UnitState) -> None:
    """MORALE TEST RESULT, Artillery: falling back in disorder, a d10 of 1-5 abandons the
    guns (the battery is lost), 6-10 manhandles them back; in good order the guns are
    manhandled back for one Game Turn, facing the enemy (a limbered battery moves back
    limbered)."""
    if u.fall_back_disordered:
        (face,) = game.dice.roll(1, f"{u.id} falls back in disorder", 10).faces
        if face <= ARTILLERY_FALL_BACK_ABANDON_MAX:
            game.log("abandon_guns", u.id, die=face)
            game.destroy(u, f"abandoned its guns (d10 {face})")
            return
    enemy = game.nearest_enemy(u, routing_ok=True)
    move_away(game, u, enemy, game.allowance(u), face_enemy=True)
    u.mode, u.moved = Mode.OBEY, True
    how = "limbered" if u.unit.limbered else "manhandled"
    game.log("fall_back", u.id, metres=round(game.moved_m.get(u.id, 0.0), 1), guns=how)
