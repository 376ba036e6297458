"""medieval-d10 GAME TURN SEQUENCE phase 16, Control Tests (THE CONTROL TEST CHART): a melee
winner not wishing to follow up the foe it pushes back (reason 1, :func:`wishes_to_follow_up`),
a winner whose foe breaks (2), a unit retaking a failed test (6), and the impetuous sights of
reasons 3-5 (:func:`impetuous_cause`); a unit failing reason 1 must follow up, one failing the
others charges impetuously at the enemy that caused it, in phase 3 of the next turn
(docs/rules-interpretations.md, "Melee: push-backs and follow-ups", "Control tests: the
impetuous sights").
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from engine.rulesets.medieval_d10.charts import COMMANDER_KILLED_VALUE, TroopClass
from engine.rulesets.medieval_d10.commanders import commanders_near, contingent_lost, inspired
from engine.rulesets.medieval_d10.morale import SHOWN_FACTORS, downslope, going_back, lines_of
from engine.rulesets.medieval_d10.procedures import (
    control_modifier,
    control_test,
    strength_lost_steps,
)
from engine.rulesets.medieval_d10.state import CONTACT_M, Command, Mode, UnitState
from engine.rulesets.medieval_d10.terrain import Cover, Terrain
from engine.rulesets.medieval_d10.units import Arm, Order

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle


def phase_control(game: MedievalBattle) -> None:
    """Phase 16, THE CONTROL TEST CHART: a melee winner that does not wish to follow up the
    foe it pushes back (reason 1; one that wishes follows up untested), one whose foe breaks (2),
    a unit retaking a failed test (6), and the impetuous sights of reasons 3-5
    (:func:`impetuous_cause`); a unit failing one of those charges impetuously at the
    enemy that caused it, in phase 3 of the next turn (docs/rules-interpretations.md,
    "Control tests: the impetuous sights")."""
    for u in list(game.alive()):
        reasons = [r for r in u.control_reasons if r.startswith("won melee")]
        u.control_reasons = [r for r in u.control_reasons if not r.startswith("won melee")]
        if u.mode is Mode.PURSUING:
            # a looting unit retakes reason 7 (unless it has just won a melee)
            looting = u.loot is not None and not reasons
            reasons.append("retake a failed control test" + (" (loot)" if looting else ""))
        if u.routing:
            continue
        # Artillery, skirmishers (and hedgehogs) take no Control Test
        if u.unit.arm is Arm.ARTILLERY or u.unit.order is Order.SKIRMISH:
            continue
        cause: UnitState | None = None
        follow_only = False
        loot: tuple[float, float] | None = None
        if reasons and reasons[0].endswith("(loot)"):
            loot = u.loot  # looting still: the retake is of reason 7
        elif reasons:
            target = game.units.get(u.target or "")
            if target is None or not target.alive:
                u.mode = Mode.OBEY if u.mode is Mode.PURSUING else u.mode
                continue
            if target.pushed_by == u.id and u.mode is not Mode.PURSUING:
                # the foe stands and is pushed back: the winner follows up if its player
                # wishes (reason 1 otherwise)
                if wishes_to_follow_up(u):
                    u.follow_up = target.id
                    continue
                reasons = [f"won melee against {target.id}, no wish to follow up"]
                follow_only = True
            elif not (target.routing or target.mode is Mode.FALL_BACK):
                continue  # the foe stands: the melee goes on, no follow-up to control
            cause = target
        else:
            sighted = impetuous_cause(game, u)
            if sighted is not None:
                reason, cause = sighted
                reasons = [reason]
            else:
                loot = loot_in_reach(game, u)
                if loot is None:
                    continue
                reasons = ["mercenaries within charge reach of loot"]
        enemies = game.within_150yd(u, game.enemy_of(u.side))
        friends = game.within_150yd(u, u.side)
        friends_on, enemies_on = lines_of(friends), lines_of(enemies)
        near = commanders_near(game, u)
        _, cover = game.terrain_at(u.x, u.y)
        in_melee = reasons[0].startswith("won melee") or (
            reasons[0].startswith("retake") and loot is None
        )
        moved_on = (
            u.moving_turn == game.turn and not going_back(u) and u.pushed_back_turn != game.turn
        )
        factors = {
            "per_20pct_lost": strength_lost_steps(u.unit.figures_lost, u.unit.figures, 20),
            "irregular": int(u.unit.spec.irregular),
            "pushing_forward": int(in_melee or u.followed_up_turn == game.turn),
            "disordered": int(u.unit.disordered),
            "hard_cover": int(cover is Cover.HARD),
            "soft_cover": int(cover is Cover.SOFT),
            "shot_by_cause": int(cause is not None and cause.id in u.shot_at_by),
            "shot_by_others": int(bool(u.shot_at_by - ({cause.id} if cause else set()))),
            "advancing": int(moved_on and not in_melee),
            "falling_back": int(going_back(u) or u.pushed_back_turn == game.turn),
            "friend_halted_advancing": friends_on[0],
            "enemy_halted_advancing": enemies_on[0],
            "friend_routing": friends_on[1],
            "enemy_routing": enemies_on[1],
            "commander_with": int(u.commander is not None),
            "commander_near": int(u.commander is None and bool(near)),
            "inspirational": int(inspired(game, u)),
            "inspirational_lost": int(u.saw_inspirational_lost),
            "insecure_flank": len(game.insecure_flanks(u)),
            "downslope": downslope(game, u, enemies),
        }
        lost, chief = contingent_lost(game, u)
        # "If killed, the Commander Figure value is: Cautious -1, Bold -2, Rash -2,
        # Exceptional -3": the +2 line's value when the contingent commander is dead
        killed = 0
        if lost and chief is not None and not chief.alive and chief.kind is not None:
            killed = COMMANDER_KILLED_VALUE[chief.kind]
        else:
            factors["contingent_commander_lost"] = int(lost)
        present = u.commander or (near[0].kind if near else None)
        modifier = killed + control_modifier(
            u.unit.spec.troop_class, u.unit.arm is Arm.CAVALRY, factors, present
        )
        shown = {k: v for k, v in factors.items() if v and k in SHOWN_FACTORS}
        if u.commander is not None:
            shown["commander_with"] = 1
        if killed:
            shown["contingent_commander_killed"] = killed
        test = control_test(game.dice, modifier, purpose=f"{u.id} control")
        game.log(
            "control",
            u.id,
            reason=reasons[0],
            face=test.face,
            modifier=modifier,
            total=test.total,
            passed=test.passed,
            factors=shown,
        )
        if test.passed:
            if u.mode is Mode.PURSUING:
                u.mode, u.loot = Mode.OBEY, None
        elif loot is not None:
            # reason 7: an impetuous charge at the loot, out of the player's orders
            u.mode, u.target, u.loot = Mode.PURSUING, None, loot
        elif cause is None:
            pass  # (every test but reason 7's has an enemy unit causing it)
        elif follow_only:
            # "The testing unit must Follow-Up if in melee (hand-to-hand combat)"
            u.follow_up = cause.id
        else:
            # "must Follow-Up ... Alternatively ... begin an Impetuous Charge / Pursuit
            # towards the enemy unit causing them to test"
            u.mode, u.target = Mode.PURSUING, cause.id


def wishes_to_follow_up(u: UnitState) -> bool:
    """The automatic player's wish, when its unit has won a round of melee and pushed its
    foe back: a unit ordered to attack and free to go forward follows up; any other (holding
    its ground, marching, or held back by a "No Advance" result) does not, and so takes THE
    CONTROL TEST's reason 1 (docs/rules-interpretations.md, "Melee: push-backs and
    follow-ups")."""
    return u.order == Command.ATTACK and u.mode in (Mode.OBEY, Mode.HALF_SPEED)


#: the spacing of the points a mercenary unit looks over for loot within its charge reach
LOOT_STEP_M = 10.0


def loot_in_reach(game: MedievalBattle, u: UnitState) -> tuple[float, float] | None:
    """THE CONTROL TEST reason 7, "The unit are mercenaries (M class) within charge reach of
    a loot-worthy enemy encampment, baggage train or settlement (i.e. a Built-up Area or an
    Isolated Building terrain base)": the nearest point of Built-up ground (villages, towns,
    isolated buildings) within ``u``'s charge reach, of M class troops not in contact, that
    lies nearer where the enemy army stood as the battle opened than where its own stood
    (the enemy's settlement; docs/rules-interpretations.md, "Control tests: mercenaries and
    loot"). Points are looked at every :data:`LOOT_STEP_M` metres over the reach."""
    if u.unit.spec.troop_class is not TroopClass.M:
        return None
    if any(game.in_contact(u, e) for e in game.nearby.near(u, CONTACT_M, game.enemy_of(u.side))):
        return None
    reach = game.allowance(u, bonus=True) + game.size(u)[1] / 2
    own, theirs = game.home[u.side], game.home[game.enemy_of(u.side)]
    n = int(reach // LOOT_STEP_M)
    best: tuple[float, tuple[float, float]] | None = None
    for i in range(-n, n + 1):
        for j in range(-n, n + 1):
            d = math.hypot(i, j) * LOOT_STEP_M
            if d > reach or (best is not None and d >= best[0]):
                continue
            x, y = u.x + i * LOOT_STEP_M, u.y + j * LOOT_STEP_M
            if math.dist((x, y), theirs) >= math.dist((x, y), own):
                continue
            if game.terrain_at(x, y)[0] is Terrain.BUILT_UP:
                best = (d, (x, y))
    return None if best is None else best[1]


def impetuous_cause(game: MedievalBattle, u: UnitState) -> tuple[str, UnitState] | None:
    """THE CONTROL TEST reasons 3-5 for ``u`` this turn, and the enemy causing the test
    (the first in unit order), among enemies within its charge reach (march rate plus
    bonus) and not in contact with it: 3, close-combat cavalry shot at by that enemy this
    turn; 4, D or E class (or Irregular) troops seeing that enemy break into a rout this
    turn; 5, formed A class cavalry seeing that enemy close-combat cavalry. Reason 7
    (mercenaries near loot) is :func:`loot_in_reach`; 8 (campaign hatreds) is not played: a
    scenario cannot say who hates whom."""
    if any(game.in_contact(u, e) for e in game.nearby.near(u, CONTACT_M, game.enemy_of(u.side))):
        return None
    reach = game.allowance(u, bonus=True)
    enemies = [
        e
        for e in game.nearby.near(u, reach, game.enemy_of(u.side))
        if e.alive and game.gap(u, e) <= reach
    ]
    if not enemies:
        return None
    spec = u.unit.spec
    cavalry = u.unit.arm is Arm.CAVALRY and u.unit.order is not Order.SKIRMISH
    if cavalry:
        for e in enemies:
            if e.id in u.shot_at_by:
                return "close-combat cavalry shot at within charge reach", e
    if spec.troop_class in (TroopClass.D, TroopClass.E) or spec.irregular:
        for e in enemies:
            if e.routed_turn == game.turn and game.sees(u, e):
                return "saw an enemy break into rout within charge reach", e
    if (
        cavalry
        and spec.troop_class is TroopClass.A
        and u.unit.order is Order.CLOSE
        and not u.unit.disordered
    ):
        for e in enemies:
            close_cavalry = e.unit.arm is Arm.CAVALRY and e.unit.order is not Order.SKIRMISH
            if close_cavalry and not e.routing and game.sees(u, e):
                return "A class cavalry saw enemy cavalry within charge reach", e
    return None
