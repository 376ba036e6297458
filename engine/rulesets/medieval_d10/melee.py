"""medieval-d10 GAME TURN SEQUENCE phase 13, Melee Calculations: every pair of units in
base-to-base contact strikes at once by the MELEE CHART; the loser and both sides of a draw
test in phase 15 (MORALE reason 4), the winner may have to control its follow-up (phase 16).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from engine.rulesets.medieval_d10.charts import ArmourGrade
from engine.rulesets.medieval_d10.commanders import figures_with
from engine.rulesets.medieval_d10.fire import take_losses
from engine.rulesets.medieval_d10.procedures import CasualtyRoll, melee_need, roll_casualties
from engine.rulesets.medieval_d10.state import CONTACT_M, R_DRAWN_LOST, Mode, UnitState
from engine.rulesets.medieval_d10.terrain import Cover
from engine.rulesets.medieval_d10.units import PIKE_SPEAR_HALBERD, Arm, MeleeWeapon, Order

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle


def strikes(a: CasualtyRoll | None, b: CasualtyRoll | None) -> dict[str, Any]:
    """A melee's two strikes for its record: each side's kill score and d10s (MELEE CHART),
    left out for a side that did not strike."""
    out: dict[str, Any] = {}
    for key, r in (("a", a), ("b", b)):
        if r is not None:
            out[f"need_{key}"], out[f"faces_{key}"] = r.need, list(r.faces)
    return out


def phase_melee(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 13, Melee Calculations: the pairs in contact as the phase
    opens strike at once (MELEE CHART); losers and both sides of a draw test in phase 15."""
    pairs: list[tuple[UnitState, UnitState]] = []
    for a in game.alive(game.side_a):
        for b in game.nearby.near(a, CONTACT_M, game.side_b):
            if game.in_contact(a, b):
                pairs.append((a, b))
    for a, b in pairs:
        if not (a.alive and b.alive):
            continue
        ra, rb = strike(game, a, b), strike(game, b, a)
        ka, kb = (0 if r is None else r.kills for r in (ra, rb))
        take_losses(game, b, ka, risk="melee")
        take_losses(game, a, kb, risk="melee")
        game.log("melee", None, a=a.id, b=b.id, kills_by_a=ka, kills_by_b=kb, **strikes(ra, rb))
        if ka == kb:  # a draw: both sides test (MORALE reason 4), no one is beaten
            for u in (a, b):
                u.melee_lost = True
                u.pending.append((R_DRAWN_LOST, "drawn or lost melee"))
            continue
        winner, loser = (a, b) if ka > kb else (b, a)
        loser.melee_lost = True
        loser.pending.append((R_DRAWN_LOST, "drawn or lost melee"))
        # the winner: a Control Test in phase 16 if its foe breaks, or if it is pushed back
        # and the winner does not wish to follow up (THE CONTROL TEST reasons 1-2)
        winner.control_reasons.append(f"won melee against {loser.id}")
        winner.target = loser.id
        if loser.beaten_by is None:  # the first winner pushes it back (declared in phase 15)
            loser.beaten_by = winner.id


def fighting_figures(game: MedievalBattle, u: UnitState, foe: UnitState) -> int:
    """MELEE CHART "Roll one d10 for every five figures in the fighting unit": the figures
    that fight are those in base-to-base contact with ``foe`` (Automatic Kills: "figures in
    contact with the enemy", "fighting against the same enemy unit"), its front-rank figures
    across the frontage the two units share; the ranks behind count only as the chart's
    "supporting figure-rank" modifiers (docs/rules-interpretations.md, "MELEE CHART: the
    figures in contact fight"). A figure whose base overlaps the foe's front at all counts."""
    front, _ = game.size(u)
    files = game.files(u)
    figure_w = front / files
    shared = min(front, game.size(foe)[0])
    touching = math.ceil(shared / figure_w - 1e-9)
    return max(1, min(files, touching, u.unit.figures_left))


def strike(game: MedievalBattle, u: UnitState, foe: UnitState) -> CasualtyRoll | None:
    """MELEE CHART: ``u`` strikes ``foe`` (None: it does not; routing units do not strike
    back, nor do guns)."""
    if u.routing or not u.alive:
        return None
    if u.unit.arm is Arm.ARTILLERY:
        return None
    row = u.unit.melee_row(charging=u.charged_this_turn)
    _, cover = game.terrain_at(foe.x, foe.y)
    cav = u.unit.arm is Arm.CAVALRY
    foe_formed_pike = (
        foe.unit.arm is Arm.INFANTRY
        and foe.unit.order is Order.CLOSE
        and not foe.unit.disordered
        and foe.unit.spec.melee in PIKE_SPEAR_HALBERD
    )
    pike_ranks = (
        min(3, game.ranks(foe) - 1)
        if (foe_formed_pike and foe.unit.spec.melee is MeleeWeapon.PIKE)
        else 0
    )
    halberd = int(
        foe_formed_pike and foe.unit.spec.melee is not MeleeWeapon.PIKE and game.ranks(foe) >= 2
    )
    factors = {
        "charging": int(u.charged_this_turn),
        "pushed_back": int(u.pushed_back_turn == game.turn),
        "upslope": int(game.elevation(u.x, u.y) > game.elevation(foe.x, foe.y) + 1.0),
        "impetuous": int(
            u.unit.spec.impetuous and (u.charged_this_turn or u.mode is Mode.PURSUING)
        ),
        "vs_formed_pike_infantry": int(foe_formed_pike and not cav),
        "vs_formed_pike_cavalry": int(foe_formed_pike and cav),
        "pike_rank": pike_ranks,
        "halberd_rank": halberd,
        "soft_cover_infantry": int(cover is Cover.SOFT and not cav),
        "hard_cover_infantry": int(cover is Cover.HARD and not cav),
        "soft_cover_cavalry": int(cover is Cover.SOFT and cav),
        "hard_cover_cavalry": int(cover is Cover.HARD and cav),
        "shields": int(foe.unit.spec.shields),
        "free_hack": int(foe.routing),
        "commander_front_rank": int(bool(figures_with(game, u))),
        "mounted_infantry": int(u.unit.spec.mounted_infantry and cav),
    }
    armour: ArmourGrade = foe.unit.armour
    need = melee_need(row, u.unit.spec.troop_class, armour, factors)
    roll = roll_casualties(
        game.dice,
        fighting_figures(game, u, foe),
        need,
        automatic_kills=game.automatic_kills,
        part_dice=game.part_dice,
        purpose=f"{u.id} strikes {foe.id}",
    )
    return roll
