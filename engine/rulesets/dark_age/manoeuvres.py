"""Dark Age 5.18, 5.22, 5.23 manoeuvres as orders: a side's ``manoeuvres`` in the scenario (a
bound, its formations, the manoeuvre) and the automatic commander's own choice, each made in
the movement phase at the chapter's cost in move and DPs and logged as a ``manoeuvre`` event
with its section.

Readings (docs/rules-interpretations.md, "Dark Age manoeuvres as orders"):

- a formation change (5.18) re-arranges the living stands on the spot, the front rank's centre
  kept: column one stand wide; shieldwall two ranks from four stands, else one; cuneus two
  wide (cuneus troops, 4-6 stands: 5.3, 5.4). ½ move (the rolled allowance halved, 5.28
  second), 1 DP within bow range of an enemy (the nearest enemy's gap <= 5.8's bow range).
- doubling ranks (5.22) takes a one-rank shieldwall to two, halving takes two to one (5.3: a
  shieldwall is "in one or two ranks"); ½ move, 1 DP for C Grade.
- about face (5.21) on an order: formed units turn where they stand (the rear rank the new
  front), ½ move, 1 DP for C Grade (not elephants) and for mounted troops turning before they
  move; what is left of a rolled move is as in :func:`.battle.about_faces`.
- side-step / step-back (5.23): A and B Grade infantry in shieldwall move one javelin throw to
  a flank or back instead of their move, no dice, the whole move phase.
- a manoeuvre the unit may not make (wrong formation, grade or troops), or whose new place
  overlaps another body, is not made: ``manoeuvre_refused`` says why.
- the automatic commander: a steady unit in column (not in a March Column) with an enemy
  within bow range forms shieldwall (5.18; 5.3 "Column: a marching formation ... not combat").
"""

from __future__ import annotations

import dataclasses
import enum
import math
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.log import Event
from engine.rulesets.dark_age.formations import CUNEUS_TROOPS, CommandFormation, Formation
from engine.rulesets.dark_age.movement import (
    JAVELIN_THROW_M,
    Cost,
    TimeCost,
    about_face_cost,
    double_ranks_cost,
    formation_change_cost,
    half_move,
    may_side_step,
)
from engine.state import Morale

__all__ = ["ManoeuvreOrder", "ManoeuvreRefused", "OrderedManoeuvre", "manoeuvres"]


class ManoeuvreOrder(enum.StrEnum):
    """The manoeuvres a scenario may order (``sides[].manoeuvres[].manoeuvre``)."""

    FORM_COLUMN = "form_column"  # 5.18
    FORM_SHIELDWALL = "form_shieldwall"  # 5.18
    FORM_CUNEUS = "form_cuneus"  # 5.18
    DOUBLE_RANKS = "double_ranks"  # 5.22
    HALVE_RANKS = "halve_ranks"  # 5.22
    SIDE_STEP_LEFT = "side_step_left"  # 5.23
    SIDE_STEP_RIGHT = "side_step_right"  # 5.23
    STEP_BACK = "step_back"  # 5.23
    ABOUT_FACE = "about_face"  # 5.21


_SECTION = {
    ManoeuvreOrder.FORM_COLUMN: "5.18",
    ManoeuvreOrder.FORM_SHIELDWALL: "5.18",
    ManoeuvreOrder.FORM_CUNEUS: "5.18",
    ManoeuvreOrder.DOUBLE_RANKS: "5.22",
    ManoeuvreOrder.HALVE_RANKS: "5.22",
    ManoeuvreOrder.SIDE_STEP_LEFT: "5.23",
    ManoeuvreOrder.SIDE_STEP_RIGHT: "5.23",
    ManoeuvreOrder.STEP_BACK: "5.23",
    ManoeuvreOrder.ABOUT_FACE: "5.21",
}


@dataclass(frozen=True, slots=True)
class OrderedManoeuvre(Event):
    """A manoeuvre made on an order (``by``: ``scenario`` or ``commander``): its name and
    section, the time it took, the DPs it cost, the frontage before and after."""

    type: ClassVar[str] = "manoeuvre"
    formation: str
    manoeuvre: str
    section: str
    time: str
    dps: int
    by: str
    frontage: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class ManoeuvreRefused(Event):
    """An ordered manoeuvre the unit may not make, and why."""

    type: ClassVar[str] = "manoeuvre_refused"
    formation: str
    manoeuvre: str
    section: str
    reason: str


def _new_frontage(order: ManoeuvreOrder, troop: Any, form: Formation, f: Any) -> int | str:
    """The frontage the manoeuvre gives, or why it may not be made."""
    n, ranks = f.n_alive, f.ranks
    if order is ManoeuvreOrder.FORM_COLUMN:
        return 1 if form is not Formation.COLUMN else "already in column"
    if order is ManoeuvreOrder.FORM_SHIELDWALL:
        if form is Formation.SHIELDWALL:
            return "already in shieldwall"
        return math.ceil(n / 2) if n >= 4 else n
    if order is ManoeuvreOrder.FORM_CUNEUS:
        if troop not in CUNEUS_TROOPS:
            return "only shock troops, Dark Age and Roman infantry form cuneus (5.3)"
        if not 4 <= n <= 6 or form is Formation.CUNEUS:
            return "a cuneus is 4-6 stands, 2-3 ranks of at most 2 (5.3, 5.4)"
        return 2
    if form is not Formation.SHIELDWALL:
        return "only a shieldwall doubles or halves its ranks (5.22)"
    if order is ManoeuvreOrder.DOUBLE_RANKS:
        if ranks != 1 or n < 2:
            return "a shieldwall is one or two ranks: only one rank doubles (5.3, 5.22)"
        return math.ceil(n / 2)
    if ranks != 2:
        return "a shieldwall is one or two ranks: only two ranks halve (5.3, 5.22)"
    return n


def _clash(ctx: Any, f: Any) -> bool:
    from engine.geometry import obb_array, overlaps

    others = [x.obb() for g in ctx.state.active() if g is not f for x in g.alive_bases
              if math.hypot(x.x - f.cx, x.y - f.cy) < 500.0]  # fmt: skip
    if not others:
        return False
    arr = obb_array(others)
    return any(bool(overlaps(b.obb(), arr, tol=0.5).any()) for b in f.alive_bases)


def _reform(ctx: Any, f: Any, frontage: int) -> bool:
    """Re-arrange the living stands ``frontage`` wide on the spot, the front rank's centre kept;
    False (nothing changed) if the new block overlaps another body."""
    from engine.geometry import forward
    from engine.rulesets.dark_age.ranks import slots_for

    saved = ({b.id: (b.x, b.y, b.rank, b.file) for b in f.bases}, f.frontage, f.cx, f.cy)
    fx, fy = forward(f.facing)
    front_x = f.cx + fx * (f.ranks - 1) / 2.0 * f.base_d
    front_y = f.cy + fy * (f.ranks - 1) / 2.0 * f.base_d
    alive = sorted(f.alive_bases, key=lambda b: (b.rank, b.file))
    places = slots_for(len(alive), frontage)
    for b, (r, c) in zip(alive, places, strict=True):
        b.rank, b.file = r, c
    last = max(r for r, _c in places)
    for b in f.bases:
        if b not in alive:
            b.rank, b.file = last, 0  # the dead stay where they fell (ranks.py)
    f.frontage = frontage
    back = (f.ranks - 1) / 2.0 * f.base_d
    f.cx, f.cy = front_x - fx * back, front_y - fy * back
    f.place()
    if _clash(ctx, f):
        bases, f.frontage, f.cx, f.cy = saved
        for b in f.bases:
            b.x, b.y, b.rank, b.file = bases[b.id]
        return False
    ctx.state.version += 1
    return True


def _step(ctx: Any, f: Any, order: ManoeuvreOrder) -> bool:
    """5.23: one javelin throw to the left or right, or back, the facing kept."""
    from engine.geometry import forward, right
    from engine.movement import footprint_classes
    from engine.rulesets.dark_age.terrain import DarkAgeTerrain

    if order is ManoeuvreOrder.STEP_BACK:
        dx, dy = forward(f.facing)
        dx, dy = -dx, -dy
    else:
        dx, dy = right(f.facing)
        if order is ManoeuvreOrder.SIDE_STEP_LEFT:
            dx, dy = -dx, -dy
    cx, cy = f.cx, f.cy
    f.set_pose(cx + dx * JAVELIN_THROW_M, cy + dy * JAVELIN_THROW_M, f.facing)
    classes, off_map = footprint_classes(ctx.bf, f, "move")
    blocked = {int(DarkAgeTerrain.IMPASSABLE), int(DarkAgeTerrain.MAJOR_OBSTACLE)}
    if off_map or _clash(ctx, f) or blocked & set(classes):
        f.set_pose(cx, cy, f.facing)
        return False
    ctx.state.version += 1
    f.moved_m = max(f.moved_m, JAVELIN_THROW_M)
    return True


def _within_bow(ctx: Any, f: Any, bow_m: float) -> bool:
    from engine.geometry import distance, obb_array

    foes = [g for g in ctx.state.active() if g.side != f.side]
    if not foes or bow_m <= 0:
        return False
    return float(distance(f.obb(), obb_array([g.obb() for g in foes])).min()) <= bow_m


def _ordered(ctx: Any) -> list[tuple[str, ManoeuvreOrder, str]]:
    """This bound's manoeuvres: the scenario's, then the commander's own (:mod:`.manoeuvres`)."""
    from engine.rulesets.dark_age.battle import chapter_view
    from engine.rulesets.dark_age.command import member_of

    out: list[tuple[str, ManoeuvreOrder, str]] = []
    sc = ctx.scenario
    given: set[str] = set()
    if sc is not None:
        for side in sc.sides:
            for m in side.manoeuvres:
                if m.bound == ctx.state.bound:
                    for fid in m.formations:
                        out.append((fid, ManoeuvreOrder(m.manoeuvre), "scenario"))
                        given.add(fid)
    bow = ctx.bow_range_m or 0.0
    for f in ctx.state.active():
        if f.id in given or f.morale is not Morale.STEADY or f.loose:
            continue
        cf = member_of(ctx, f.id)
        if cf is not None and cf.kind is CommandFormation.MARCH_COLUMN:
            continue
        if f.n_alive >= 2 and chapter_view(f)[2] is Formation.COLUMN and _within_bow(ctx, f, bow):
            out.append((f.id, ManoeuvreOrder.FORM_SHIELDWALL, "commander"))
    return out


def manoeuvres(ctx: Any, phase: str) -> list[Event]:
    """Make this bound's ordered manoeuvres (after the move rolls, before the moves): each at
    its cost, the rolled allowance halved for ½ move, the move given up for a whole phase."""
    from engine.movement import MovePlan
    from engine.rulesets.dark_age.battle import Disorder, chapter_view, turn_about
    from engine.rulesets.dark_age.movement import DisorderPoints

    events: list[Event] = []
    bow = ctx.bow_range_m or 0.0
    for fid, order, by in _ordered(ctx):
        f = ctx.state.formations[fid]
        section = _SECTION[order]
        if f.removed or f.morale is not Morale.STEADY or ctx.state.contacts.get(fid):
            events.append(ManoeuvreRefused(phase, fid, order.value, section,
                                           "not steady and out of contact"))  # fmt: skip
            continue
        troop, grade, form = chapter_view(f)
        before = f.frontage
        cost: Cost
        if section == "5.23":
            if not may_side_step(troop, grade, form):
                why = "only A and B Grade infantry in shieldwall"
                events.append(ManoeuvreRefused(phase, fid, order.value, section, why))
                continue
            if not _step(ctx, f, order):
                events.append(ManoeuvreRefused(phase, fid, order.value, section,
                                               "its new place is taken or impassable"))  # fmt: skip
                continue
            cost = Cost(TimeCost.FULL, 0)
        elif order is ManoeuvreOrder.ABOUT_FACE:
            if form not in (Formation.SHIELDWALL, Formation.COLUMN, Formation.CUNEUS):
                why = "unformed troops and single models face all round (5.16, 5.21)"
                events.append(ManoeuvreRefused(phase, fid, order.value, section, why))
                continue
            if not turn_about(f):
                why = "a part-filled rank would shift as it came to the front"
                events.append(ManoeuvreRefused(phase, fid, order.value, section, why))
                continue
            ctx.state.version += 1
            cost = about_face_cost(troop, grade, form, moved_first=False)
            rolled = ctx.move_rolls.get(fid)
            if rolled is not None:  # 5.21 as in battle.about_faces: the turn is in the roll
                full_m = rolled[2].allowance.least * JAVELIN_THROW_M
                turn_m = max(math.hypot(x.w, x.d) for x in f.alive_bases)
                half_m = half_move(rolled[2].allowance).least * JAVELIN_THROW_M
                ctx.about_faced[fid] = (full_m, max(0.0, min(half_m, full_m - turn_m)))
        else:
            width = _new_frontage(order, troop, form, f)
            if isinstance(width, str):
                events.append(ManoeuvreRefused(phase, fid, order.value, section, width))
                continue
            if not _reform(ctx, f, width):
                events.append(ManoeuvreRefused(phase, fid, order.value, section,
                                               "its new place is taken"))  # fmt: skip
                continue
            if section == "5.22":
                cost = double_ranks_cost(grade, form)
            else:
                cost = formation_change_cost(_within_bow(ctx, f, bow))
        ctx.start_facing[fid] = f.facing
        if cost.time is TimeCost.FULL:
            ctx.plans[fid] = MovePlan(fid, "none")
            ctx.move_rolls.pop(fid, None)
        elif fid in ctx.move_rolls:
            t, _form, roll = ctx.move_rolls[fid]
            halved = dataclasses.replace(roll, allowance=half_move(roll.allowance))
            ctx.move_rolls[fid] = (t, chapter_view(f)[2], halved)
        events.append(OrderedManoeuvre(phase, fid, order.value, section, cost.time.value,
                                       cost.dps, by, (before, f.frontage)))  # fmt: skip
        if cost.dps:
            dp = ctx.dps.get(fid, DisorderPoints()).incur(
                cost.dps, f"{order.value} b{ctx.state.bound}"
            )
            ctx.dps[fid] = dp
            events.append(Disorder(phase, fid, cost.dps, dp.total, f"{order.value} ({section})",
                                   chapter_view(f)[2].value))  # fmt: skip
    return events
