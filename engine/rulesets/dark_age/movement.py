"""Dark Age movement (``003_e8e36df29227b52b.txt`` 5.8-5.29): dice-driven moves in javelin throws,
the obligation to move the full roll and its halts, disorder points (DPs), and the manoeuvres as
geometry on the engine's rectangles (:class:`engine.geometry.OBB`, metres, facing clockwise from
north).

**Scale.** The chapter measures in javelin throws (jt) and gives no ground scale. A thrown
javelin carries some 20-30 m in earnest; :data:`JAVELIN_THROW_M` takes 25 m, which is also about
one table inch at the engine's 1 mm = 1 m table (2mm Earth p.1), so War & Conquest's inches
(25.4 m) and these javelin throws are the same size to within 2 %. An infantry unit's
maximum move (5 jt) is then 125 m a phase.

>>> from engine.dice import ScriptedDice
>>> r = roll_move(ScriptedDice([6]), Troop.HEAVY_INFANTRY, Grade.A, Formation.SHIELDWALL)
>>> r.face, r.allowance, r.dps                 # AvD side 6 shows 5: 4 jt and a fatigue DP
(5, Allowance(least=4, most=4), 1)
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.dice import AVERAGE_DIE, D6, Dice, Die
from engine.geometry import OBB, angle_diff, forward, right
from engine.rulesets.dark_age.formations import (
    Formation,
    Grade,
    Troop,
    is_light,
    is_mounted,
)

__all__ = [
    "DEVIATION_DEG",
    "JAVELIN_THROW_M",
    "Allowance",
    "Cost",
    "DPRemoval",
    "DisorderPoints",
    "Halt",
    "MoveKind",
    "MovePhase",
    "MoveRoll",
    "Pivot",
    "Stop",
    "TimeCost",
    "about_face",
    "about_face_cost",
    "allowance",
    "difficult_dp",
    "double_ranks",
    "double_ranks_cost",
    "fatigue_dp",
    "forced_distance",
    "formation_change_cost",
    "half_move",
    "impassable_crossing",
    "incline",
    "interpenetration_dps",
    "major_obstacle_cost",
    "may_incline",
    "may_side_step",
    "may_slow_walk",
    "may_stop_at",
    "mount_cost",
    "move_die",
    "pace_setter",
    "pass_gap_cost",
    "roll_move",
    "side_step",
    "wheel",
    "wheel_cost",
    "within_deviation",
]

JAVELIN_THROW_M = 25.0
#: 5.15: normal moves of formed units go no more than 22.5 degrees off their facing
DEVIATION_DEG = 22.5
_EPS = 1e-9


class MoveKind(enum.Enum):
    NORMAL = "normal"
    FAST = "fast"  # 5.9: charge, evade, rout, retire, pursuit


class MovePhase(enum.Enum):
    """5.8: the two movement phases of a turn (the turn chapter itself is absent)."""

    MARCH = "march"
    TACTICAL = "tactical"


# ---------------------------------------------------------------------------------------------
# 5.9-5.10 the move roll


@dataclass(frozen=True, slots=True)
class Allowance:
    """A move allowance in javelin throws: a unit that moves must go ``least`` (the full roll,
    5.8) and may go up to ``most`` (light troops' optional extra throw, columns' "up to")."""

    least: int
    most: int

    def metres(self) -> tuple[float, float]:
        return self.least * JAVELIN_THROW_M, self.most * JAVELIN_THROW_M


def _cap(troop: Troop) -> int:
    """5.10: at most five javelin throws for infantry, elephants, wagons etc.; six for cavalry."""
    return 6 if is_mounted(troop) else 5


def move_die(troop: Troop, grade: Grade, kind: MoveKind, formation: Formation) -> Die | None:
    """5.9: AvD for A Grade normal moves, d6 otherwise; no die for columns or artillery.

    >>> move_die(Troop.HEAVY_INFANTRY, Grade.A, MoveKind.NORMAL, Formation.SHIELDWALL).name
    'AvD'
    >>> move_die(Troop.HEAVY_INFANTRY, Grade.A, MoveKind.FAST, Formation.SHIELDWALL).name
    'd6'
    >>> move_die(Troop.HEAVY_INFANTRY, Grade.B, MoveKind.NORMAL, Formation.COLUMN) is None
    True
    """
    if troop is Troop.ARTILLERY or (formation is Formation.COLUMN and kind is MoveKind.NORMAL):
        return None
    if kind is MoveKind.NORMAL and grade is Grade.A:
        return AVERAGE_DIE
    return D6


def allowance(
    troop: Troop,
    face: int | None,
    kind: MoveKind,
    formation: Formation,
    *,
    on_road: bool = False,
) -> Allowance:
    """5.9-5.10 (and 5.13 roads): the allowance for a die showing ``face``.

    Infantry (and elephants, horse-holders, pack animals, wagons): the face less one. Cavalry
    and camels: the face (normal), the face plus one (fast). Light troops: +1 optional on a
    normal move, +1 compulsory on a fast move. At least 1, at most 5 (infantry) or 6 (mounted).
    Columns: no die, up to 4 jt (5 for infantry on a road), 6 mounted. Artillery: 1 jt.

    The book's examples: an A Grade light infantry unit rolling 3 on an AvD moves 2, or 3 with
    the optional throw; heavy cavalry charging on a 5 move 6; light cavalry charging move 6 on
    4, 5 or 6.

    >>> allowance(Troop.LIGHT_INFANTRY, 3, MoveKind.NORMAL, Formation.UNFORMED)
    Allowance(least=2, most=3)
    >>> allowance(Troop.HEAVY_CAVALRY, 5, MoveKind.FAST, Formation.SHIELDWALL)
    Allowance(least=6, most=6)
    >>> [allowance(Troop.LIGHT_CAVALRY, f, MoveKind.FAST, Formation.UNFORMED).least
    ...  for f in (3, 4, 5, 6)]
    [5, 6, 6, 6]
    >>> allowance(Troop.DARK_AGE_INFANTRY, None, MoveKind.NORMAL, Formation.COLUMN, on_road=True)
    Allowance(least=1, most=5)
    """
    cap = _cap(troop)
    if troop is Troop.ARTILLERY:
        return Allowance(1, 1)
    if formation is Formation.COLUMN and kind is MoveKind.NORMAL:
        most = 6 if is_mounted(troop) else (5 if on_road else 4)
        return Allowance(1, most)
    if face is None:
        raise ValueError(f"expected a die face for a {kind.value} move of {troop.value}")
    fast_bonus = 1 if kind is MoveKind.FAST else 0
    # infantry: the face less one; mounted: the face (normal), the face plus one (fast)
    base = face + fast_bonus if is_mounted(troop) else face - 1
    if is_light(troop) and kind is MoveKind.FAST:
        base += 1
    least = min(max(base, 1), cap)
    extra = 1 if is_light(troop) and kind is MoveKind.NORMAL else 0
    return Allowance(least, min(least + extra, cap))


def fatigue_dp(formation: Formation, face: int) -> int:
    """5.11: formed units take 1 DP on a move die of 5-6; cuneus only on a 5. Unformed units,
    single models and columns never.

    >>> fatigue_dp(Formation.SHIELDWALL, 6), fatigue_dp(Formation.CUNEUS, 6), fatigue_dp(
    ...     Formation.CUNEUS, 5)
    (1, 0, 1)
    """
    if formation is Formation.SHIELDWALL:
        return 1 if face >= 5 else 0
    if formation is Formation.CUNEUS:
        return 1 if face == 5 else 0
    return 0


def difficult_dp(formation: Formation, face: int, *, column_on_road: bool = False) -> int:
    """5.13: formed units moving (even partly) in difficult terrain take 1 DP on a move die of 4,
    in addition to fatigue; not a column on a road (and a column off a road rolls no die).

    >>> difficult_dp(Formation.SHIELDWALL, 4), difficult_dp(Formation.UNFORMED, 4)
    (1, 0)
    """
    if formation in (Formation.UNFORMED, Formation.SINGLE_MODEL) or column_on_road:
        return 0
    return 1 if face == 4 else 0


@dataclass(frozen=True, slots=True)
class MoveRoll:
    """A move roll: the die used (``None`` if no roll), the face shown, the allowance, the DPs."""

    die: str | None
    face: int | None
    allowance: Allowance
    dps: int


def roll_move(
    dice: Dice,
    troop: Troop,
    grade: Grade,
    formation: Formation,
    kind: MoveKind = MoveKind.NORMAL,
    *,
    difficult: bool = False,
    on_road: bool = False,
    purpose: str = "",
) -> MoveRoll:
    """5.9-5.13: roll the move die (if any) and read the allowance and DPs off it.

    >>> from engine.dice import ScriptedDice
    >>> roll_move(ScriptedDice([4]), Troop.HEAVY_INFANTRY, Grade.B, Formation.CUNEUS,
    ...           difficult=True)
    MoveRoll(die='d6', face=4, allowance=Allowance(least=3, most=3), dps=1)
    """
    die = move_die(troop, grade, kind, formation)
    if die is None:
        return MoveRoll(None, None, allowance(troop, None, kind, formation, on_road=on_road), 0)
    (face,) = die.roll(dice, 1, purpose or f"{kind.value} move {troop.value}")
    dps = fatigue_dp(formation, face)
    if difficult:
        dps += difficult_dp(formation, face, column_on_road=on_road)
    return MoveRoll(die.name, face, allowance(troop, face, kind, formation, on_road=on_road), dps)


def _slowness(troop: Troop) -> int:
    if troop is Troop.ARTILLERY:
        return 0
    return (2 if is_mounted(troop) else 1) * 2 + (1 if is_light(troop) else 0)


_GRADE_ORDER = {Grade.A: 0, Grade.B: 1, Grade.C: 2}


def pace_setter(members: Sequence[tuple[Troop, Grade]]) -> tuple[Troop, Grade]:
    """5.9: a command formation rolls one die, for its slowest troops and, among those, the
    highest grade ("Slowness takes priority over grade").

    >>> pace_setter([(Troop.HEAVY_CAVALRY, Grade.B), (Troop.LIGHT_CAVALRY, Grade.A)])
    (<Troop.HEAVY_CAVALRY: 'heavy cavalry'>, <Grade.B: 'B'>)
    """
    if not members:
        raise ValueError("expected at least one unit in the command formation")
    return min(members, key=lambda m: (_slowness(m[0]), _GRADE_ORDER[m[1]]))


# ---------------------------------------------------------------------------------------------
# 5.8 the full move and its halts


class Halt(enum.Enum):
    """5.8: why a unit may, or must, stop short of its roll."""

    OBJECTIVE = "reached the terrain, fortification or line it was going to"  # may halt there
    OBSTACLE = "would interpenetrate friends or enter, leave or cross terrain"  # <= 1 jt before
    BOW_RANGE = "enemy to the front at bow range (march phase; march columns always)"  # must
    JAVELIN_RANGE = "enemy to the front at javelin range (tactical phase)"  # must


_MANDATORY = frozenset({Halt.BOW_RANGE, Halt.JAVELIN_RANGE})


@dataclass(frozen=True, slots=True)
class Stop:
    """A place along the move (javelin throws from the start) where a halt rule applies."""

    halt: Halt
    at_jt: float


def forced_distance(allow: Allowance, stops: Sequence[Stop], *, extra: bool = False) -> float:
    """How far a unit that moves goes if it takes no optional halt: its full roll (or the
    optional extra), cut at the first compulsory halt (bow or javelin range).

    >>> forced_distance(Allowance(4, 4), [Stop(Halt.JAVELIN_RANGE, 2.5)])
    2.5
    >>> forced_distance(Allowance(2, 3), [], extra=True)
    3.0
    """
    d = float(allow.most if extra else allow.least)
    for s in stops:
        if s.halt in _MANDATORY:
            d = min(d, max(s.at_jt, 0.0))
    return d


def may_stop_at(distance: float, allow: Allowance, stops: Sequence[Stop]) -> bool:
    """5.8/5.10: may a unit that moves stop ``distance`` jt along its path?

    Yes at its full roll (or anywhere up to its optional maximum), at a compulsory halt, at an
    objective it reaches, or anywhere in the last javelin throw before an obstacle; never beyond
    a compulsory halt, never past the maximum, never short of 1 jt unless a halt says so.

    >>> stops = [Stop(Halt.OBSTACLE, 3.0)]
    >>> may_stop_at(4.0, Allowance(4, 4), stops), may_stop_at(2.2, Allowance(4, 4), stops)
    (True, True)
    >>> may_stop_at(1.5, Allowance(4, 4), stops), may_stop_at(4.5, Allowance(4, 4), [])
    (False, False)
    """
    cap = forced_distance(allow, stops, extra=True)
    if distance > cap + _EPS or distance < -_EPS:
        return False
    if distance >= forced_distance(allow, stops) - _EPS:
        return True  # the full roll (cut by a compulsory halt), or the optional extra
    for s in stops:
        if s.halt is Halt.OBJECTIVE and abs(distance - s.at_jt) <= _EPS:
            return True
        if s.halt is Halt.OBSTACLE and s.at_jt - 1.0 - _EPS <= distance <= s.at_jt + _EPS:
            return True
    return False


def half_move(allow: Allowance) -> Allowance:
    """5.28 (second): a ½ move is the rolled allowance halved, rounded up.

    >>> half_move(Allowance(3, 3))
    Allowance(least=2, most=2)
    """
    return Allowance(math.ceil(allow.least / 2), math.ceil(allow.most / 2))


# ---------------------------------------------------------------------------------------------
# Disorder points


class DPRemoval(enum.Enum):
    """The only rule that takes DPs away. The chapter refers to rallying (4.8) but the rally
    chapter is not in the seed; a composed ruleset says which of its rules stands in."""

    RALLY = "rally (4.8; chapter absent, supplied by the composed ruleset)"


@dataclass(frozen=True, slots=True)
class DisorderPoints:
    """A unit's DPs, and the actions already charged: 5.27 (second) "DPs are incurred only once
    for each action" (crossing an obstacle over two turns costs one DP).

    >>> dp = DisorderPoints().incur(1, "cross river t1").incur(1, "cross river t1")
    >>> dp.total
    1
    >>> dp.remove(1, DPRemoval.RALLY).total
    0
    """

    total: int = 0
    charged: frozenset[str] = frozenset()

    def incur(self, n: int, action: str | None = None) -> DisorderPoints:
        """Add ``n`` DPs for ``action`` (None: an action that cannot recur, such as a roll)."""
        if n < 0:
            raise ValueError(f"expected DPs >= 0, got {n}")
        if n == 0 or (action is not None and action in self.charged):
            return self
        charged = self.charged | {action} if action is not None else self.charged
        return DisorderPoints(self.total + n, charged)

    def remove(self, n: int, rule: DPRemoval) -> DisorderPoints:
        if not isinstance(rule, DPRemoval):
            raise TypeError(f"expected a DPRemoval rule, got {rule!r}")
        return DisorderPoints(max(self.total - n, 0), self.charged)


# ---------------------------------------------------------------------------------------------
# Manoeuvres: costs (5.17-5.28) and geometry


class TimeCost(enum.Enum):
    NONE = "none"
    HALF = "½ move"
    FULL = "1 move phase"


@dataclass(frozen=True, slots=True)
class Cost:
    time: TimeCost
    dps: int


def wheel_cost(formation: Formation) -> Cost:
    """5.17: a wheel is a normal move; 1 DP in shieldwall, none in cuneus or column."""
    return Cost(TimeCost.NONE, 1 if formation is Formation.SHIELDWALL else 0)


def formation_change_cost(within_bow_range: bool, *, from_unformed: bool = False) -> Cost:
    """5.18: ½ move, 1 DP within bow range. 5.19: re-forming unformed troops takes a complete
    move and no DPs (the cause of their unformed state must have ended)."""
    if from_unformed:
        return Cost(TimeCost.FULL, 0)
    return Cost(TimeCost.HALF, 1 if within_bow_range else 0)


def major_obstacle_cost(troop: Troop, formation: Formation, *, man_made_temporary: bool) -> Cost:
    """5.20: ½ move, 1 DP (2 mounted); elephants free over non-permanent man-made obstacles;
    unformed units take no manoeuvre DPs (5.16).

    >>> major_obstacle_cost(Troop.HEAVY_CAVALRY, Formation.SHIELDWALL, man_made_temporary=False)
    Cost(time=<TimeCost.HALF: '½ move'>, dps=2)
    """
    if troop is Troop.ELEPHANTS and man_made_temporary:
        return Cost(TimeCost.NONE, 0)
    if formation in (Formation.UNFORMED, Formation.SINGLE_MODEL):
        return Cost(TimeCost.HALF, 0)
    return Cost(TimeCost.HALF, 2 if is_mounted(troop) else 1)


def about_face_cost(troop: Troop, grade: Grade, formation: Formation, moved_first: bool) -> Cost:
    """5.21: ½ move; 1 DP for C Grade (not elephants) and for mounted troops that turn before
    moving; free in time and DPs if unformed.

    >>> about_face_cost(Troop.HEAVY_CAVALRY, Grade.B, Formation.SHIELDWALL, moved_first=False)
    Cost(time=<TimeCost.HALF: '½ move'>, dps=1)
    """
    if formation is Formation.UNFORMED:
        return Cost(TimeCost.NONE, 0)
    c_grade = grade is Grade.C and troop is not Troop.ELEPHANTS
    mounted_standing = is_mounted(troop) and not moved_first
    return Cost(TimeCost.HALF, 1 if c_grade or mounted_standing else 0)


def interpenetration_dps(
    a_formed: bool,
    a_stationary: bool,
    a_depth_stands: int,
    b_formed: bool,
    b_stationary: bool,
    b_depth_stands: int,
    *,
    a_elephants: bool = False,
    b_elephants: bool = False,
) -> tuple[int, int]:
    """5.27 (first): DPs to units A and B when one passes through the other.

    No penalty if one is stationary and one (the same or the other) is unformed and one stand
    deep; otherwise 1 DP
    to each formed unit involved; formed troops passed through by elephants take 2 (the
    elephants none). The book's five examples are in the tests.

    >>> interpenetration_dps(False, False, 1, True, True, 2)     # unformed through stationary
    (0, 0)
    >>> interpenetration_dps(True, False, 2, False, True, 2)     # formed through 2-deep unformed
    (1, 0)
    """
    # the book's fifth example: one unit both unformed and stationary is enough
    shallow_unformed = (not a_formed and a_depth_stands <= 1) or (
        not b_formed and b_depth_stands <= 1
    )
    if (a_stationary or b_stationary) and shallow_unformed:
        return 0, 0

    def dp(formed: bool, elephants: bool, other_elephants: bool) -> int:
        if elephants or not formed:
            return 0
        return 2 if other_elephants else 1

    return dp(a_formed, a_elephants, b_elephants), dp(b_formed, b_elephants, a_elephants)


def within_deviation(facing: float, direction: float) -> bool:
    """5.15: a formed unit's normal move may go at most 22.5 degrees off its facing.

    >>> within_deviation(0.0, 22.5), within_deviation(0.0, 337.0), within_deviation(90.0, 60.0)
    (True, False, False)
    """
    return angle_diff(facing, direction) <= DEVIATION_DEG + _EPS


class Pivot(enum.Enum):
    """5.17: the end of the line the unit pivots on; it turns toward that side."""

    LEFT = "left"
    RIGHT = "right"


def _rotate(x: float, y: float, px: float, py: float, deg: float) -> tuple[float, float]:
    """Rotate (x, y) about (px, py) by ``deg`` clockwise (the facing convention)."""
    r = math.radians(deg)
    c, s = math.cos(r), math.sin(r)
    dx, dy = x - px, y - py
    return px + dx * c + dy * s, py - dx * s + dy * c


def _pivot_point(o: OBB, pivot: Pivot) -> tuple[float, float]:
    fx, fy = forward(o.facing)
    rx, ry = right(o.facing)
    side = -1.0 if pivot is Pivot.LEFT else 1.0
    return o.cx + side * o.hw * rx + o.hd * fx, o.cy + side * o.hw * ry + o.hd * fy


def wheel(o: OBB, degrees: float, pivot: Pivot, allowance_m: float) -> tuple[OBB, float]:
    """5.17: pivot on the front corner of one end by ``degrees`` (>= 0) toward that end; the
    outside front corner's arc is what is measured. Any distance left is moved straight ahead.
    Returns the new rectangle and the metres used (arc plus straight = the whole allowance).

    >>> o = OBB(0.0, 0.0, 40.0, 10.0, 0.0)            # 80 m wide, facing north
    >>> w, used = wheel(o, 90.0, Pivot.RIGHT, 200.0)   # arc of the left corner: 80 * pi / 2
    >>> round(w.facing, 6), round(used, 3)
    (90.0, 200.0)
    >>> wheel(o, 90.0, Pivot.RIGHT, 100.0)
    Traceback (most recent call last):
    ...
    ValueError: a 90.0 degree wheel of an 80 m front needs 125.7 m, allowance 100.0 m
    """
    if degrees < 0:
        raise ValueError(f"expected a wheel angle >= 0 (choose the pivot end), got {degrees}")
    arc = 2.0 * o.hw * math.radians(degrees)
    if arc > allowance_m + _EPS:
        raise ValueError(
            f"a {degrees} degree wheel of an {2 * o.hw:g} m front needs {arc:.1f} m, "
            f"allowance {allowance_m} m"
        )
    px, py = _pivot_point(o, pivot)
    turn = degrees if pivot is Pivot.RIGHT else -degrees
    cx, cy = _rotate(o.cx, o.cy, px, py, turn)
    facing = (o.facing + turn) % 360.0
    rest = allowance_m - arc
    fx, fy = forward(facing)
    return OBB(cx + rest * fx, cy + rest * fy, o.hw, o.hd, facing), allowance_m


def about_face(o: OBB) -> OBB:
    """5.21: turn to face the rear, on the spot (the rectangle keeps its footprint).

    >>> about_face(OBB(5.0, 5.0, 40.0, 10.0, 30.0)).facing
    210.0
    """
    return OBB(o.cx, o.cy, o.hw, o.hd, (o.facing + 180.0) % 360.0)


def double_ranks(o: OBB, stands: int, ranks: int, base_w: float, base_d: float) -> OBB:
    """5.22: a shieldwall doubles (1 -> 2 ranks) or halves (2 -> 1) its ranks on the spot; the
    front rank keeps its line and centre, the depth grows or shrinks behind it.

    >>> double_ranks(OBB(0.0, 0.0, 60.0, 10.0, 0.0), 3, 1, 40.0, 20.0)
    OBB(cx=0.0, cy=-10.0, hw=40.0, hd=20.0, facing=0.0)
    """
    from engine.rulesets.dark_age.formations import ranks_after_doubling

    new = ranks_after_doubling(stands, ranks)
    hw = new[0] * base_w / 2.0
    hd = len(new) * base_d / 2.0
    fx, fy = forward(o.facing)
    front_x, front_y = o.cx + o.hd * fx, o.cy + o.hd * fy
    return OBB(front_x - hd * fx, front_y - hd * fy, hw, hd, o.facing)


def incline(o: OBB, side_m: float, forward_m: float, allowance_m: float) -> OBB:
    """5.26: A Grade infantry in shieldwall move up to half the allowance sideways (``side_m``,
    + right, - left) and at least as far forwards, within the allowance (side plus forward).

    >>> incline(OBB(0.0, 0.0, 40.0, 10.0, 0.0), 25.0, 50.0, 75.0)
    OBB(cx=25.0, cy=50.0, hw=40.0, hd=10.0, facing=0.0)
    """
    s = abs(side_m)
    if s > allowance_m / 2.0 + _EPS or forward_m < s - _EPS or s + forward_m > allowance_m + _EPS:
        raise ValueError(
            f"expected an incline of side <= half the allowance <= forward, side + forward <= "
            f"{allowance_m} m; got side {side_m} m, forward {forward_m} m"
        )
    fx, fy = forward(o.facing)
    rx, ry = right(o.facing)
    return OBB(
        o.cx + side_m * rx + forward_m * fx,
        o.cy + side_m * ry + forward_m * fy,
        o.hw,
        o.hd,
        o.facing,
    )


def side_step(o: OBB, side_m: float, back_m: float) -> OBB:
    """5.23: A and B Grade infantry in shieldwall move up to one javelin throw back or
    sideways instead of a normal move (one or the other; no dice).

    >>> side_step(OBB(0.0, 0.0, 40.0, 10.0, 0.0), 0.0, 25.0)
    OBB(cx=0.0, cy=-25.0, hw=40.0, hd=10.0, facing=0.0)
    """
    if (
        (side_m and back_m)
        or abs(side_m) > JAVELIN_THROW_M + _EPS
        or not (0.0 <= back_m <= JAVELIN_THROW_M + _EPS)
    ):
        raise ValueError(
            f"expected one side-step or step-back of at most {JAVELIN_THROW_M} m, "
            f"got side {side_m} m, back {back_m} m"
        )
    fx, fy = forward(o.facing)
    rx, ry = right(o.facing)
    return OBB(
        o.cx + side_m * rx - back_m * fx, o.cy + side_m * ry - back_m * fy, o.hw, o.hd, o.facing
    )


def _infantry(troop: Troop) -> bool:
    return not is_mounted(troop) and troop not in (
        Troop.ELEPHANTS,
        Troop.ARTILLERY,
        Troop.PACK_ANIMALS,
        Troop.WAGONS,
        Troop.HORSE_HOLDERS,
    )


def may_side_step(troop: Troop, grade: Grade, formation: Formation) -> bool:
    """5.23: only A and B Grade infantry in shieldwall."""
    return _infantry(troop) and grade is not Grade.C and formation is Formation.SHIELDWALL


def may_incline(troop: Troop, grade: Grade, formation: Formation) -> bool:
    """5.26: only A Grade infantry in shieldwall."""
    return _infantry(troop) and grade is Grade.A and formation is Formation.SHIELDWALL


def may_slow_walk(grade: Grade, formation: Formation) -> bool:
    """5.24: A and B Grade formed troops may walk 1 jt forwards without dicing."""
    formed = formation in (Formation.SHIELDWALL, Formation.COLUMN, Formation.CUNEUS)
    return formed and grade is not Grade.C


def double_ranks_cost(grade: Grade, formation: Formation) -> Cost:
    """5.22: shieldwall only; ½ move, 1 DP for C Grade."""
    if formation is not Formation.SHIELDWALL:
        raise ValueError(f"only a shieldwall doubles or halves its ranks, not {formation.value}")
    return Cost(TimeCost.HALF, 1 if grade is Grade.C else 0)


def mount_cost() -> Cost:
    """5.25: mounting or dismounting: ½ move and 1 DP for all troops, unformed included."""
    return Cost(TimeCost.HALF, 1)


def pass_gap_cost(troop: Troop) -> Cost:
    """5.28 (first): reducing frontage by up to half to pass a gap: 1 DP; infantry at ½ move,
    cavalry at full speed (the other way, a formation change, costs as 5.18)."""
    return Cost(TimeCost.NONE if is_mounted(troop) else TimeCost.HALF, 1)


def impassable_crossing(troop: Troop) -> tuple[float, int]:
    """5.14: only light infantry cross impassable ground: 1 jt per move phase and 1 DP for the
    whole crossing (charge it once, under one action key, with :meth:`DisorderPoints.incur`).

    >>> impassable_crossing(Troop.LIGHT_INFANTRY)
    (25.0, 1)
    """
    if troop is not Troop.LIGHT_INFANTRY:
        raise ValueError(f"impassable terrain is impassable to {troop.value} (5.14)")
    return JAVELIN_THROW_M, 1
