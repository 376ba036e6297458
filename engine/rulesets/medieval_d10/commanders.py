"""medieval-d10 Commander and Inspirational Figures ("Commander and Inspirational Figures"):
who stands with a unit, the friendly commanders a unit sees within 150 yds and the
Inspirational Figures that inspire it (THE MORALE / CONTROL TEST CHART's lines), its
contingent and contingent Commander, the most senior commander who rolls the Initiative, a
figure falling (MORALE reason 5), and the Inspirational Figures standing alone who walk to
join a unit in normal movement (GAME TURN SEQUENCE phases 11-12).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from engine.rulesets.medieval_d10.charts import CommanderKind, TerrainColumn
from engine.rulesets.medieval_d10.moves import STEP_M
from engine.rulesets.medieval_d10.state import CONTACT_M, R_FIGURE_KILLED, FigureState, UnitState
from engine.rulesets.medieval_d10.terrain import march_fraction, slope_class

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle

#: MOVEMENT CHART "Any Skirmish-order Infantry", class A, B, C or M, line: 20 cm; a lone
#: Inspirational Figure walks at it (docs/rules-interpretations.md, "Inspirational Figures alone")
LONE_FIGURE_CM = 20


def figures_with(game: MedievalBattle, u: UnitState) -> list[FigureState]:
    """The living Commander and Inspirational Figures in ``u``'s front rank."""
    return [f for f in game.figures.values() if f.alive and f.unit == u.id]


def unit_of(game: MedievalBattle, f: FigureState) -> UnitState:
    """The unit a figure stands with (a Commander figure always has one)."""
    if f.unit is None:
        raise ValueError(f"figure {f.id} stands alone, with no unit")
    return game.units[f.unit]


def present(game: MedievalBattle, f: FigureState) -> bool:
    return f.alive and (f.unit is None or game.units[f.unit].alive)


def commanders_near(game: MedievalBattle, u: UnitState) -> list[FigureState]:
    """Friendly Commander figures seen within 150 yds of ``u`` (not with it)."""
    reach = game.m(30)
    out = []
    for f in game.figures.values():
        if f.side != u.side or f.kind is None or f.unit == u.id or not present(game, f):
            continue
        fu = unit_of(game, f)
        if game.gap(u, fu) <= reach and game.sees(u, fu):
            out.append(f)
    return out


def inspired(game: MedievalBattle, u: UnitState) -> bool:
    """ "An Inspirational Figure is either with the testing Unit or seen within 150yds"."""
    reach = game.m(30)
    for f in game.figures.values():
        if f.side != u.side or f.kind is not None or not present(game, f):
            continue
        if f.unit is None:
            # alone on the field: seen within 150 yds of the unit's front or rear edge
            near = math.dist((u.x, u.y), (f.x, f.y)) - game.size(u)[1] / 2 <= reach
            if near and _sees_point(game, u, f.x, f.y):
                return True
            continue
        fu = unit_of(game, f)
        if fu is u or (game.gap(u, fu) <= reach and game.sees(u, fu)):
            return True
    return False


def _sees_point(game: MedievalBattle, u: UnitState, x: float, y: float) -> bool:
    try:
        return bool(game.bf.line_of_sight((u.x, u.y), (x, y)))
    except (ValueError, KeyError, IndexError):
        return False  # off the battlefield: out of sight


def move_lone_figures(game: MedievalBattle, side: str) -> None:
    """Phases 11-12, normal movement: each Inspirational Figure standing alone walks toward
    the unit it is to join (else the nearest friendly unit not routing) at the MOVEMENT
    CHART's "Any Skirmish-order Infantry" class A-C line rate (a lone figure on foot; the
    chart has no row for one: docs/rules-interpretations.md), paying the TERRAIN CHART as
    skirmishers do; reaching the unit it joins its front rank ("with the testing Unit"; the
    MELEE CHART's "in the front rank")."""
    for f in game.figures.values():
        if f.side != side or f.unit is not None or not f.alive or f.kind is not None:
            continue
        friends = [u for u in game.alive(side) if not u.routing]
        if f.join is not None:
            friends = [u for u in friends if u.id == f.join]
        if not friends:
            continue
        goal = min(
            friends, key=lambda u: (math.dist((u.x, u.y), (f.x, f.y)) - game.size(u)[1], u.id)
        )
        rate = game.m(LONE_FIGURE_CM)
        # the walk is swept here (x, y) and the figure placed once, where it ends
        spent, x0, y0 = 0.0, f.x, f.y
        x, y = x0, y0
        while spent < rate - 1e-9:
            centre = math.dist((goal.x, goal.y), (x, y))
            d = centre - game.size(goal)[1] / 2
            if d <= CONTACT_M or centre < 1e-9:
                break
            ux, uy = (goal.x - x) / centre, (goal.y - y) / centre
            step = min(STEP_M, d)
            nx, ny = x + ux * step, y + uy * step
            terrain, _ = game.terrain_at(nx, ny)
            slope = slope_class(float(game.bf.slope_at(nx, ny)))
            uphill = game.elevation(nx, ny) > game.elevation(x, y)
            frac = march_fraction(
                TerrainColumn.SKIRMISH, terrain, slope, uphill=uphill, cavalry=False
            )
            if frac is None or frac <= 0:
                break
            if spent + step / float(frac) > rate:
                step = (rate - spent) * float(frac)  # the last of the move
                nx, ny = x + ux * step, y + uy * step
                spent = rate
            else:
                spent += step / float(frac)
            x, y = nx, ny
        moved = math.dist((x0, y0), (x, y))
        joined = math.dist((goal.x, goal.y), (x, y)) - game.size(goal)[1] / 2 <= CONTACT_M
        if joined:
            # with the unit now: its base stands at the unit's place and goes with it
            f.unit, f.join = goal.id, None
            assert f.lone is not None  # (a figure alone stands on a core formation)
            goal.followers.append(f.lone)
            x, y = goal.x, goal.y
        if (x, y) != (x0, y0) or joined:
            f.walk_to(x, y)
            game.placed()
        game.log("figure_moves", goal.id, figure=f.id, metres=round(moved, 1), joined=joined)


def contingent_commander(game: MedievalBattle, u: UnitState) -> FigureState | None:
    """The Commander figure of ``u``'s contingent (its most senior at deployment)."""
    cands = [
        f
        for f in game.figures.values()
        if f.side == u.side and f.kind is not None and f.contingent == u.contingent
    ]
    return min(cands, key=lambda f: f.seniority) if cands else None


def contingent_lost(game: MedievalBattle, u: UnitState) -> tuple[bool, FigureState | None]:
    """ "The testing Unit's contingent Commander figure is either killed, wounded or not in
    sight": (whether so, the figure). A commander whose unit has left the field is not in
    sight; with no contingent commander on the table the line never applies."""
    c = contingent_commander(game, u)
    if c is None:
        return False, None
    if not c.alive:
        return True, c
    cu = unit_of(game, c)
    if not cu.alive:
        return True, c
    return (cu is not u and not game.sees(u, cu)), c


def initiative_commander(game: MedievalBattle, side: str) -> CommanderKind | None:
    """Initiative: "If several commanders (players) are present, the most senior will roll":
    the army commander while his figure lives (or when he has none on the table), else the
    most senior surviving Commander figure; None (no modifier) when none survives."""
    figs = [f for f in game.figures.values() if f.side == side and f.kind is not None]
    general = next((f for f in figs if f.general), None)
    if general is None or present(game, general):
        return game.commanders[side]
    alive = sorted((f for f in figs if present(game, f)), key=lambda f: f.seniority)
    return alive[0].kind if alive else None


def figure_falls(game: MedievalBattle, fig: FigureState, why: str) -> None:
    """A Commander or Inspirational Figure is killed: its unit loses it, friendly units that
    see it fall within 150 yds test (MORALE reason 5), and an Inspirational Figure's death
    stays with those who saw it ("has seen an Inspirational Figure killed or wounded")."""
    fig.alive, fig.killed_turn = False, game.turn
    u = unit_of(game, fig)
    if fig.kind is not None:
        left = [f.kind for f in figures_with(game, u) if f.kind is not None]
        u.commander = left[0] if left else None
    game.log(
        "figure_killed",
        u.id,
        figure=fig.id,
        role="inspirational" if fig.inspirational else "commander",
        commander_kind=None if fig.kind is None else fig.kind.value,
        general=fig.general,
        reason=why,
    )
    reach = game.m(30)
    what = "Inspirational Figure" if fig.inspirational else "Commander figure"
    for o in game.alive(fig.side):
        if o is u or (game.gap(o, u) <= reach and game.sees(o, u)):
            o.pending.append((R_FIGURE_KILLED, f"saw {what} {fig.id} killed"))
            if fig.inspirational:
                o.saw_inspirational_lost = True


def assign_contingents(units: Iterable[UnitState], figures: Iterable[FigureState]) -> None:
    """Each unit's contingent ("Each army should be divided into a number of contingents"): that
    of the Commander figure with it, else its troop list's ``contingent``, else that of the
    nearest Commander figure of its side at deployment (the "Battle" it stands in; the reading
    is in docs/rules-interpretations.md)."""
    units = list(units)
    by_id = {u.id: u for u in units}
    # Commander figures always stand with a unit (MedievalBattle refuses a lone one)
    home = {
        f.id: by_id[f.unit]
        for f in figures
        if f.kind is not None and f.unit is not None and f.unit in by_id
    }
    cmd = sorted((f for f in figures if f.id in home), key=lambda f: f.seniority)
    for f in cmd:
        if home[f.id].contingent is None:
            home[f.id].contingent = f.contingent
    for u in units:
        if u.contingent is not None:
            continue
        if u.unit.spec.contingent:
            u.contingent = u.unit.spec.contingent
            continue
        own = [f for f in cmd if f.side == u.side]
        if own:
            near = min(
                own,
                key=lambda f: (
                    math.dist((u.x, u.y), (home[f.id].x, home[f.id].y)),
                    f.seniority,
                ),
            )
            u.contingent = near.contingent
