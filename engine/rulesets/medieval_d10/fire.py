"""medieval-d10 firing (the FIRING CHART) and the losses a unit takes: the target a unit with
missiles shoots at, the shot (gunpowder artillery through the ARTILLERY chart's misfires), and the
figures lost, each Commander or Inspirational Figure in the front rank at risk. Shots are made
in normal movement (GAME TURN SEQUENCE phases 11-12) and as reaction fire at chargers (8-9).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from engine.rulesets.medieval_d10.charts import FIRING_RANGES, range_band
from engine.rulesets.medieval_d10.commanders import figure_falls, figures_with
from engine.rulesets.medieval_d10.procedures import firing_need, roll_artillery, roll_casualties
from engine.rulesets.medieval_d10.state import R_CASUALTIES, R_FIRST_FIRE, UnitState
from engine.rulesets.medieval_d10.terrain import Cover, Terrain
from engine.rulesets.medieval_d10.units import Arm, Formation, Order

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle


def missile_target(game: MedievalBattle, u: UnitState) -> UnitState | None:
    """FIRING RANGES CHART: the nearest enemy within ``u``'s weapon's longest band (None:
    none, or no missile weapon)."""
    weapon = u.unit.spec.missile
    if weapon is None or not game.special.may_shoot(u.id, u.side):
        return None  # no missiles, or none left (special rule limited_missile_supply)
    best, best_d = None, math.inf
    # a band needs the range, rounded up, within the longest band: no enemy further than
    # that centimetre more (and a metre to spare) can be the target
    longest = max(limit.cm for limit in FIRING_RANGES[weapon].values())
    for e in game.nearby.near(u, game.m(longest + 1) + 1.0, game.enemy_of(u.side)):
        d = max(0.0, game.gap(u, e))
        band = range_band(weapon, game.scale.chart_cm(d))
        if band is None or d >= best_d:
            continue
        best, best_d = e, d
    return best


def smoked(game: MedievalBattle, target: UnitState) -> bool:
    """FIRING CHART "Target partially obscured by gun smoke": the target itself fired
    gunpowder weapons (guns, handgonnes, arquebuses ...) this Game Turn or the last, and its
    own smoke hangs in front of it (docs/rules-interpretations.md, "FIRING CHART: resting and
    gun smoke")."""
    weapon = target.unit.spec.missile
    return weapon is not None and weapon.is_gunpowder and target.fired_turn >= game.turn - 1


def fire(game: MedievalBattle, u: UnitState, target: UnitState, reaction: bool = False) -> int:
    """FIRING CHART: ``u`` shoots at ``target``; returns figures killed."""
    weapon = u.unit.spec.missile
    assert weapon is not None
    if u.unit.arm is Arm.ARTILLERY and u.unit.limbered:
        return 0  # limbered guns cannot fire
    if not game.special.may_shoot(u.id, u.side):
        return 0  # out of missiles (special rule limited_missile_supply): no reaction fire
    d = max(0.0, game.gap(u, target))
    band = range_band(weapon, game.scale.chart_cm(d))
    if band is None:
        return 0
    _, cover = game.terrain_at(target.x, target.y)
    ground, _ = game.terrain_at(u.x, u.y)
    factors: dict[str, int] = {
        # "infantry, 'resting' their Crossbows or Firearms on walls, fences etc.": foot
        # standing on the TERRAIN CHART's Wall, Fence, Hedge ground (the weapons are
        # filtered by firing_need)
        "resting": int(u.unit.arm is Arm.INFANTRY and ground is Terrain.WALL_FENCE_HEDGE),
        "gun_smoke": int(smoked(game, target)),
        "under_fire": int(u.under_fire_turn >= game.turn - 1),
        "moving_target": int(target.moving_turn >= game.turn - 1),
        "soft_cover": int(cover is Cover.SOFT),
        "hard_cover": int(cover is Cover.HARD),
        "loose_order_foot": int(
            target.unit.order is Order.LOOSE and target.unit.arm is Arm.INFANTRY
        ),
        "skirmishers_or_deployed_artillery": int(
            target.unit.order is Order.SKIRMISH
            or (target.unit.arm is Arm.ARTILLERY and not target.unit.limbered)
        ),
        "limbered_artillery_or_wagons": int(
            target.unit.arm is Arm.ARTILLERY and target.unit.limbered
        ),
        "three_ranks_deep": int(game.ranks(target) >= 3),
        "column_or_schiltron": int(target.unit.formation is Formation.COLUMN),
        "light_rain": int(game.weather == "light_rain"),
        "heavy_rain": int(game.weather == "heavy_rain"),
        "first_shot": int(weapon.is_gunpowder and u.shots_fired == 0),
        "fourth_volley": int(u.volleys >= 3),
        "shields": int(target.unit.spec.shields),
        "barded_horses": int(target.unit.spec.barded),
    }
    need = firing_need(weapon, band, target.unit.armour, u.unit.spec.troop_class, factors)
    purpose = f"{u.id} fires at {target.id}"
    if u.unit.arm is Arm.ARTILLERY:
        roll = roll_artillery(game.dice, u.unit.figures_left, need, purpose)
        kills = roll.kills
        if roll.exploded:
            # an exploded gun model is lost (one figure per gun)
            game.log("gun_exploded", u.id, guns=roll.exploded)
            take_losses(game, u, roll.exploded)
        faces: list[int] = list(roll.faces)
    else:
        cas = roll_casualties(
            game.dice, u.unit.figures_left, need, part_dice=game.part_dice, purpose=purpose
        )
        kills, faces = cas.kills, list(cas.faces)
    u.shots_fired += 1
    from engine.rulesets.medieval_d10.game import phase_name  # (game imports this module)

    dry = game.special.spend_volley(u.id, u.side, phase_name(game.phase))
    if dry is not None:
        game.special_events.append(dry)
    u.volleys = u.volleys + 1 if u.fired_turn >= game.turn - 1 else 1
    u.fired_turn = game.turn
    u.moved = True
    take_losses(game, target, kills, risk="firing")
    target.under_fire_turn = game.turn
    target.under_fire_by.add(u.id)
    target.shot_at_by.add(u.id)
    if not target.ever_under_fire:
        target.ever_under_fire = True
        target.pending.append((R_FIRST_FIRE, "first time under fire"))
    if kills:
        target.pending.append((R_CASUALTIES, "casualties from firing"))
    game.log(
        "fire",
        u.id,
        target=target.id,
        band=band.value,
        need=need,
        faces=faces,
        kills=kills,
        reaction=reaction,
    )
    return kills


#: percentile dice: two d10 read as tens and units, 01-100
PERCENTILE = 100


def percentile(tens: int, units: int) -> int:
    """Two d10 (faces 1-10, the 10 read as 0) read as tens and units, "00" as 100.

    >>> percentile(5, 1), percentile(5, 10), percentile(10, 1), percentile(10, 10)
    (51, 50, 1, 100)
    """
    return (tens % 10) * 10 + units % 10 or PERCENTILE


def take_losses(game: MedievalBattle, u: UnitState, kills: int, risk: str | None = None) -> None:
    """``u`` loses ``kills`` figures. With ``risk`` (firing or melee) each Commander or
    Inspirational Figure in its front rank is at risk as one of that rank's figures: percentile
    dice (two d10, 01-100), killed on a score of 100 x ``kills`` / the front rank's figures or
    less (docs/rules-interpretations.md, "Commander deaths"). A unit that loses all its
    figures loses its figures too."""
    if kills <= 0:
        return
    # the figures at risk stood in the front rank as the blows fell: its width before the loss
    front = game.files(u)
    # the figures fall on the core's formation at once (its bases, rear ranks first)
    fallen = game.fallen()
    lost = u.lose(kills, fallen)
    u.casualties_turn += kills
    fell = False
    for fig in figures_with(game, u):
        if u.unit.figures_left <= 0:
            figure_falls(game, fig, "all the unit's figures lost")
            fell = True
        elif risk is not None:
            purpose = f"{fig.id} at risk in {u.id} ({risk})"
            # the game's dice are d10s: a pair of them read as percentile dice
            face = percentile(*game.dice.roll(2, purpose, 10).faces)
            # face <= 100 * kills / front, in integers (no rounding of the chance)
            if face * front <= PERCENTILE * kills:
                why = f"{risk}: percentile {face} <= {kills} of {front} front-rank figures lost"
                figure_falls(game, fig, why)
                fell = True
    if fell:  # a fallen figure is one of the figures lost: its base among them
        u.relose(lost, game.fallen())
    if u.unit.figures_left <= 0:
        game.destroy(u, "all figures lost")
