"""Dark Age 5.17-5.29 manoeuvres as orders: a side's ``manoeuvres`` in the scenario (a
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
- wheel (5.17), incline (5.26), slow walk (5.24): the unit's own normal move (not a charge, not
  its Battle Line's shared roll); a wheel pivots on the front corner of the end it turns toward,
  by the ordered degrees or as far as the roll carries the outside rear corner, 1 DP in
  shieldwall; an incline (A Grade infantry in shieldwall) goes half the roll in whole javelin
  throws aside and as much forwards; the rest of the roll goes straight ahead, short of 5.8's
  halt. A slow walk (A and B Grade formed) is 1 jt ahead without dice.
- passing a gap (5.28 first): a shieldwall halves its frontage, 1 DP, infantry at ½ move, and
  expands back after its move (:func:`expand_after_gaps`).
- a manoeuvre the unit may not make (wrong formation, grade or troops), or whose new place
  overlaps another body, is impassable to it or off the table (5.29: no unit moves off
  voluntarily), is not made: ``manoeuvre_refused`` says why.
- the automatic commander: a steady unit in column (not in a March Column) with an enemy
  within bow range forms shieldwall (5.18; 5.3 "Column: a marching formation ... not combat").
"""

from __future__ import annotations

import dataclasses
import enum
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from engine.log import Draw, Event, Names, keep_ids
from engine.rulesets.dark_age.formations import CUNEUS_TROOPS, CommandFormation, Formation
from engine.rulesets.dark_age.movement import (
    JAVELIN_THROW_M,
    Allowance,
    Cost,
    MoveRoll,
    TimeCost,
    about_face_cost,
    double_ranks_cost,
    formation_change_cost,
    half_move,
    may_incline,
    may_side_step,
    may_slow_walk,
    pass_gap_cost,
    wheel_cost,
)
from engine.state import Morale

__all__ = [
    "ManoeuvreOrder",
    "ManoeuvreRefused",
    "OrderedManoeuvre",
    "expand_after_gaps",
    "manoeuvres",
    "moving_by_order",
    "ordered_this_bound",
]


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
    WHEEL_LEFT = "wheel_left"  # 5.17
    WHEEL_RIGHT = "wheel_right"  # 5.17
    INCLINE_LEFT = "incline_left"  # 5.26
    INCLINE_RIGHT = "incline_right"  # 5.26
    SLOW_WALK = "slow_walk"  # 5.24
    PASS_GAP = "pass_gap"  # 5.28 (first)
    DISMOUNT = "dismount"  # 5.25
    MOUNT = "mount"  # 5.25


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
    ManoeuvreOrder.WHEEL_LEFT: "5.17",
    ManoeuvreOrder.WHEEL_RIGHT: "5.17",
    ManoeuvreOrder.INCLINE_LEFT: "5.26",
    ManoeuvreOrder.INCLINE_RIGHT: "5.26",
    ManoeuvreOrder.SLOW_WALK: "5.24",
    ManoeuvreOrder.PASS_GAP: "5.28",
    ManoeuvreOrder.DISMOUNT: "5.25",
    ManoeuvreOrder.MOUNT: "5.25",
}
#: 5.17: a wheel ordered without ``degrees`` turns this far (as far as the roll allows)
DEFAULT_WHEEL_DEG = 45.0


@dataclass(frozen=True, slots=True)
class OrderedManoeuvre(Event):
    """A manoeuvre made on an order (``by``: ``scenario`` or ``commander``): its name and
    section, the time it took, the DPs it cost, the frontage before and after."""

    type: ClassVar[str] = "manoeuvre"
    draw: ClassVar[Draw] = Draw.MARK
    formation: str
    manoeuvre: str
    section: str
    time: str
    dps: int
    #: who ordered it; "" for one the unit made by itself (battle.Manoeuvre's record, which
    #: this class also reads back: both are the log's "manoeuvre")
    by: str = ""
    frontage: tuple[int, int] = (0, 0)
    detail: str = ""  # what the move-manoeuvres did (5.17 degrees, 5.26 throws, metres)

    def actor_id(self) -> str:
        return self.formation

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> OrderedManoeuvre("plan", "a", "form shieldwall", "5.18", "a full move", 1,
        ...                  "scenario", (2, 4)).describe()
        'a: form shieldwall (5.18), a full move, 1 DP; ordered by the scenario; frontage 2 -> 4'
        """
        text = (
            f"{names(self.formation)}: {self.manoeuvre} ({self.section}), {self.time}, "
            f"{self.dps} DP"
        )
        if self.by:
            text += f"; ordered by the {self.by}"
        if self.frontage != (0, 0) and self.frontage[0] != self.frontage[1]:
            text += f"; frontage {self.frontage[0]} -> {self.frontage[1]}"
        if self.detail:
            text += f"; {self.detail}"
        return text


@dataclass(frozen=True, slots=True)
class ManoeuvreRefused(Event):
    """An ordered manoeuvre the unit may not make, and why."""

    type: ClassVar[str] = "manoeuvre_refused"
    formation: str
    manoeuvre: str
    section: str
    reason: str

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> ManoeuvreRefused("plan", "a", "form column", "5.18", "already in column").describe()
        'a: form column (5.18) not made: already in column'
        """
        return (
            f"{names(self.formation)}: {self.manoeuvre} ({self.section}) not made: "
            f"{names(self.reason)}"
        )


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

    others = [
        x.obb()
        for g in ctx.state.active()
        if g is not f
        for x in g.alive_bases
        if math.hypot(x.x - f.cx, x.y - f.cy) < 500.0
    ]
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
    _on_the_spot(ctx, f, {bid: (x, y, f.facing) for bid, (x, y, _r, _c) in saved[0].items()})
    return True


def _on_the_spot(ctx: Any, f: Any, before: dict[str, tuple[float, float, float]]) -> None:
    """5.18 "re-arranging the unit's stands, on the spot", 5.21 turning about where it stands,
    5.22, 5.28 narrowing and expanding: the chapter prices these in time (½ move), not distance,
    so the bound's move is measured from the re-arranged stands (the allowance check in
    engine.testing reads ``start_poses``)."""
    starts = getattr(ctx, "start_poses", {}).get(f.id)
    if not starts:
        return
    for b in f.bases:
        if b.id not in before or b.id not in starts:
            starts[b.id] = (b.x, b.y, b.facing)  # 5.25: a stand back from the horse lines
            continue
        x0, y0, th0 = before[b.id]
        sx, sy, sf = starts[b.id]
        starts[b.id] = (sx + b.x - x0, sy + b.y - y0, (sf + b.facing - th0) % 360.0)


#: 5.29 "Once on the table, units may not normally move off voluntarily"
OFF_TABLE = "it would leave the table (5.29: units may not move off voluntarily)"


def _try_pose(ctx: Any, f: Any, cx: float, cy: float, facing: float) -> str | None:
    """Put ``f`` at the pose if its footprint is on the table (5.29), clear of other bodies and
    on ground its troops may enter (5.13, 5.14; a major obstacle is 5.20's own crossing);
    else leave it where it was and say why."""
    from engine.geometry import corners
    from engine.movement import footprint_classes
    from engine.rulesets.dark_age.battle import chapter_view
    from engine.rulesets.dark_age.terrain import DarkAgeTerrain, passable

    troop = chapter_view(f)[0]
    before = (f.cx, f.cy, f.facing)
    f.set_pose(cx, cy, facing)
    classes, off_map = footprint_classes(ctx.bf, f, "move")
    box = corners(f.obb())
    off_map = off_map or not bool(np.all(ctx.bf.contains(box[:, 0], box[:, 1])))
    why = None
    if off_map:
        why = OFF_TABLE
    elif any(
        DarkAgeTerrain(c) is DarkAgeTerrain.MAJOR_OBSTACLE
        or not passable(DarkAgeTerrain(c), troop, on_road=False)
        for c in classes
    ):
        why = "the ground is impassable to it (5.13, 5.14, 5.20)"
    elif _clash(ctx, f):
        why = "its new place is taken"
    if why is not None:
        f.set_pose(*before)
        return why
    ctx.state.version += 1
    return None


def _step(ctx: Any, f: Any, order: ManoeuvreOrder) -> str | None:
    """5.23: one javelin throw to the left or right, or back, the facing kept; why not, if
    it cannot."""
    from engine.geometry import forward, right

    if order is ManoeuvreOrder.STEP_BACK:
        dx, dy = forward(f.facing)
        dx, dy = -dx, -dy
    else:
        dx, dy = right(f.facing)
        if order is ManoeuvreOrder.SIDE_STEP_LEFT:
            dx, dy = -dx, -dy
    why = _try_pose(ctx, f, f.cx + dx * JAVELIN_THROW_M, f.cy + dy * JAVELIN_THROW_M, f.facing)
    if why is None:
        f.moved_m = max(f.moved_m, JAVELIN_THROW_M)
        ctx.manoeuvre_allowance[f.id] = JAVELIN_THROW_M  # 5.23: its whole move, no dice
    return why


def _roll(ctx: Any, f: Any) -> MoveRoll:
    """5.17, 5.26 "conducted as a normal move": this bound's roll, or a normal move rolled now
    for a unit that had no move planned (5.9; difficult if any of its footprint is, 5.13)."""
    from engine.movement import footprint_classes
    from engine.rulesets.dark_age.battle import chapter_view
    from engine.rulesets.dark_age.movement import MoveKind, roll_move
    from engine.rulesets.dark_age.terrain import DarkAgeTerrain
    from engine.rulesets.dark_age.terrain import difficult as difficult_to

    got = ctx.move_rolls.get(f.id)
    if got is not None:
        return got[2]
    troop, grade, form = chapter_view(f)
    classes, _ = footprint_classes(ctx.bf, f, "move")
    difficult = any(difficult_to(DarkAgeTerrain(c), troop) for c in set(classes))
    roll = roll_move(
        ctx.dice,
        troop,
        grade,
        form,
        MoveKind.NORMAL,
        difficult=difficult,
        purpose=f"normal move {f.id}",
    )
    ctx.move_rolls[f.id] = (troop, form, roll)
    return roll


def _wheel(
    ctx: Any, f: Any, order: ManoeuvreOrder, degrees: float, allow_m: float
) -> tuple[float, float] | str:
    """5.17: pivot on the front corner of the end turned toward, by ``degrees`` or as far as the
    roll carries the furthest-going point (the outside rear corner: the engine measures a move
    by any point of a base, 6.1); the degrees turned and metres used, or why it cannot."""
    from engine.rulesets.dark_age.movement import Pivot, _pivot_point, _rotate

    o = f.obb()
    reach = math.hypot(2.0 * o.hw, 2.0 * o.hd)
    deg = min(degrees, math.degrees(allow_m / reach))
    if deg < 1.0:
        return "its roll does not carry the outside end round"
    pivot = Pivot.LEFT if order is ManoeuvreOrder.WHEEL_LEFT else Pivot.RIGHT
    turn = deg if pivot is Pivot.RIGHT else -deg
    px, py = _pivot_point(o, pivot)
    cx, cy = _rotate(f.cx, f.cy, px, py, turn)
    why = _try_pose(ctx, f, cx, cy, f.facing + turn)
    if why is not None:
        return why
    used = reach * math.radians(deg)
    f.moved_m = max(f.moved_m, used)
    return deg, used


def _incline(ctx: Any, f: Any, order: ManoeuvreOrder, allow_jt: int) -> float | str:
    """5.26: half the allowance (whole javelin throws, as the book's example) to the side and as
    much forwards; the metres used, or why it cannot."""
    from engine.rulesets.dark_age.movement import incline

    side_jt = allow_jt // 2
    if side_jt < 1:
        return "an allowance of 1 javelin throw leaves no half to incline with"
    side_m = side_jt * JAVELIN_THROW_M * (-1.0 if order is ManoeuvreOrder.INCLINE_LEFT else 1.0)
    o = f.obb()
    new = incline(o, side_m, abs(side_m), allow_jt * JAVELIN_THROW_M)
    why = _try_pose(ctx, f, f.cx + new.cx - o.cx, f.cy + new.cy - o.cy, f.facing)
    if why is not None:
        return why
    f.moved_m = max(f.moved_m, math.hypot(side_m, side_m))
    return 2.0 * abs(side_m)


def _halt_room(ctx: Any, fid: str) -> float | None:
    """5.8: how far the unit may still close this bound (its ``range_halt``), None if no halt."""
    rooms = [e.at_m for e in ctx.events if e.type == "range_halt" and e.formation == fid]
    return min(rooms) if rooms else None


def _then_ahead(ctx: Any, f: Any, rest_m: float) -> float:
    """After a wheel or incline, the rest of the roll straight ahead (5.17, 5.26), short of
    5.8's halt; the metres left to go."""
    from engine.movement import MovePlan

    room = _halt_room(ctx, f.id)
    if room is not None:
        rest_m = min(rest_m, room)
    if rest_m <= 1e-6:
        ctx.plans[f.id] = MovePlan(f.id, "none")
        return 0.0
    ctx.plans[f.id] = MovePlan(f.id, "advance", bearing=f.facing, max_m=rest_m)
    return rest_m


def _within_bow(ctx: Any, f: Any, bow_m: float) -> bool:
    from engine.geometry import distance, obb_array

    foes = [g for g in ctx.state.active() if g.side != f.side]
    if not foes or bow_m <= 0:
        return False
    return float(distance(f.obb(), obb_array([g.obb() for g in foes])).min()) <= bow_m


def _ordered(ctx: Any) -> list[tuple[str, ManoeuvreOrder, str, float | None]]:
    """This bound's manoeuvres: the scenario's, then the commander's own (:mod:`.manoeuvres`)."""
    from engine.rulesets.dark_age.battle import chapter_view
    from engine.rulesets.dark_age.command import member_of

    out: list[tuple[str, ManoeuvreOrder, str, float | None]] = []
    sc = ctx.scenario
    given: set[str] = set()
    if sc is not None:
        for side in sc.sides:
            for m in side.manoeuvres:
                if m.bound == ctx.state.bound:
                    for fid in m.formations:
                        out.append((fid, ManoeuvreOrder(m.manoeuvre), "scenario", m.degrees))
                        given.add(fid)
    bow = ctx.bow_range_m or 0.0
    for f in ctx.state.active():
        if f.id in given or f.morale is not Morale.STEADY or f.loose:
            continue
        cf = member_of(ctx, f.id)
        if cf is not None and cf.kind is CommandFormation.MARCH_COLUMN:
            continue
        if f.n_alive >= 2 and chapter_view(f)[2] is Formation.COLUMN and _within_bow(ctx, f, bow):
            out.append((f.id, ManoeuvreOrder.FORM_SHIELDWALL, "commander", None))
    return out


_MOVES = frozenset(
    {
        ManoeuvreOrder.WHEEL_LEFT,
        ManoeuvreOrder.WHEEL_RIGHT,
        ManoeuvreOrder.INCLINE_LEFT,
        ManoeuvreOrder.INCLINE_RIGHT,
        ManoeuvreOrder.SLOW_WALK,
    }
)


def _mount_or_dismount(ctx: Any, f: Any, order: ManoeuvreOrder) -> tuple[Cost, str] | str:
    """5.25 (:mod:`.mounts`): the cost and what changed, or why the unit may not."""
    from engine.rulesets.dark_age.battle import chapter_view
    from engine.rulesets.dark_age.mounts import dismount, mount
    from engine.rulesets.dark_age.movement import mount_cost

    before = chapter_view(f)[0]
    n = f.n_alive
    if order is ManoeuvreOrder.DISMOUNT:
        why = dismount(ctx, f, _dismounted_profile(ctx, f), _reform)
    else:
        why = mount(ctx, f, _reform, lambda c, g: _try_pose(c, g, g.cx, g.cy, g.facing))
    if why is not None:
        return why
    after = chapter_view(f)[0]
    return mount_cost(), f"{n} stands {before.value} -> {f.n_alive} {after.value}"


def _dismounted_profile(ctx: Any, f: Any) -> Any:
    """The troop profile this bound's dismount order names for ``f`` (checked at load)."""
    sc = ctx.scenario
    side = sc.side(f.side)
    spec = next(
        m
        for m in side.manoeuvres
        if m.bound == ctx.state.bound and m.manoeuvre == "dismount" and f.id in m.formations
    )
    return sc.army(f.side, ctx.ruleset).profile(spec.profile)


def ordered_this_bound(ctx: Any) -> set[str]:
    """The formations a scenario orders to make any manoeuvre this bound."""
    sc = ctx.scenario
    if sc is None:
        return set()
    return {
        fid
        for side in sc.sides
        for m in side.manoeuvres
        if m.bound == ctx.state.bound
        for fid in m.formations
    }


def moving_by_order(ctx: Any) -> dict[str, ManoeuvreOrder]:
    """The formations ordered this bound to wheel, incline or slow walk: each makes a normal
    move of its own (5.17, 5.26 "conducted as a normal move"; 5.24 no dice), not a charge and
    not a Battle Line's shared roll (5.17 "Individual units wheel individually")."""
    sc = ctx.scenario
    if sc is None:
        return {}
    return {
        fid: ManoeuvreOrder(m.manoeuvre)
        for side in sc.sides
        for m in side.manoeuvres
        if m.bound == ctx.state.bound and ManoeuvreOrder(m.manoeuvre) in _MOVES
        for fid in m.formations
    }


def _move_manoeuvre(
    ctx: Any, f: Any, order: ManoeuvreOrder, degrees: float | None
) -> tuple[Cost, str] | str:
    """5.17 wheel, 5.26 incline, 5.24 slow walk: made as (part of) the unit's move; its cost,
    or why the unit may not make it (nothing changed)."""
    from engine.movement import MovePlan
    from engine.rulesets.dark_age.battle import chapter_view

    troop, grade, form = chapter_view(f)
    if order is ManoeuvreOrder.SLOW_WALK:
        if not may_slow_walk(grade, form):
            return "only A and B Grade formed troops walk without dice (5.24)"
        room = _halt_room(ctx, f.id)
        if room is not None and room <= 1e-6:
            return "it is at its halt at bow or javelin range (5.8)"
        ctx.move_rolls[f.id] = (troop, form, MoveRoll(None, None, Allowance(1, 1), 0))
        walk = JAVELIN_THROW_M if room is None else min(JAVELIN_THROW_M, room)
        ctx.plans[f.id] = MovePlan(f.id, "advance", bearing=f.facing, max_m=walk)
        return Cost(TimeCost.NONE, 0), f"{walk:.0f} m ahead without dice"
    if order in (ManoeuvreOrder.WHEEL_LEFT, ManoeuvreOrder.WHEEL_RIGHT):
        if form not in (Formation.SHIELDWALL, Formation.COLUMN, Formation.CUNEUS):
            return "unformed troops and single models face all round (5.16)"
        allow_m = _roll(ctx, f).allowance.least * JAVELIN_THROW_M
        got = _wheel(ctx, f, order, degrees or DEFAULT_WHEEL_DEG, allow_m)
        if isinstance(got, str):
            return got
        deg, used = got
        cost = wheel_cost(form)
        what = f"wheeled {deg:.1f} degrees ({used:.0f} m of {allow_m:.0f} m)"
    else:
        if not may_incline(troop, grade, form):
            return "only A Grade infantry in shieldwall incline (5.26)"
        allow_jt = _roll(ctx, f).allowance.least
        allow_m = allow_jt * JAVELIN_THROW_M
        inclined = _incline(ctx, f, order, allow_jt)
        if isinstance(inclined, str):
            return inclined
        used = inclined
        cost = Cost(TimeCost.NONE, 0)  # the chapter gives an incline no DP of its own
        half = allow_jt // 2
        what = f"inclined {half} jt aside and {half} jt forwards of {allow_jt} jt"
    ctx.manoeuvre_allowance[f.id] = allow_m
    rest = _then_ahead(ctx, f, allow_m - used)
    return cost, f"{what}, then {rest:.0f} m ahead"


def expand_after_gaps(ctx: Any, phase: str) -> list[Event]:
    """5.28 (first): after its move a unit that reduced its frontage to pass a gap "expand[s]
    immediately back to original formation" (on the spot, the front rank's centre kept); while
    the ground is taken it stays narrow and tries again after its next move."""
    events: list[Event] = []
    for fid, (wide, _since) in sorted(ctx.gap_passing.items()):
        f = ctx.state.formations[fid]
        if f.removed or f.morale is not Morale.STEADY:
            del ctx.gap_passing[fid]
            continue
        narrow = f.frontage
        if _reform(ctx, f, min(wide, f.n_alive)):
            del ctx.gap_passing[fid]
            events.append(
                OrderedManoeuvre(
                    phase,
                    fid,
                    "expand after gap",
                    "5.28",
                    "none",
                    0,
                    "ruleset",
                    (narrow, f.frontage),
                )
            )
        else:
            events.append(
                ManoeuvreRefused(
                    phase, fid, "expand after gap", "5.28", "no room to expand yet: it stays narrow"
                )
            )
    return events


def manoeuvres(ctx: Any, phase: str) -> list[Event]:
    """Make this bound's ordered manoeuvres (after the move rolls, before the moves): each at
    its cost, the rolled allowance halved for ½ move, the move given up for a whole phase."""
    from engine.movement import MovePlan
    from engine.rulesets.dark_age.battle import Disorder, chapter_view, turn_about
    from engine.rulesets.dark_age.movement import DisorderPoints

    events: list[Event] = []
    bow = ctx.bow_range_m or 0.0
    for fid, order, by, degrees in _ordered(ctx):
        f = ctx.state.formations[fid]
        section = _SECTION[order]
        if f.removed or f.morale is not Morale.STEADY or ctx.state.contacts.get(fid):
            events.append(
                ManoeuvreRefused(phase, fid, order.value, section, "not steady and out of contact")
            )
            continue
        troop, grade, form = chapter_view(f)
        before = f.frontage
        cost: Cost
        detail = ""
        if order in _MOVES:
            got = _move_manoeuvre(ctx, f, order, degrees)
            if isinstance(got, str):
                events.append(ManoeuvreRefused(phase, fid, order.value, section, got))
                continue
            cost, detail = got
        elif order is ManoeuvreOrder.PASS_GAP and fid in ctx.gap_passing:
            # still narrow from a gap it could not yet expand after: the same action goes on,
            # at its time and without a second DP (5.27 second: "DPs are incurred only once
            # for each action")
            wide, since = ctx.gap_passing[fid]
            cost = Cost(pass_gap_cost(troop).time, 0)
            detail = f"still narrow ({f.frontage} of {wide}) from bound {since}: no second DP"
        elif order is ManoeuvreOrder.PASS_GAP:
            if form is not Formation.SHIELDWALL or f.frontage < 2:
                why = (
                    "a column or cuneus passes as it is, unformed troops move freely; "
                    "only a shieldwall two or more wide narrows (5.16, 5.28)"
                )
                events.append(ManoeuvreRefused(phase, fid, order.value, section, why))
                continue
            wide = f.frontage
            if not _reform(ctx, f, math.ceil(wide / 2)):
                events.append(
                    ManoeuvreRefused(phase, fid, order.value, section, "its new place is taken")
                )
                continue
            ctx.gap_passing[fid] = (wide, ctx.state.bound)
            cost = pass_gap_cost(troop)
            detail = f"frontage {wide} -> {f.frontage} to pass, expands after the move"
        elif section == "5.23":
            if not may_side_step(troop, grade, form):
                why = "only A and B Grade infantry in shieldwall"
                events.append(ManoeuvreRefused(phase, fid, order.value, section, why))
                continue
            stepped = _step(ctx, f, order)
            if stepped is not None:
                events.append(ManoeuvreRefused(phase, fid, order.value, section, stepped))
                continue
            cost = Cost(TimeCost.FULL, 0)
        elif section == "5.25":
            got = _mount_or_dismount(ctx, f, order)
            if isinstance(got, str):
                events.append(ManoeuvreRefused(phase, fid, order.value, section, got))
                continue
            cost, detail = got
        elif order is ManoeuvreOrder.ABOUT_FACE:
            if form not in (Formation.SHIELDWALL, Formation.COLUMN, Formation.CUNEUS):
                why = "unformed troops and single models face all round (5.16, 5.21)"
                events.append(ManoeuvreRefused(phase, fid, order.value, section, why))
                continue
            at = {b.id: (b.x, b.y, b.facing) for b in f.bases}
            if not turn_about(f):
                why = "a part-filled rank would shift as it came to the front"
                events.append(ManoeuvreRefused(phase, fid, order.value, section, why))
                continue
            ctx.state.version += 1
            _on_the_spot(ctx, f, at)
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
                events.append(
                    ManoeuvreRefused(phase, fid, order.value, section, "its new place is taken")
                )
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
            if section == "5.25":  # the roll read for the troops as they now are
                from engine.rulesets.dark_age.battle import _FAST_PLANS
                from engine.rulesets.dark_age.mounts import reread_roll
                from engine.rulesets.dark_age.movement import MoveKind

                t, now = chapter_view(f)[0], chapter_view(f)[2]
                fast = ctx.plans[fid].kind in _FAST_PLANS
                roll = reread_roll(roll, t, now, MoveKind.FAST if fast else MoveKind.NORMAL)
            halved = dataclasses.replace(roll, allowance=half_move(roll.allowance))
            ctx.move_rolls[fid] = (t, chapter_view(f)[2], halved)
        events.append(
            OrderedManoeuvre(
                phase,
                fid,
                order.value,
                section,
                cost.time.value,
                cost.dps,
                by,
                (before, f.frontage),
                detail,
            )
        )
        if cost.dps:
            dp = ctx.dps.get(fid, DisorderPoints()).incur(
                cost.dps, f"{order.value} b{ctx.state.bound}"
            )
            ctx.dps[fid] = dp
            events.append(
                Disorder(
                    phase,
                    fid,
                    cost.dps,
                    dp.total,
                    f"{order.value} ({section})",
                    chapter_view(f)[2].value,
                )
            )
    return events
