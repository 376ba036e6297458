"""The Dark Age movement chapter on the engine's battle state: what a formation is in the
chapter's terms, its move roll each bound, and its disorder points.

The troop lists a ``dark-age`` battle reads are the complete game's (2mm Earth profiles; its
combat is 2mm Earth's). The chapter's own categories come from them by these readings
(docs/rules-interpretations.md, "Dark Age on the engine"):

- troop type from the unit type: infantry -> Dark Age infantry (may form cuneus, 5.3), light
  infantry -> foot archers if they shoot, else light infantry; cavalry -> heavy cavalry, light
  cavalry -> light cavalry, war machines -> artillery, baggage -> wagons, monsters -> elephants;
- grade from melee resilience: R5+ A, R4 B, R3 or less C;
- formation from the formation's shape: loose or skirmishing bases unformed; one base wide and
  several deep a column; cuneus troops one or two bases wide and two or three deep a cuneus;
  a single model (artillery, wagons, elephants) none; otherwise shieldwall.

>>> from engine.rulesets.dark_age.formations import Troop, Grade
>>> troop_of("infantry", has_ranged=False, skirmisher=False), grade_of(5), grade_of(3)
(<Troop.DARK_AGE_INFANTRY: 'dark age infantry'>, <Grade.A: 'A'>, <Grade.C: 'C'>)
>>> formation_of(Troop.DARK_AGE_INFANTRY, stands=4, frontage=2, loose=False)
<Formation.CUNEUS: 'cuneus'>
>>> formation_of(Troop.HEAVY_CAVALRY, stands=6, frontage=3, loose=False)
<Formation.SHIELDWALL: 'shieldwall'>
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np

from engine.geometry import bearing
from engine.log import Draw, Event, Names, keep_ids
from engine.movement import MoveRules
from engine.rulesets.dark_age.formations import (
    CUNEUS_TROOPS,
    CommandFormation,
    Formation,
    Grade,
    Troop,
    is_light,
)
from engine.rulesets.dark_age.movement import (
    JAVELIN_THROW_M,
    Allowance,
    DisorderPoints,
    DPRemoval,
    MoveKind,
    MovePhase,
    half_move,
    impassable_crossing,
    pace_setter,
    roll_move,
    wheel_cost,
)
from engine.rulesets.dark_age.terrain import DarkAgeTerrain, passable
from engine.rulesets.dark_age.terrain import difficult as difficult_to
from engine.rulesets.two_mm_earth.profiles import Profile
from engine.spatial import table_box_gaps
from engine.state import Formation as EngineFormation
from engine.state import FormationTable, Morale

__all__ = [
    "JAVELIN_RANGE_M",
    "CommandMoveRoll",
    "Disorder",
    "DisorderCleared",
    "Interpenetration",
    "Manoeuvre",
    "RangeHalt",
    "about_faces",
    "bow_range_m",
    "chapter_view",
    "charge_dps",
    "formation_of",
    "grade_of",
    "interpenetrations",
    "may_pass",
    "move_phase_of",
    "move_rules_for",
    "rallied_clear_dps",
    "range_halts",
    "roll_moves",
    "troop_of",
]

_BY_UNIT_TYPE: dict[str, Troop] = {
    "infantry": Troop.DARK_AGE_INFANTRY,
    "light_infantry": Troop.LIGHT_INFANTRY,
    "cavalry": Troop.HEAVY_CAVALRY,
    "wheel_cavalry": Troop.HEAVY_CAVALRY,
    "light_cavalry": Troop.LIGHT_CAVALRY,
    "war_machine": Troop.ARTILLERY,
    "baggage": Troop.WAGONS,
    "monster": Troop.ELEPHANTS,
}
_SINGLE = frozenset({Troop.ARTILLERY, Troop.WAGONS, Troop.ELEPHANTS, Troop.PACK_ANIMALS})


def troop_of(unit_type: str, *, has_ranged: bool, skirmisher: bool) -> Troop:
    """The chapter's troop type for a 2mm Earth unit type (module docstring)."""
    try:
        troop = _BY_UNIT_TYPE[unit_type]
    except KeyError:
        raise ValueError(
            f"expected a unit type in {sorted(_BY_UNIT_TYPE)}, got {unit_type!r}"
        ) from None
    if troop is Troop.LIGHT_INFANTRY and has_ranged and not skirmisher:
        return Troop.FOOT_ARCHERS
    return troop


def grade_of(melee_resilience: float) -> Grade:
    """A, B or C from melee resilience (R5+ A, R4 B, else C)."""
    r = round(melee_resilience)
    return Grade.A if r >= 5 else (Grade.B if r == 4 else Grade.C)


def formation_of(troop: Troop, *, stands: int, frontage: int, loose: bool) -> Formation:
    """The chapter's formation for a block of ``stands`` bases ``frontage`` wide."""
    if troop in _SINGLE:
        return Formation.SINGLE_MODEL
    if loose or troop in (Troop.LIGHT_INFANTRY, Troop.LIGHT_CAVALRY):
        return Formation.UNFORMED
    if stands <= 1:
        return Formation.SHIELDWALL  # 5.4
    frontage = max(1, min(frontage, stands))
    depth = math.ceil(stands / frontage)
    if frontage == 1:
        return Formation.COLUMN
    if troop in CUNEUS_TROOPS and frontage <= 2 and 2 <= depth <= 3:
        return Formation.CUNEUS
    if is_light(troop) and troop is not Troop.FOOT_ARCHERS:
        return Formation.UNFORMED
    return Formation.SHIELDWALL


# ---------------------------------------------------------------------------------------------
# The chapter on the engine: rolled moves and disorder points


@dataclass(frozen=True, slots=True)
class Disorder(Event):
    """Dark Age 5.11-5.27: a formation took disorder points (the playback shows the total)."""

    type: ClassVar[str] = "disorder"
    draw: ClassVar[Draw] = Draw.MARK
    formation: str
    dps: int
    total: int
    reason: str
    formation_type: str = ""

    def actor_id(self) -> str:
        return self.formation

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> Disorder("execute_moves", "a", 1, 3, "move die 5", "shieldwall").describe()
        'a (shieldwall) takes 1 DP (move die 5): 3 DP in all'
        """
        kind = f" ({self.formation_type})" if self.formation_type else ""
        return (
            f"{names(self.formation)}{kind} takes {self.dps} DP ({names(self.reason)}): "
            f"{self.total} DP in all"
        )


def chapter_view(f: EngineFormation) -> tuple[Troop, Grade, Formation]:
    """The chapter's troop type, grade and formation for an engine formation (slowest and
    highest-grade base sets the pace, 5.9)."""
    members = []
    for prof in f.profiles:
        p = cast(Profile, prof)
        troop = troop_of(
            str(p.unit_type),
            has_ranged=p.arming.ranged is not None,
            skirmisher="skirmisher" in {str(x) for x in p.flags},
        )
        members.append((troop, grade_of(p.resilience.melee)))
    troop, grade = pace_setter(members)
    form = formation_of(troop, stands=f.n_alive, frontage=f.frontage, loose=f.loose)
    return troop, grade, form


_FAST_PLANS = frozenset({"charge", "rout", "retreat", "pursue"})  # 5.9 fast moves

#: 5.8: the tactical phase's compulsory halt, at javelin range (one javelin throw) of an enemy
#: to the front
JAVELIN_RANGE_M = JAVELIN_THROW_M
#: "to their front": an enemy whose centre lies within 45 degrees of the way the unit moves
FRONT_HALF_ARC_DEG = 45.0
#: plans that close on the enemy (5.8's halts apply); fleeing, pursuing and retiring moves
#: have their backs to the enemy or are the morale module's
_CLOSING = frozenset({"advance", "attack", "charge"})


def bow_range_m(state: Any) -> float:
    """5.8's bow range: the chapter gives none, so the composition's troop lists (2mm Earth
    profiles, ``range_m``) give it: the longest reach of any bow-armed (ranged, not throwing)
    troops on the table; 0 (no march-phase halt) if nobody shoots."""
    reach = [
        float(cast(Profile, b.profile).range_m)
        for f in state.formations.values()
        for b in f.bases
        if cast(Profile, b.profile).arming.ranged
    ]
    return max(reach, default=0.0)


@dataclass(frozen=True, slots=True)
class RangeHalt(Event):
    """Dark Age 5.8: a unit closing on an enemy to its front halts at bow range in its march
    phase, at javelin range in its tactical phase unless it charges (``at_m``: how far it may
    still go; 0 when it is there already; ``move_phase``: march or tactical)."""

    type: ClassVar[str] = "range_halt"
    formation: str
    target: str
    at_m: float
    move_phase: str = "tactical"
    range_m: float = JAVELIN_RANGE_M

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> RangeHalt("execute_moves", "a", "b", 175.33, "march", 150.0).describe()
        'a (march phase) halts 150 m from b (5.8): 175 m left'
        """
        return (
            f"{names(self.formation)} ({self.move_phase} phase) halts {self.range_m:.0f} m from "
            f"{names(self.target)} (5.8): {self.at_m:.0f} m left"
        )


def move_phase_of(gap_m: float, bow_m: float) -> MovePhase:
    """5.8: the march phase and the tactical phase. The turn chapter that orders them is absent
    and the engine's bound has one movement phase, so a unit's bound is its march phase while
    no enemy to its front is at bow range at the start of the move, else its tactical phase.
    The chapter measures in whole javelin throws: within one of bow range is at it (a unit
    halted at bow range on an oblique approach stops a few metres outside it).

    >>> [move_phase_of(g, 100.0).value for g in (180.0, 110.0, 80.0)]
    ['march', 'tactical', 'tactical']
    """
    at_bow = gap_m <= bow_m + JAVELIN_THROW_M
    return MovePhase.MARCH if bow_m > 0 and not at_bow else MovePhase.TACTICAL


def _rough_front(arr: np.ndarray, foes: np.ndarray, fx: float, fy: float, way: float) -> np.ndarray:
    """The rows ``foes`` of ``arr`` (rectangles) whose centres may lie within
    :data:`FRONT_HALF_ARC_DEG` of bearing ``way`` from (fx, fy): numpy's bearings, the arc a
    millionth of a degree wide for their rounding (each is then tested exactly)."""
    rough = np.degrees(np.arctan2(arr[foes, 0] - fx, arr[foes, 1] - fy)) % 360.0
    rough = np.abs((rough - way + 180.0) % 360.0 - 180.0)
    return foes[rough <= FRONT_HALF_ARC_DEG + 1e-6]


def _in_front(fx: float, fy: float, g: EngineFormation, way: float) -> bool:
    """5.8's "to their front", exactly: ``g``'s centre within :data:`FRONT_HALF_ARC_DEG` of
    bearing ``way`` from (fx, fy)."""
    off = abs((bearing(fx, fy, *g.centre()) - way + 180.0) % 360.0 - 180.0)
    return off <= FRONT_HALF_ARC_DEG


def _nearest_in_front(
    table: FormationTable, row: int, centre: tuple[float, float], rough: np.ndarray, way: float
) -> list[int]:
    """Of the table's rows ``rough`` (ascending), those to the front (:func:`_in_front` from
    ``centre``) that can be nearest rectangle ``row``, ascending; the others' gaps are surely
    larger. Taken by a lower bound of the gap (the boxes round the rectangles:
    :func:`engine.spatial.table_box_gaps`), least first: a row in front bounds the least gap
    by its centres' distance (each centre lies in its rectangle), and rows whose lower bound
    exceeds that need no exact test. The same least gap, first met at the same row, as
    testing every row."""
    if rough.size == 0:
        return []
    arr = table.arr
    apart = np.hypot(arr[rough, 0] - arr[row, 0], arr[rough, 1] - arr[row, 1])
    lower = table_box_gaps(table, row)[rough]
    fx, fy = centre
    best = math.inf
    keep: list[int] = []
    for i in np.argsort(lower, kind="stable").tolist():
        if lower[i] > best:
            break
        k = int(rough[i])
        if _in_front(fx, fy, table.forms[k], way):
            keep.append(k)
            best = min(best, float(apart[i]) + 1e-6)
    return sorted(keep)


def range_halts(ctx: Any) -> list[Event]:
    """5.8: "During the march phase all units must halt at bow range of enemy to their front.
    In the tactical phase they must halt at javelin range. Units need to initiate a charge
    (see 7.1) in order to move in to contact with enemy." A unit closing on the nearest enemy
    to its front (an ``advance``, ``attack`` or ``charge`` plan) whose bound is its march phase
    (:func:`move_phase_of`) is cut short at bow range, charge or not; in its tactical phase an
    advance is cut short at javelin range and a charge goes in. Ranged troops closing to their
    own range (``attack``) are cut only in the march phase."""
    from engine.geometry import bearing, distance
    from engine.movement import MovePlan
    from engine.rulesets.dark_age.command import member_of

    state = ctx.state
    bow = getattr(ctx, "bow_range_m", None)
    if bow is None:
        bow = ctx.bow_range_m = bow_range_m(state)
    # the table's rows are the formations on the table (state.active(), in its order) and
    # their rectangles (g.obb(), whose centre is g.centre()); nothing moves in here
    table = state.table()
    enemies: dict[str, np.ndarray] = {}
    events: list[Event] = []
    for fid, plan in sorted(ctx.plans.items()):
        if plan.kind not in _CLOSING:
            continue
        f = state.formations[fid]
        if f.removed:
            continue
        foes = enemies.get(f.side)
        if foes is None:
            foes = enemies[f.side] = np.flatnonzero(table.sides != f.side)
        if foes.size == 0:
            continue
        fx, fy = f.centre()
        way = plan.bearing if plan.goal is None else bearing(fx, fy, *plan.goal)
        # "to their front" in numpy first, a hair wide; then each candidate exactly
        rough = _rough_front(table.arr, foes, fx, fy, way)
        rows = _nearest_in_front(table, table.rows[fid], (fx, fy), rough, way)
        if not rows:
            continue
        front = [table.forms[k] for k in rows]
        gaps = distance(f.obb(), table.arr[rows])
        k = int(gaps.argmin())
        phase = move_phase_of(float(gaps[k]), bow)
        cf = member_of(ctx, fid)
        if phase is MovePhase.MARCH or (
            # 5.8 "Troops in March Column may not approach closer than bow range to enemy"
            cf is not None and cf.kind is CommandFormation.MARCH_COLUMN and bow > 0
        ):
            halt_at = bow
        elif plan.kind == "advance":
            halt_at = JAVELIN_RANGE_M
        else:
            continue  # tactical phase: a charge goes in, ranged troops close to their range
        room = max(0.0, float(gaps[k]) - halt_at)
        if plan.max_m is not None and plan.max_m <= room:
            continue
        if room <= 0.0:
            ctx.plans[fid] = MovePlan(fid, "none")  # at the halt already: it stays
        else:
            plan.max_m = room
        events.append(
            RangeHalt("execute_moves", fid, front[k].id, round(room, 2), phase.value, halt_at)
        )
    return events


@dataclass(frozen=True, slots=True)
class CommandMoveRoll(Event):
    """Dark Age 5.9: the units of a command formation that move this bound used one roll, the
    pace setter's (``troop`` ``grade``): ``face`` on ``die``, ``allowance`` javelin throws."""

    type: ClassVar[str] = "command_move_roll"
    command_formation: str
    units: tuple[str, ...]
    troop: str
    grade: str
    die: str | None
    face: int | None
    allowance: int
    section: str = "5.9"

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> CommandMoveRoll("execute_moves", "line", ("a", "b"), "heavy_infantry", "B", "AvD",
        ...                 3, 3).describe()
        'line (a, b) move on one roll (5.9): heavy_infantry grade B, AvD rolled 3: 3 javelin throws'
        """
        roll = f"{self.die} rolled {self.face}" if self.die is not None else "no roll"
        units = ", ".join(names(u) for u in self.units)
        return (
            f"{names(self.command_formation)} ({units}) move on one roll ({self.section}): "
            f"{self.troop} grade {self.grade}, {roll}: {self.allowance} javelin throws"
        )


def _dress(ctx: Any, units: tuple[str, ...], with_it: tuple[str, ...] = ()) -> float | None:
    """5.5 "all movement ... taken collectively": a Battle Line's units closing on the enemy
    (advance, attack or charge, one kind for all) whose way - from the middle of the line to
    the middle of their goals - lies within 5.15's 22.5 degrees of the leading unit's facing
    all go straight ahead, as far as the shortest of their limits (5.8's halts), so the line
    keeps together, and the unformed troops moving with it (``with_it``, 5.5) go the same way;
    a way further round is returned, for 5.17's wheel (None: no wheel to make)."""
    from engine.geometry import bearing
    from engine.rulesets.dark_age.movement import within_deviation

    plans = [ctx.plans[u] for u in units]
    if len({p.kind for p in plans}) != 1 or plans[0].kind not in _CLOSING:
        return None
    lead = ctx.state.formations[units[0]]
    forms = [ctx.state.formations[u] for u in units]
    if all(p.goal is not None for p in plans):
        mx = sum(f.cx for f in forms) / len(forms)
        my = sum(f.cy for f in forms) / len(forms)
        gx = sum(p.goal[0] for p in plans if p.goal is not None) / len(plans)
        gy = sum(p.goal[1] for p in plans if p.goal is not None) / len(plans)
        way = bearing(mx, my, gx, gy)
    else:
        way = plans[0].bearing
    if not within_deviation(lead.facing, way):
        return way
    limits = [p.max_m for p in plans if p.max_m is not None]
    for u, p in zip(units, plans, strict=True):
        f = ctx.state.formations[u]
        # straight on together: not aimed again, unit by unit, as the move begins
        ctx.plans[u] = dataclasses.replace(
            p,
            bearing=f.facing,
            goal=None,
            facing=None,
            max_m=min(limits) if limits else None,
            target=None,
        )
    for u in with_it:  # "may move together with it": along the line's facing, no further
        p = ctx.plans[u]
        own = [x for x in (p.max_m, min(limits) if limits else None) if x is not None]
        ctx.plans[u] = dataclasses.replace(
            p, bearing=lead.facing, goal=None, facing=None, max_m=min(own) if own else None
        )
    return None


def roll_moves(ctx: Any) -> list[Event]:
    """Before the moves: every formation with a move plan rolls its move die (5.9), fast for a
    charge, rout, retreat or pursuit; difficult if any of its footprint is (5.13). The moving
    units of a standing command formation roll once for all (5.9, :mod:`.command`)."""
    from engine.movement import footprint_classes
    from engine.rulesets.dark_age.command import member_of
    from engine.rulesets.dark_age.line_moves import followers, wheel_as_one
    from engine.rulesets.dark_age.manoeuvres import ManoeuvreOrder, _try_pose, moving_by_order
    from engine.rulesets.dark_age.movement import fatigue_dp, may_slow_walk

    ctx.move_rolls = {}
    ordered = moving_by_order(ctx)  # 5.17, 5.24, 5.26: a normal move of its own
    events: list[Event] = []
    views: dict[str, tuple[Troop, Grade, Formation, bool, bool, MoveKind]] = {}
    for fid, plan in ctx.plans.items():
        f = ctx.state.formations[fid]
        if f.removed or plan.kind == "none":
            continue
        troop, grade, form = chapter_view(f)
        classes, _ = footprint_classes(ctx.bf, f, "move")
        difficult = any(difficult_to(DarkAgeTerrain(c), troop) for c in set(classes))
        on_road = bool(classes) and set(classes) <= {int(DarkAgeTerrain.ROAD)}
        if (
            ordered.get(fid) is ManoeuvreOrder.SLOW_WALK
            and may_slow_walk(grade, form)
            and f.morale is Morale.STEADY
        ):
            continue  # 5.24: "without having to dice for movement"
        # an ordered wheel or incline is a normal move (5.17, 5.26), not a charge
        fast = plan.kind in _FAST_PLANS and not (fid in ordered and plan.kind == "charge")
        kind = MoveKind.FAST if fast else MoveKind.NORMAL
        views[fid] = (troop, grade, form, difficult, on_road, kind)
    shared: dict[str, tuple[Any, tuple[str, ...]]] = {}
    wheels: dict[str, tuple[tuple[str, ...], float]] = {}
    taken = set(ordered) | {u for cf in getattr(ctx, "command_formations", ()) for u in cf.units}
    for cf in getattr(ctx, "command_formations", ()):
        if cf.broken:
            continue
        moving = tuple(
            u for u in cf.units if u in views and u not in ordered and member_of(ctx, u) is cf
        )
        # 5.9 "use the same die roll in all but rough terrain", for one kind of move
        if (
            len(moving) >= 2
            and len({views[u][5] for u in moving}) == 1
            and not any(views[u][3] for u in moving)
        ):
            with_it = followers(ctx, moving, views, taken)  # 5.5: unformed troops with it
            taken.update(with_it)
            for u in (*moving, *with_it):
                shared[u] = (cf, (*moving, *with_it))
            way = _dress(ctx, moving, with_it)
            if (
                way is not None
                and cf.kind is CommandFormation.BATTLE_LINE
                and all(views[u][2] is Formation.SHIELDWALL for u in moving)
            ):
                wheels[cf.id] = (moving, way)  # 5.17: the line wheels as one body
    done: set[str] = set()
    for fid, (troop, grade, form, difficult, on_road, kind) in views.items():
        if fid in done:
            continue
        if fid not in shared:
            ctx.move_rolls[fid] = (
                troop,
                form,
                roll_move(
                    ctx.dice,
                    troop,
                    grade,
                    form,
                    kind,
                    difficult=difficult,
                    on_road=on_road,
                    purpose=f"{kind.value} move {fid}",
                ),
            )
            continue
        cf, units = shared[fid]
        p_troop, p_grade = pace_setter([(views[u][0], views[u][1]) for u in units])
        lead_form = Formation.COLUMN if views[fid][2] is Formation.COLUMN else Formation.SHIELDWALL
        roll = roll_move(
            ctx.dice, p_troop, p_grade, lead_form, kind, purpose=f"{kind.value} move {cf.id}"
        )
        for u in units:
            u_form = views[u][2]
            dps = fatigue_dp(u_form, roll.face) if roll.face is not None else 0
            ctx.move_rolls[u] = (views[u][0], u_form, dataclasses.replace(roll, dps=dps))
            done.add(u)
        events.append(
            CommandMoveRoll(
                "execute_moves",
                cf.id,
                units,
                p_troop.value,
                p_grade.value,
                roll.die,
                roll.face,
                roll.allowance.least,
            )
        )
        if cf.id in wheels:
            line, way = wheels[cf.id]
            events.extend(
                wheel_as_one(ctx, line, way, roll.allowance.least * JAVELIN_THROW_M, _try_pose)
            )
    return events


def charge_dps(ctx: Any, phase: str) -> list[Event]:
    """After the moves: formations that moved take their roll's DPs (5.11, 5.13) and, in
    shieldwall, 1 DP for wheeling (5.17)."""
    events: list[Event] = []
    for fid, (_troop, form, roll) in sorted(ctx.move_rolls.items()):
        f = ctx.state.formations[fid]
        if f.moved_m <= 0:
            continue
        dp = ctx.dps.get(fid, DisorderPoints())
        reasons = []
        if roll.dps:
            dp = dp.incur(roll.dps)
            reasons.append(f"move die {roll.face}")
        start = ctx.start_facing.get(fid)
        if (
            start is not None
            and form is Formation.SHIELDWALL
            and abs((f.facing - start + 180.0) % 360.0 - 180.0) > 1e-6
        ):
            dp = dp.incur(wheel_cost(form).dps, f"wheel b{ctx.state.bound}")
            reasons.append("wheel in shieldwall")
        added = dp.total - ctx.dps.get(fid, DisorderPoints()).total
        ctx.dps[fid] = dp
        if added:
            events.append(Disorder(phase, fid, added, dp.total, ", ".join(reasons), form.value))
    return events


@dataclass(frozen=True, slots=True)
class Interpenetration(Event):
    """Dark Age 5.27: ``formation`` moved through its friend ``through``; the DPs each took
    (none if one was stationary and one unformed and one stand deep)."""

    type: ClassVar[str] = "interpenetration"
    formation: str
    through: str
    dps: int
    through_dps: int

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> Interpenetration("execute_moves", "a", "b", 1, 0).describe()
        'a passes through b (5.27): a takes 1 DP, b 0 DP'
        """
        a, b = names(self.formation), names(self.through)
        return f"{a} passes through {b} (5.27): {a} takes {self.dps} DP, {b} {self.through_dps} DP"


def may_pass(f: EngineFormation, g: EngineFormation) -> bool:
    """5.27: a unit may move through a friend (at a price in DPs, :func:`interpenetrations`).
    Fleeing troops are the morale module's (W&C: "friends flee through them")."""
    return f.morale is Morale.STEADY and g.side == f.side and not g.removed


def _depth_stands(f: EngineFormation) -> int:
    return 1 if f.loose else len({b.rank for b in f.alive_bases})


def _formed(form: Formation) -> bool:
    return form in (Formation.SHIELDWALL, Formation.COLUMN, Formation.CUNEUS)


def interpenetrations(ctx: Any, moves: list[Any], phase: str) -> list[Event]:
    """After the moves: every ``moved`` event whose path crossed a friend (the swept pose
    overlapping its rectangle) is an interpenetration; each formed unit involved takes 1 DP
    unless one of them was stationary and one unformed and one stand deep; formed troops
    passed through by elephants take 2, the elephants none (5.27, :func:`interpenetration_dps`;
    once per action, 5.27 second)."""
    from engine.geometry import separation
    from engine.movement import _local_box, obb_at, signed_turn, swept_rows
    from engine.rulesets.dark_age.movement import interpenetration_dps

    state = ctx.state
    events: list[Event] = []
    for m in moves:
        f = state.formations[m.formation]
        if f.removed or f.morale is not Morale.STEADY:
            continue
        # the table's rows are state.active() and their rectangles (g.obb()): nothing moves here
        table = state.table()
        box = _local_box(f)
        th0 = ctx.start_facing.get(f.id, f.facing)
        dth = signed_turn(th0, m.facing)
        (x0, y0), (x1, y1) = m.from_xy, m.to
        # the friends the path can reach (the others are clear of every pose on it): in order
        near = [
            k
            for k in swept_rows(box, x0, y0, x1, y1, table.arr).tolist()
            if table.sides[k] == f.side and table.forms[k] is not f
        ]
        if not near:
            continue
        friends = [table.forms[k] for k in near]
        arr = table.arr[near]
        n = max(2, math.ceil(m.distance_m / 5.0))
        crossed: set[int] = set()
        for k in range(1, n):
            t = k / n
            pose = obb_at(box, x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, th0 + dth * t)
            crossed |= set((separation(pose, arr) < -0.5).nonzero()[0].tolist())
        for k in sorted(crossed):
            g = friends[k]
            ft, _fg, fform = chapter_view(f)
            gt, _gg, gform = chapter_view(g)
            a, b = interpenetration_dps(
                _formed(fform),
                False,
                _depth_stands(f),
                _formed(gform),
                g.moved_m <= 0.0,
                _depth_stands(g),
                a_elephants=ft is Troop.ELEPHANTS,
                b_elephants=gt is Troop.ELEPHANTS,
            )
            action = f"interpenetrate {f.id}/{g.id} b{state.bound}"
            events.append(Interpenetration(phase, f.id, g.id, a, b))
            for unit, form, n_dp in ((f, fform, a), (g, gform, b)):
                if not n_dp:
                    continue
                dp = ctx.dps.get(unit.id, DisorderPoints()).incur(n_dp, action)
                ctx.dps[unit.id] = dp
                events.append(
                    Disorder(phase, unit.id, n_dp, dp.total, "interpenetration (5.27)", form.value)
                )
    return events


@dataclass(frozen=True, slots=True)
class Manoeuvre(Event):
    """A manoeuvre of 5.17-5.28 made in battle: its name and section, the time it took and the
    DPs it cost."""

    type: ClassVar[str] = "manoeuvre"
    draw: ClassVar[Draw] = Draw.MARK
    formation: str
    manoeuvre: str
    section: str
    time: str
    dps: int

    def actor_id(self) -> str:
        return self.formation

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> Manoeuvre("execute_moves", "a", "wheel", "5.17", "a quarter move", 1).describe()
        'a: wheel (5.17), a quarter move, 1 DP'
        """
        return (
            f"{names(self.formation)}: {self.manoeuvre} ({self.section}), {self.time}, "
            f"{self.dps} DP"
        )


#: 5.21 "This is the only turn allowed by formed units" besides the wheel; the engine wheels at
#: most 90 degrees a move, so a formed unit whose way lies further round about-faces instead
ABOUT_FACE_BEYOND_DEG = 90.0


def turn_about(f: EngineFormation) -> bool:
    """5.21: every man turns where he stands, the stands keep their places and the old rear
    rank is the new front; False (nothing changed) if a part-filled rank would shift."""
    before = {b.id: (b.x, b.y) for b in f.alive_bases}
    saved = {b.id: (b.rank, b.file) for b in f.bases}
    depth = f.ranks
    for b in f.bases:  # the rear rank becomes the front, the left file the right
        b.rank, b.file = depth - 1 - b.rank, f.frontage - 1 - b.file
    f.set_pose(f.cx, f.cy, f.facing + 180.0)
    if any(math.hypot(b.x - before[b.id][0], b.y - before[b.id][1]) > 1e-6 for b in f.alive_bases):
        for b in f.bases:
            b.rank, b.file = saved[b.id]
        f.set_pose(f.cx, f.cy, f.facing - 180.0)
        return False
    return True


def about_faces(ctx: Any, phase: str) -> list[Event]:
    """5.21 About Face, chosen for the automatic commander's moves: a formed, steady unit whose
    move (an advance, attack or charge) goes more than :data:`ABOUT_FACE_BEYOND_DEG` off its
    facing turns about first. Every man turns where he stands (the stands keep their places;
    the old rear rank is the new front), which takes ½ move (5.28 second: the rolled allowance
    halved, rounded up) and costs 1 DP for C Grade troops (not elephants) and for mounted troops
    turning before they move (:func:`about_face_cost`). Run after the move rolls."""
    from engine.geometry import bearing
    from engine.rulesets.dark_age.movement import about_face_cost

    state = ctx.state
    events: list[Event] = []
    for fid, plan in sorted(ctx.plans.items()):
        rolled = ctx.move_rolls.get(fid)
        f = state.formations[fid]
        if fid in ctx.about_faced:  # turned about on an order this bound (manoeuvres.py)
            continue
        if plan.kind not in _CLOSING or rolled is None or f.removed or f.loose:
            continue
        if f.morale is not Morale.STEADY:
            continue
        troop, grade, form = chapter_view(f)
        if not _formed(form):
            continue
        fx, fy = f.centre()
        way = plan.bearing if plan.goal is None else bearing(fx, fy, *plan.goal)
        if abs((way - f.facing + 180.0) % 360.0 - 180.0) <= ABOUT_FACE_BEYOND_DEG:
            continue
        # the engine measures a move by how far any point of a base goes (6.1): turning about,
        # a stand's corners each go its diagonal, so the whole roll must cover that, and the
        # half move left is what the roll has over it at most
        full_m = rolled[2].allowance.least * JAVELIN_THROW_M
        turn_m = max(math.hypot(b.w, b.d) for b in f.alive_bases)
        if full_m < turn_m:
            continue
        if not turn_about(f):
            continue  # a part-filled rank would shift as it came to the front: it wheels instead
        state.version += 1
        ctx.start_facing[fid] = f.facing  # the turn is the about-face, not a wheel (5.17)
        half_m = half_move(rolled[2].allowance).least * JAVELIN_THROW_M
        ctx.about_faced[fid] = (full_m, min(half_m, full_m - turn_m))
        _t, _f, roll = rolled
        ctx.move_rolls[fid] = (
            _t,
            _f,
            dataclasses.replace(roll, allowance=half_move(roll.allowance)),
        )
        cost = about_face_cost(troop, grade, form, moved_first=False)
        events.append(Manoeuvre(phase, fid, "about face", "5.21", cost.time.value, cost.dps))
        if cost.dps:
            dp = ctx.dps.get(fid, DisorderPoints()).incur(cost.dps, f"about face b{state.bound}")
            ctx.dps[fid] = dp
            events.append(Disorder(phase, fid, cost.dps, dp.total, "about face (5.21)", form.value))
    return events


@dataclass(frozen=True, slots=True)
class DisorderCleared(Event):
    """A unit's DPs removed by the rule that removes them (``rule``: :class:`DPRemoval`)."""

    type: ClassVar[str] = "disorder_cleared"
    formation: str
    dps: int
    rule: str

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> DisorderCleared("end", "a", 2, "rally").describe()
        'a loses its 2 DP (rally)'
        """
        return f"{names(self.formation)} loses its {self.dps} DP ({self.rule})"


def rallied_clear_dps(ctx: Any, fleeing_before: set[str], phase: str) -> list[Event]:
    """Units that were fleeing before ``phase`` and no longer are (rallied, W&C's End phase)
    lose all their DPs (:attr:`DPRemoval.RALLY`)."""
    events: list[Event] = []
    for fid in sorted(fleeing_before):
        f = ctx.state.formations[fid]
        dp = ctx.dps.get(fid)
        if f.removed or f.morale is Morale.ROUTING or dp is None or dp.total == 0:
            continue
        ctx.dps[fid] = dp.remove(dp.total, DPRemoval.RALLY)
        events.append(DisorderCleared(phase, fid, dp.total, DPRemoval.RALLY.value))
    return events


def move_rules_for(ctx: Any, min_move_m: float, max_turn_deg: float) -> MoveRules:
    """The bound's movement rules: each formation's rolled allowance in javelin throws (5.9),
    halved across a major obstacle (5.20), impassable ground for light infantry only at one
    javelin throw (5.14), difficult ground closed to mounted troops (5.13)."""

    def speed_m(f: EngineFormation) -> Any:
        rolled = ctx.move_rolls.get(f.id)
        if rolled is None:
            troop = chapter_view(f)[0]
            allow = Allowance(1, 1)  # 5.24 slow walk: one javelin throw without dice
        else:
            troop, _form, roll = rolled
            allow = roll.allowance
        full = allow.least * JAVELIN_THROW_M
        if f.id in ctx.about_faced:  # 5.21: what is left of the roll after turning about
            full = min(full, ctx.about_faced[f.id][1])

        def speed(move_class: int) -> float | None:
            terrain = DarkAgeTerrain(move_class)
            if not passable(terrain, troop, on_road=False):
                return None
            if terrain is DarkAgeTerrain.IMPASSABLE:
                return impassable_crossing(troop)[0]
            if terrain is DarkAgeTerrain.MAJOR_OBSTACLE:
                return half_move(allow).least * JAVELIN_THROW_M
            return full

        return speed

    return MoveRules(
        speed_m=speed_m,
        min_move_m=min_move_m,
        max_turn_deg=max_turn_deg,
        passes=may_pass,
        pivot_wheels=True,  # 5.17: "The unit then pivots on one end of the line"
    )
