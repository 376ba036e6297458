"""Movement (6.1, 7.1, 7.3, 10.3, 11.3 manoeuvring): planning a direction, executing the move.

The mechanics every ruleset shares; the numbers and the speed chart come from the ruleset's
:class:`MoveRules` (2mm Earth's section numbers below are where the mechanics come from).

- Speed: the ruleset's ``speed_m(formation, move_class)`` for the movement class that applies
  to the formation (7.1: a class applies if at least 50 % of the footprint is in it, or it
  covers the whole middle column), the lowest over the classes that apply. The footprint is
  sampled on a 3 x 3 lattice per base (:func:`footprint_classes`) in one gather; a footprint
  whose reach from its centre lies wholly in one class (most of them) is known from one lookup
  of a per-battlefield distance raster, with the same answer.
- A move is planned as a direction (6.1) and executed as far as the allowance, the goal, other
  bases and the terrain permit, at least ``min_move_m`` unless blocked. No wheels: the
  formation may turn (at most ``max_turn_deg``, 6.1) about its centre as long as no point of any
  base moves beyond the allowance (11.3: "as long as no part of the base has moved beyond its
  maximum allowance").
- Bases never overlap: a straight move stops at its exact time of impact with the first other
  formation's rectangle it would enter (separating axes, no sampling); a move with a turn is
  swept in steps of at most 5 m and the first contact bisected (6.1: a formation "can choose
  to halt part-way"); enemy contact means combat (3.2). Rectangles the move cannot reach (by
  the way any point of the mover travels) are left out first, and a turn samples only the
  steps at which something left could be met (after a clear step, the next one at which the
  nearest rectangle's gap could be used up by the way the mover's points travel): the outcome
  is that of sweeping them all.
- Retreat direction (10.3): directly away from the enemy, or up to 45 degrees off it where that
  direction is also 45 degrees from every enemy base; we take the allowed direction nearest the
  home edge (9.1).
"""

from __future__ import annotations

import bisect
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import ndimage

from engine.geometry import (
    _MATH_AXES,
    CONTACT_M,
    OBB,
    FewSeparation,
    _scalar_axes,
    angle_diff,
    bearing,
    forward,
    local,
    obb_array,
    right,
    separation,
    separation_pairs,
)
from engine.spatial import RectIndex, table_boxes
from engine.state import BaseStatus, BattleState, Formation, Morale
from scenario_builder.battlefield import Battlefield

if TYPE_CHECKING:
    from engine.terrain import Ground


__all__ = [
    "MovePlan",
    "MoveRules",
    "allowance_for",
    "footprint_classes",
    "max_advance",
    "retreat_bearing",
    "update_contacts",
]

SWEEP_STEP_M = 5.0
_LATTICE = [(a, l_) for a in (-13.3, 0.0, 13.3) for l_ in (-6.6, 0.0, 6.6)]


@dataclass(frozen=True, slots=True)
class MoveRules:
    """What a ruleset tells the movement mechanics.

    ``speed_m(formation)(move_class)``: how far the formation may move this phase in one
    movement class of the ruleset's terrain table (None: it cannot enter). Class 0 of the
    ``move`` role is open ground (the class of a footprint that is in no other); ``min_move_m``:
    a move shorter than this to the goal is not made; ``max_turn_deg``: the most a formation
    turns in one move.
    """

    speed_m: Callable[[Formation], Callable[[int], float | None]]
    min_move_m: float = 0.0
    max_turn_deg: float = 90.0
    #: ``passes(mover, friend)``: may the mover go through this friend (Dark Age 5.27
    #: interpenetration)? The sweep ignores such friends but the move may not end on one.
    #: None (2mm Earth): every other formation stops a move.
    passes: Callable[[Formation, Formation], bool] | None = None
    #: Dark Age 5.17: a turn is a wheel pivoting on the front corner of the end turned toward
    #: (False: 2mm Earth turns a formation about its centre)
    pivot_wheels: bool = False


@dataclass(slots=True)
class MovePlan:
    """1.1 plan: a direction (6.1), where to head, and why."""

    formation: str
    kind: str  # advance | attack | charge | retreat | rout | pursue | join | ladder | none
    bearing: float = 0.0
    goal: tuple[float, float] | None = None  # centre to head for (None: as far as allowed)
    facing: float | None = None  # facing at the end (None: keep)
    target: str | None = None
    max_m: float | None = None  # stop after this far (ranged troops closing to range)


# -- terrain (7.1) ---------------------------------------------------------------------------


_LAT_A = np.array([a for a, _ in _LATTICE])
_LAT_L = np.array([l_ for _, l_ in _LATTICE])


def _lattice_local(f: Formation) -> tuple[np.ndarray, np.ndarray]:
    """The lattice of the living bases in the formation's frame: (across, along), flat (N,)."""
    fx, fy = forward(f.facing)
    rx, ry = right(f.facing)
    xs, ys = [], []
    for b in f.bases:
        if b.status is not BaseStatus.DEAD:
            xs.append(b.x)
            ys.append(b.y)
    dx = np.array(xs, dtype=float) - f.cx
    dy = np.array(ys, dtype=float) - f.cy
    # geometry.local() of every base, then the lattice offsets, in the same float operations
    ba = dx * rx + dy * ry
    bl = dx * fx + dy * fy
    return (ba[:, None] + _LAT_A).reshape(-1), (bl[:, None] + _LAT_L).reshape(-1)


def _place(
    loc: tuple[np.ndarray, np.ndarray], cx: float, cy: float, th: float
) -> tuple[np.ndarray, np.ndarray]:
    """Frame coordinates ``loc`` placed at a pose: world x and y (N,)."""
    a, l_ = loc
    r = math.radians(th)  # forward(th) is (sin, cos), right(th) (cos, -sin): one of each
    fx = math.sin(r)
    fy = rx = math.cos(r)
    ry = -fx
    return cx + a * rx + l_ * fx, cy + a * ry + l_ * fy


def _lattice(f: Formation, pose: tuple[float, float, float] | None = None) -> np.ndarray:
    """Sample points (N, 2) of the living bases, optionally at another pose."""
    cx, cy, th = pose if pose is not None else (f.cx, f.cy, f.facing)
    x, y = _place(_lattice_local(f), cx, cy, th)
    return np.column_stack([x, y])


_COLUMNS: dict[tuple[float, float, float], np.ndarray] = {}


def _middle_local(f: Formation) -> tuple[np.ndarray, np.ndarray]:
    """The middle column's sample points in the formation's frame: (across, along) (n,)."""
    ca, ls = _middle_frame(f)
    return np.full(ls.shape[0], ca), ls


def _middle_column(f: Formation, pose: tuple[float, float, float] | None = None) -> np.ndarray:
    cx, cy, th = pose if pose is not None else (f.cx, f.cy, f.facing)
    x, y = _place(_middle_local(f), cx, cy, th)
    return np.column_stack([x, y])


def footprint_classes(
    bf: Ground, f: Formation, layer: str = "move", pose: tuple[float, float, float] | None = None
) -> tuple[list[int], bool]:
    """7.1: the classes of ``layer`` that apply to the formation's footprint (non-default ones
    with >= 50 % of the footprint, or covering the whole middle column), and whether any part of
    the footprint is off the map."""
    return _footprint_at(
        bf, _footprint_local(f), layer, pose if pose is not None else (f.cx, f.cy, f.facing)
    )


#: the lattice offsets as a (2, 1, 9) block: row 0 across, row 1 along
_LAT = np.array([_LAT_A, _LAT_L])[:, None, :]
_LAT_A_MAX = float(np.abs(_LAT_A).max())
_LAT_L_MAX = float(np.abs(_LAT_L).max())


class Frame:
    """A footprint's sample points in the formation's frame, for placing at many poses: what
    :func:`_lattice_local` and :func:`_middle_local` give (the same float operations, in plain
    floats for the few bases). The points are written into one array only when a pose asks
    for them: most poses are known to be all open ground from ``reach`` alone, so the bases
    are not even read until then (the formation must stay put while its frame is in use)."""

    __slots__ = ("_ca", "_col", "_f", "_pts", "_rev", "box", "nb", "reach")

    def __init__(self, f: Formation) -> None:
        # forward(facing) is (sin, cos) and right(facing) (cos, -sin) of one radians(facing)
        r = math.radians(f.facing)
        fx = math.sin(r)
        fy = rx = math.cos(r)
        ry = -fx
        o = f.obb()
        # geometry.local(OBB(cx, cy, 0, 0, facing), o.cx, o.cy): the same sums
        dx, dy = o.cx - f.cx, o.cy - f.cy
        ca, cl = dx * rx + dy * ry, dx * fx + dy * fy
        # every living base's centre lies within the rectangle less half a pitch across and
        # half a base deep (Formation.obb widens the bases' own frame values, the very sums
        # the lattice starts from, by those), so its lattice lies within these of the centre:
        # a bound on what the bases one by one would give (1 mm to spare for the rounding of
        # the rectangle's sums), only ever a little further out, which merely makes a uniform
        # footprint a little less often known without sampling (never a different class)
        gap = f.loose_gap / 2 if f.loose else 0
        n = f.n_alive
        far = 0.0
        if n:
            ea = abs(ca) + o.hw - (f.pitch_w / 2.0 - gap)
            el = abs(cl) + o.hd - f.base_d / 2.0
            far = math.hypot(max(ea, 0.0) + _LAT_A_MAX, max(el, 0.0) + _LAT_L_MAX) + 1e-3
        # the middle column runs from cl - hd + 2.5 to cl + hd - 2.5
        far = max(far, math.hypot(abs(ca), abs(cl) + o.hd))
        self._f = f
        self._rev = f.revision
        self._ca = ca
        self._col = (cl, o.hd)
        #: :func:`_local_box` of the formation (the same sums of the same sine and cosine):
        #: worked out here anyway, so a move asks for it once
        self.box = (ca, cl, o.hw, o.hd)
        self._pts: np.ndarray | None = None
        #: how many of the points belong to the lattice
        self.nb = 9 * n
        #: no point is further than this from the formation's centre (metres, rounded up)
        self.reach = far * (1.0 + 1e-9) + 1e-6

    def base_frame(self) -> tuple[list[float], list[float]]:
        """Each living base's centre in the formation's frame: (across, along), slot order."""
        f = self._f
        assert f.revision == self._rev, f"{f.id} changed while its footprint frame was in use"
        r = math.radians(f.facing)
        fx = math.sin(r)
        fy = rx = math.cos(r)
        ry = -fx
        cx, cy = f.cx, f.cy
        ba: list[float] = []
        bl: list[float] = []
        for b in f.bases:
            if b.status is not BaseStatus.DEAD:
                dx = b.x - cx
                dy = b.y - cy
                ba.append(dx * rx + dy * ry)
                bl.append(dx * fx + dy * fy)
        return ba, bl

    @property
    def pts(self) -> np.ndarray:
        """(2, N): across then along; the lattice of every living base (9 a base, base by
        base), then the middle column."""
        if self._pts is None:
            nb = self.nb
            ls = _column(*self._col)
            out = np.empty((2, nb + ls.shape[0]))
            out[:, :nb] = (np.array(self.base_frame()).reshape(2, -1, 1) + _LAT).reshape(2, -1)
            out[0, nb:] = self._ca
            out[1, nb:] = ls
            self._pts = out
        return self._pts


def _footprint_local(f: Formation) -> Frame:
    """The footprint's sample points in the formation's frame (lattice, then middle column)
    and how many belong to the lattice: the same until the formation moves or loses a base."""
    return Frame(f)


def _column(cl: float, hd: float) -> np.ndarray:
    """The along values of a middle column centred ``cl`` along, ``hd`` half deep."""
    n = max(2, int(2 * hd / 5.0) + 1)
    key = (cl, hd, float(n))
    ls = _COLUMNS.get(key)
    if ls is None:  # linspace is slow for what it does, and the same columns recur all battle
        if len(_COLUMNS) > 50_000:
            _COLUMNS.clear()
        ls = _COLUMNS[key] = np.linspace(cl - hd + 2.5, cl + hd - 2.5, n)
    return ls


def _middle_frame(f: Formation) -> tuple[float, np.ndarray]:
    """:func:`_middle_local` as (across, the along values)."""
    o = f.obb()
    ca, cl = local(OBB(f.cx, f.cy, 0, 0, f.facing), o.cx, o.cy)
    return ca, _column(cl, o.hd)


def _place_frame(loc: np.ndarray, cx: float, cy: float, th: float) -> np.ndarray:
    """:func:`_place` of frame points (2, N): world x and y as rows (2, N), the same float
    operations ``(cx + a * rx) + l * fx`` on both rows at once."""
    r = math.radians(th)
    fx = math.sin(r)
    fy = rx = math.cos(r)
    k = np.array([[cx, rx, fx], [cy, -fx, fy]])
    return (k[:, :1] + loc[0] * k[:, 1:2]) + loc[1] * k[:, 2:]


def _codes(bf: Ground, layer: str, pts: np.ndarray) -> tuple[np.ndarray, bool]:
    """``bf.codes_on_map(layer, x, y)`` of points (2, N) and whether all are on the map.

    On a :class:`~scenario_builder.battlefield.Battlefield`, points whose cells are all at
    least one cell in from the edge are read by one gather: the row and column of
    ``Grid.rowcol`` (``(y0 - y) / res`` is ``(y - y0) / -res`` exactly; ``astype`` truncates
    as ``floor`` does from 1 up), no clipping needed, and every such point is on the map.
    Points near or past the edge, and other grounds, go through ``codes_on_map`` itself, so
    the values are equal everywhere."""
    if pts.shape[1] and type(bf).codes_on_map is Battlefield.codes_on_map:
        t = bf.transform
        res = bf.res
        h, w = bf.shape
        g = np.array([[t.c, res, w - 1], [t.f, -res, h - 1]])
        q = (pts - g[:, :1]) / g[:, 1:2]
        if q.min() >= 1.0 and (q < g[:, 2:]).all():
            q = q.astype(np.intp)
            return bf.layer(layer)[q[1], q[0]], True
    values, inside = bf.codes_on_map(layer, pts[0], pts[1])
    return values, bool(inside.all())


#: battlefield -> {layer: each cell's chessboard distance (cells, at most 255) to the nearest
#: cell next to one of another class (8 neighbours) or on the map's outermost ring}: the
#: layers are read-only, so worked out once; weak, so it goes with the battlefield
_UNIFORM: weakref.WeakKeyDictionary[Battlefield, dict[str, np.ndarray]] = (
    weakref.WeakKeyDictionary()
)


def _uniform_distance(bf: Battlefield, layer: str) -> np.ndarray:
    """:data:`_UNIFORM` of one layer. A cell further than k from every such cell has every
    cell within k of it in its own class (a chessboard path to a cell of another class would
    cross two neighbours of different classes, both nearer) and one cell in from the edge."""
    per = _UNIFORM.get(bf)
    if per is None:
        per = _UNIFORM[bf] = {}
    dist = per.get(layer)
    if dist is None:
        lay = bf.layer(layer)
        edge = np.zeros(lay.shape, dtype=bool)
        for a, b, ia, ib in (
            (lay[1:, :], lay[:-1, :], np.s_[1:, :], np.s_[:-1, :]),
            (lay[:, 1:], lay[:, :-1], np.s_[:, 1:], np.s_[:, :-1]),
            (lay[1:, 1:], lay[:-1, :-1], np.s_[1:, 1:], np.s_[:-1, :-1]),
            (lay[1:, :-1], lay[:-1, 1:], np.s_[1:, :-1], np.s_[:-1, 1:]),
        ):
            differs = a != b
            edge[ia] |= differs
            edge[ib] |= differs
        edge[[0, -1], :] = True
        edge[:, [0, -1]] = True
        dist = per[layer] = np.minimum(
            ndimage.distance_transform_cdt(~edge, metric="chessboard"), 255
        ).astype(np.uint8)
    return dist


def _uniform_class(bf: Ground, layer: str, cx: float, cy: float, reach: float) -> int | None:
    """The class of ``layer`` at every point within ``reach`` metres of (cx, cy) when they
    are all one class and on the map at least one cell in from its edge (so :func:`_codes`
    would read them by the gather), else None: then a footprint there needs no sampling. A
    margin of two cells covers the rounding of the points and of the floor."""
    last = _LAST_UNIFORM
    if last is not None and last[0]() is bf and last[1] == layer:
        x0, y0, res, h, w, dist, lay = last[2]
    else:
        if not isinstance(bf, Battlefield) or type(bf).codes_on_map is not Battlefield.codes_on_map:
            return None
        t = bf.transform
        h, w = bf.shape
        # the grid's numbers and arrays of the battlefield last asked (asked three times a
        # move, most often of one battlefield and one layer; its layers are read-only)
        x0, y0, res = t.c, t.f, bf.res
        dist, lay = _uniform_distance(bf, layer), bf.layer(layer)
        _remember_uniform(bf, layer, (x0, y0, res, h, w, dist, lay))
    col = math.floor((cx - x0) / res)
    row = math.floor((y0 - cy) / res)
    if not (0 <= row < h and 0 <= col < w):
        return None
    k = int(reach / res) + 2
    if k >= 255 or int(dist[row, col]) <= k:
        return None
    return int(lay[row, col])


#: (the battlefield, weakly; the layer; its grid origin, cell size, shape, distance raster and
#: class layer) of the last :func:`_uniform_class` lookup
_LAST_UNIFORM: tuple[weakref.ref[Battlefield], str, tuple[Any, ...]] | None = None


def _remember_uniform(bf: Battlefield, layer: str, grid: tuple[Any, ...]) -> None:
    global _LAST_UNIFORM
    _LAST_UNIFORM = (weakref.ref(bf), layer, grid)


def _footprint_at(
    bf: Ground,
    frame: Frame,
    layer: str,
    pose: tuple[float, float, float],
) -> tuple[list[int], bool]:
    """:func:`footprint_classes` from the frame points of :func:`_footprint_local`."""
    name = "move" if layer == "move" else "cover"
    one = _uniform_class(bf, name, pose[0], pose[1], frame.reach)
    if one is not None:
        # all the footprint in one class, on the map: what sampling would find (the class
        # covers all the body and all the middle column; class 0 is the default, no class)
        return ([] if one == 0 else [one]), False
    nb = frame.nb
    values, on = _codes(bf, name, _place_frame(frame.pts, *pose))
    if on and not values.any():
        return [], False  # all open ground (class 0), the commonest footprint
    body, middle = values[:nb], values[nb:]
    classes: list[int] = []
    inside = body if on else body[body >= 0]
    if inside.size:
        counts = np.bincount(inside).tolist()
        for u, c in enumerate(counts):
            if u != 0 and c and c / nb >= 0.5:
                classes.append(u)
    if middle.size and (on or (middle >= 0).all()):
        u = int(middle[0])
        if u != 0 and (middle == u).all() and u not in classes:
            classes.append(u)
    return sorted(classes), not on


#: a class no troops may enter (8.3: cavalry onto walls, ground troops up a wall without ladders)
FORBIDDEN = 99


def allowance_for(f: Formation, classes: list[int], rules: MoveRules) -> float | None:
    """Metres the formation may move given the terrain classes that apply (None = cannot)."""
    if FORBIDDEN in classes:
        return None
    speed = rules.speed_m(f)
    if len(classes) < 2:
        # one class (open ground is class 0): its speed, what the min of one value gives
        return speed(classes[0] if classes else 0)
    speeds = [speed(c) for c in classes]
    if any(s is None for s in speeds):
        return None
    return min(x for x in speeds if x is not None)


# -- geometry of a rigid move ------------------------------------------------------------------


def _local_box(f: Formation) -> tuple[float, float, float, float]:
    """The living bases' rectangle in the formation frame: (across, along, hw, hd)."""
    o = f.obb()
    # geometry.local(OBB(f.cx, f.cy, 0, 0, f.facing), o.cx, o.cy) from one sine and cosine
    r = math.radians(f.facing)
    fx = math.sin(r)
    fy = rx = math.cos(r)
    dx, dy = o.cx - f.cx, o.cy - f.cy
    return dx * rx + dy * -fx, dx * fx + dy * fy, o.hw, o.hd


def obb_at(box: tuple[float, float, float, float], cx: float, cy: float, th: float) -> OBB:
    a, l_, hw, hd = box
    r = math.radians(th)  # forward(th) and right(th) from one sine and cosine
    fx = math.sin(r)
    fy = rx = math.cos(r)
    ry = -fx
    return OBB(cx + a * rx + l_ * fx, cy + a * ry + l_ * fy, hw, hd, th % 360.0)


def _pose_axes(
    box: tuple[float, float, float, float], cx: float, cy: float, th: float
) -> tuple[float, float, float, float, tuple[float, float, float, float]]:
    """``obb_at(box, cx, cy, th)`` as (cx, cy, hw, hd) and ``_scalar_axes`` of its facing,
    with one sine and cosine: a facing ``th % 360`` equal to ``th`` (0 < th < 360, the same
    float) has ``_scalar_axes`` equal to obb_at's own sine and cosine where those come from
    ``math`` (:data:`_MATH_AXES`); other facings ask ``_scalar_axes``. No OBB is built and
    no facing kept in ``_scalar_axes``' memo (a turning sweep's poses: a new facing each)."""
    a, l_, hw, hd = box
    r = math.radians(th)
    fx = math.sin(r)
    fy = rx = math.cos(r)
    ry = -fx
    axes = (fx, fy, fy, ry) if _MATH_AXES and 0.0 < th < 360.0 else _scalar_axes(th % 360.0)
    return cx + a * rx + l_ * fx, cy + a * ry + l_ * fy, hw, hd, axes


def _overlap_at(
    few: FewSeparation, box: tuple[float, float, float, float], cx: float, cy: float, th: float
) -> int | None:
    """``few.first_overlap(obb_at(box, cx, cy, th))`` (:func:`_pose_axes`)."""
    return few.first_overlap_axes(*_pose_axes(box, cx, cy, th))


def _gaps_at(
    few: FewSeparation, box: tuple[float, float, float, float], cx: float, cy: float, th: float
) -> list[float]:
    """``few.gaps(obb_at(box, cx, cy, th))`` (:func:`_pose_axes`)."""
    return few.gaps_axes(*_pose_axes(box, cx, cy, th))


def _corner_offsets(box: tuple[float, float, float, float]) -> list[tuple[float, float]]:
    a, l_, hw, hd = box
    return [(a + sa * hw, l_ + sl * hd) for sa in (-1, 1) for sl in (-1, 1)]


#: the last turning :func:`_disp_vectors` call, one tuple (box, th, dth, the vectors). A
#: turning move asks for the same turn again (``_pose_toward``'s, then the sweep's length of
#: the move), with the very same objects: known by identity, the same bits for sure (and kept
#: alive here, so no other object can take their ids). One tuple, read and replaced whole:
#: battles fought in threads of one process (a Dask worker with several threads) never read
#: one call's key with another's vectors
_LAST_DISP: list[tuple[Any, Any, Any, list[tuple[float, float]]]] = [(None, None, None, [])]


def _disp_vectors(box: Any, th: float, dth: float) -> list[tuple[float, float]]:
    """World displacement of each corner from rotating by ``dth`` about the centre (do not
    change the list: the last turn's is kept)."""
    th1 = th + dth
    if th1 == th and math.copysign(1.0, th1) == math.copysign(1.0, th):
        # no turn (most moves): the same bits both ways, and x - x is +0.0 for any finite x
        return [(0.0, 0.0)] * 4
    last = _LAST_DISP[0]
    if box is last[0] and th is last[1] and dth is last[2]:
        return last[3]
    # forward(th) is (sin, cos) and right(th) (cos, -sin) of one radians(th): one sine and
    # cosine a facing, the corners of _corner_offsets in its order, the same float operations
    r = math.radians(th)
    s0, c0 = math.sin(r), math.cos(r)
    r = math.radians(th1)
    s1, c1 = math.sin(r), math.cos(r)
    a_, l_, hw, hd = box
    out = []
    for a in (a_ + -1 * hw, a_ + 1 * hw):
        for l_k in (l_ + -1 * hd, l_ + 1 * hd):
            out.append(
                (
                    a * c1 + l_k * s1 - (a * c0 + l_k * s0),
                    a * -s1 + l_k * c1 - (a * -s0 + l_k * c0),
                )
            )
    _LAST_DISP[0] = (box, th, dth, out)
    return out


def pivot_shift(box: Any, th: float, dth: float) -> tuple[float, float]:
    """The centre's displacement that keeps the front corner of the end a turn of ``dth`` goes
    toward where it is (Dark Age 5.17: "pivots on one end of the line"): the right end for a
    clockwise turn.

    >>> [round(v, 6) for v in pivot_shift((0.0, 0.0, 40.0, 10.0), 0.0, 90.0)]
    [30.0, 50.0]
    """
    if dth == 0:
        return 0.0, 0.0
    a, l_, hw, hd = box
    ca, cl = a + math.copysign(hw, dth), l_ + hd
    f0, r0 = forward(th), right(th)
    f1, r1 = forward(th + dth), right(th + dth)
    return (
        ca * r0[0] + cl * f0[0] - (ca * r1[0] + cl * f1[0]),
        ca * r0[1] + cl * f0[1] - (ca * r1[1] + cl * f1[1]),
    )


def max_advance(
    box: Any,
    th: float,
    dth: float,
    u: tuple[float, float],
    allowance: float,
    shift: tuple[float, float] | None = None,
    disp: list[tuple[float, float]] | None = None,
) -> float:
    """Largest d with every corner's displacement |rotation (+ shift) + d*u| <= allowance (-1
    if none). ``disp``: ``_disp_vectors(box, th, dth)`` if the caller has it.

    >>> max_advance((0.0, 0.0, 20.0, 10.0), 0.0, 0.0, (0.0, 1.0), 100.0)
    100.0
    """
    best = math.inf
    if disp is None:
        disp = _disp_vectors(box, th, dth)
    if shift is not None:
        disp = [(vx + shift[0], vy + shift[1]) for vx, vy in disp]
    for vx, vy in disp:
        vu = vx * u[0] + vy * u[1]
        disc = vu * vu - (vx * vx + vy * vy) + allowance * allowance
        if disc < 0:
            return -1.0
        best = min(best, -vu + math.sqrt(disc))
    return best


def max_corner_displacement(box: Any, th: float, dth: float, t: tuple[float, float]) -> float:
    return max(math.hypot(vx + t[0], vy + t[1]) for vx, vy in _disp_vectors(box, th, dth))


def _turn_reach(box: Any, th: float) -> Callable[[float], float]:
    """``max_corner_displacement(box, th, dth, (0.0, 0.0))`` as a function of ``dth``, for a
    search over turns: the corners' place at ``th`` worked out once, the rest in the same float
    operations as :func:`_disp_vectors` (adding +0.0 changes no hypot)."""
    r0 = math.radians(th)
    s0, c0 = math.sin(r0), math.cos(r0)  # forward(th) is (s0, c0), right(th) (c0, -s0)
    corners = [(a, l_, a * c0 + l_ * s0, a * -s0 + l_ * c0) for a, l_ in _corner_offsets(box)]
    sign = math.copysign(1.0, th)

    def reach(dth: float) -> float:
        th1 = th + dth
        if th1 == th and math.copysign(1.0, th1) == sign:
            return 0.0  # no turn: _disp_vectors' zeros
        r1 = math.radians(th1)
        s1, c1 = math.sin(r1), math.cos(r1)
        return max(
            math.hypot(a * c1 + l_ * s1 - x0, a * -s1 + l_ * c1 - y0) for a, l_, x0, y0 in corners
        )

    return reach


def signed_turn(a: float, b: float) -> float:
    """Signed smallest turn from bearing a to bearing b, degrees in (-180, 180]."""
    d = (b - a) % 360.0
    return d - 360.0 if d > 180.0 else d


# -- retreat direction (10.3) ------------------------------------------------------------------


def retreat_bearing(
    centre: tuple[float, float],
    enemy_centre: tuple[float, float] | None,
    enemy_bases: list[tuple[float, float]],
    home: float,
    step: float = 5.0,
) -> float:
    """10.3: directly away from the enemy formation, or up to 45 degrees off where the direction
    is also at least 45 degrees from every enemy base; the allowed direction nearest ``home``.

    >>> retreat_bearing((0, 0), (0, 100), [], home=180.0)       # enemy north: go south
    180.0
    >>> retreat_bearing((0, 0), (0, 100), [], home=270.0)       # home west: veer 45 degrees
    225.0
    >>> retreat_bearing((0, 0), (0, 100), [(-100, -100)], home=270.0)  # enemy base south-west
    180.0
    """
    if enemy_centre is None:
        return home % 360.0
    away = bearing(enemy_centre[0], enemy_centre[1], centre[0], centre[1])
    best_key = (angle_diff(away, home), 0.0)
    # the candidates in the order they are weighed (n), those nearer home than ``away`` sorted
    # by (nearness to home, k, n): the first allowed one is the loop's pick, ties going to
    # the first weighed as in the loop, with no enemy base looked at for the rest
    better: list[tuple[float, float, int, float]] = []
    n = 0
    k = step
    while k <= 45.0 + 1e-9:
        for cand in ((away + k) % 360.0, (away - k) % 360.0):
            d = abs(cand - home) % 360.0  # angle_diff(cand, home), inlined
            key = (360.0 - d if d > 180.0 else d, k)
            if key < best_key:
                better.append((key[0], k, n, cand))
            n += 1
        k += step
    if better:
        better.sort()
        cx, cy = centre
        eb = [bearing(cx, cy, x, y) for x, y in enemy_bases]
        for _d, _k, _n, cand in better:
            # angle_diff(cand, e) >= 45: d = |cand - e| % 360 in [45, 315] (360 - d is exact
            # for d in [180, 360], so the two tests agree bit for bit)
            if all(45.0 <= abs(cand - e) % 360.0 <= 315.0 for e in eb):
                return round(cand, 6) % 360.0
    return round(away, 6) % 360.0


# -- contacts (3.2) ---------------------------------------------------------------------------


#: up to this many formations on the table, contacts are looked for box by box in numpy (no
#: tree): measured per call, 371 against 765 us at 111 formations, 1.8 against 2.9 ms at 472,
#: but 6.4 against 5.4 ms at 952 (the same pairs either way, in the same order)
_FEW_FORMATIONS = 512

#: how far apart two formations' boxes may be and still hold a contact (3.2: a gap, by
#: geometry.separation, of at most CONTACT_M). separation is the largest gap along the two
#: rectangles' four axes, which can be less than the distance between them: rectangles grown
#: by CONTACT_M / 2 along their own axes meet, so the rectangles are at most sqrt(2) CONTACT_M
#: apart (corner to corner), and their boxes no farther along either axis; a millimetre more
#: for rounding. Two diamonds tip to tip 1.41 m apart along x are 1.0 m apart by separation
_CANDIDATE_M = CONTACT_M * math.sqrt(2.0) + 1e-3


def update_contacts(state: BattleState) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Which enemy formations touch each formation, and which bases touch (3.2).

    Sets ``state.contacts[fid]`` (sorted enemy ids) and returns base pairs per formation pair.
    """
    # the table's columns: the rectangles of state.active(), in its order, kept up to date
    t = state.table()
    forms, arr, sides = t.forms, t.arr, t.sides
    contacts: dict[str, set[str]] = {}  # only those touching one (most touch none)
    pairs: dict[tuple[str, str], list[tuple[str, str]]] = {}
    # the pairs whose boxes are within contact distance (engine.spatial), above the diagonal,
    # row by row (the order of the old loops), of two sides; each pair's gap by
    # separation_many's sums
    if len(forms) <= _FEW_FORMATIONS:
        # up to a few hundred formations: every box against every box in numpy costs less
        # than building a tree; boxes within _CANDIDATE_M along both axes hold every pair
        # within CONTACT_M
        b = table_boxes(t)  # the table's boxes, shared with the other phases
        ii, jj = _two_side_pairs(b, sides)
    else:
        ii, jj = RectIndex(arr).within_many(np.arange(len(forms)), _CANDIDATE_M)
        upper = jj > ii
        ii, jj = ii[upper], jj[upper]
        two = sides[ii] != sides[jj]
        ii, jj = ii[two], jj[two]
    # (take(): the fancy index's rows at a fraction of its cost)
    touch = separation_pairs(arr.take(ii, axis=0), arr.take(jj, axis=0)) <= CONTACT_M
    for i, j in zip(ii[touch].tolist(), jj[touch].tolist(), strict=True):
        f, g = forms[i], forms[j]
        touching = base_pairs(f, g)
        if touching:
            contacts.setdefault(f.id, set()).add(g.id)
            contacts.setdefault(g.id, set()).add(f.id)
            pairs[(f.id, g.id)] = touching
            pairs[(g.id, f.id)] = [(b, a) for a, b in touching]
    # every formation on the table, in its order: the sorted enemies in contact, or none
    none: tuple[str, ...] = ()
    state.contacts = {
        f.id: none if (v := contacts.get(f.id)) is None else tuple(sorted(v)) for f in forms
    }
    return pairs


def _two_side_pairs(b: np.ndarray, sides: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (i < j, row-major order) of rows of two sides whose boxes ``b`` ((N, 4):
    x0, y0, x1, y1) are within ``_CANDIDATE_M`` along both axes: those of the whole matrix
    of every box against every box above its diagonal. With two sides on the table (the
    usual battle) only one side's rows against the other's are compared, a quarter of the
    matrix (what grows as N^2 below _FEW_FORMATIONS), and the pairs put back in row order."""
    reach = _CANDIDATE_M
    if not sides.shape[0]:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    mine = sides == sides[0]
    a = mine.nonzero()[0]
    o = (~mine).nonzero()[0]
    rest = sides.take(o)
    if o.size and (rest == rest[0]).all():
        ba, bo = b.take(a, axis=0), b.take(o, axis=0)
        near = (ba[:, None, 0] <= bo[None, :, 2] + reach) & (
            bo[None, :, 0] <= ba[:, None, 2] + reach
        )
        near &= (ba[:, None, 1] <= bo[None, :, 3] + reach) & (
            bo[None, :, 1] <= ba[:, None, 3] + reach
        )
        ka, ko = np.nonzero(near)
        pa, po = a.take(ka), o.take(ko)
        ii, jj = np.minimum(pa, po), np.maximum(pa, po)
        order = np.lexsort((jj, ii))  # by row, then column: np.nonzero's order over the matrix
        return ii.take(order), jj.take(order)
    # one side or more than two: the whole matrix, the pairs of two sides above its diagonal
    near = (b[:, None, 0] <= b[None, :, 2] + reach) & (b[None, :, 0] <= b[:, None, 2] + reach)
    near &= (b[:, None, 1] <= b[None, :, 3] + reach) & (b[None, :, 1] <= b[:, None, 3] + reach)
    ii, jj = np.nonzero(near)
    upper = jj > ii
    ii, jj = ii[upper], jj[upper]
    two = sides[ii] != sides[jj]
    return ii[two], jj[two]


def arr_row(arr: np.ndarray, i: int) -> OBB:
    return OBB(*(float(v) for v in arr[i]))


#: above this many pairs of bases, base_pairs culls by the centres first (numpy's calls cost
#: more than the gaps of a few small formations)
_FEW_BASE_PAIRS = 36


def base_pairs(f: Formation, g: Formation) -> list[tuple[str, str]]:
    """Pairs of living bases (of f, of g) in base-to-base contact."""
    gb = g.alive_bases
    if not gb:
        return []
    g_boxes = [[float(v) for v in b.obb()] for b in gb]
    fb = f.alive_bases
    near = [True] * len(fb)
    if len(fb) * len(gb) > _FEW_BASE_PAIRS:
        # only f's bases whose centres are near one of g's can touch it: the gap (the
        # largest of the four axis gaps) is at least |d| / sqrt 2 (one of two square axes
        # takes that much of the centres' distance d) less the two half-diagonals (no
        # projection radius is longer), 1 m to spare for rounding; in a line in contact that
        # leaves the front rank, not the whole formation
        gs = np.array(g_boxes)
        fs = np.array([[b.x, b.y, b.w / 2.0, b.d / 2.0] for b in fb])
        reach = (
            np.hypot(fs[:, 2], fs[:, 3])[:, None]
            + np.hypot(gs[:, 2], gs[:, 3])[None, :]
            + (CONTACT_M + 1.0)
        ) * math.sqrt(2.0)
        dx = fs[:, None, 0] - gs[None, :, 0]
        dy = fs[:, None, 1] - gs[None, :, 1]
        near = (dx * dx + dy * dy <= reach * reach).any(axis=1).tolist()
        if not any(near):
            return []
    # a few bases: geometry.separation's gaps in plain floats (FewSeparation, equal bit for bit)
    few = FewSeparation.of_boxes(g_boxes)
    out = []
    for b, close in zip(fb, near, strict=True):
        if not close:
            continue
        for k, gap in enumerate(few.gaps(b.obb())):
            if gap <= CONTACT_M:
                out.append((b.id, gb[k].id))
    return out


# -- execution (6.1) --------------------------------------------------------------------------


@dataclass(slots=True)
class MoveResult:
    """What a move did: distance (largest base displacement), allowance, why it stopped."""

    distance_m: float
    allowance_m: float
    halted: str | None  # contact_enemy | blocked | terrain | edge | goal | None
    contact_with: str | None = None
    start: tuple[float, float, float] = (0.0, 0.0, 0.0)
    end: tuple[float, float, float] = (0.0, 0.0, 0.0)
    off_map: bool = False


def _pose_toward(
    f: Formation, box: Any, plan: MovePlan, allowance: float, rules: MoveRules
) -> tuple[float, float, float, float]:
    """(dx, dy, dth, d): the move for ``plan`` within ``allowance`` (no obstacles yet)."""
    th0 = f.facing
    want = th0 if plan.facing is None else plan.facing
    turn = rules.max_turn_deg
    dth = max(-turn, min(turn, signed_turn(th0, want)))
    u = forward(plan.bearing)
    if plan.goal is not None:
        gx, gy = plan.goal
        dist = math.hypot(gx - f.cx, gy - f.cy)
        if dist > 1e-9:
            u = ((gx - f.cx) / dist, (gy - f.cy) / dist)
    else:
        dist = math.inf
    if plan.max_m is not None:
        dist = min(dist, plan.max_m)
    if rules.pivot_wheels:
        return _wheel_toward(box, th0, dth, u, dist, allowance, plan, rules)
    # the turn alone must fit the allowance (every corner within it): shrink it if not (no
    # turn reaches 0.0, within any allowance but a negative one). The corners' displacement
    # by the turn is worked out once for both (_turn_reach(dth) is the largest of their
    # lengths, the same sums), again only if the turn is shrunk
    th1 = th0 + dth
    if th1 == th0 and math.copysign(1.0, th1) == math.copysign(1.0, th0) and allowance >= 0:
        # no turn (most moves): _disp_vectors' zeros, with which max_advance's sums come to
        # sqrt(allowance * allowance) for every corner (0 * u is a zero, so are its square and
        # the vectors' lengths; a zero's sign changes no sum with a positive number)
        d = max(0.0, min(dist, math.sqrt(allowance * allowance)))
        if d < rules.min_move_m and dist < rules.min_move_m and plan.goal is not None:
            d = 0.0
        return u[0] * d, u[1] * d, dth, d
    disp = _disp_vectors(box, th0, dth)
    if (dth != 0 or allowance < 0) and max(math.hypot(vx, vy) for vx, vy in disp) > allowance:
        turn_reach = _turn_reach(box, th0)
        lo, hi = 0.0, dth
        for _ in range(20):
            mid = (lo + hi) / 2.0
            if turn_reach(mid) <= allowance:
                lo = mid
            else:
                hi = mid
        dth = lo
        disp = _disp_vectors(box, th0, dth)
    d = max(0.0, min(dist, max_advance(box, th0, dth, u, allowance, disp=disp)))
    if d < rules.min_move_m and dist < rules.min_move_m and plan.goal is not None:
        d = 0.0  # 6.1: the minimum move (25 m in 2mm Earth); closer than that to the goal, stay
    return u[0] * d, u[1] * d, dth, d


def _wheel_toward(
    box: Any,
    th0: float,
    dth: float,
    u: tuple[float, float],
    dist: float,
    allowance: float,
    plan: MovePlan,
    rules: MoveRules,
) -> tuple[float, float, float, float]:
    """:func:`_pose_toward` for ``pivot_wheels``: the wheel (shrunk to fit the allowance,
    measured by the corner that goes furthest, the outside one), then the rest straight on."""

    def reach(turn: float) -> float:
        return max_corner_displacement(box, th0, turn, pivot_shift(box, th0, turn))

    if reach(dth) > allowance:
        lo, hi = 0.0, dth
        for _ in range(20):
            mid = (lo + hi) / 2.0
            lo, hi = (mid, hi) if reach(mid) <= allowance else (lo, mid)
        dth = lo
    px, py = pivot_shift(box, th0, dth)
    d = max(0.0, min(dist, max_advance(box, th0, dth, u, allowance, (px, py))))
    if d < rules.min_move_m and dist < rules.min_move_m and plan.goal is not None:
        d = 0.0
    return px + u[0] * d, py + u[1] * d, dth, d


def execute_move(
    bf: Ground,
    state: BattleState,
    f: Formation,
    plan: MovePlan,
    *,
    rules: MoveRules,
    classes_fn: Any = None,
    table: tuple[list[Formation], np.ndarray] | None = None,
) -> MoveResult:
    """Carry out a planned move (6.1) and return what happened. Bumps ``state.version``.

    ``table``: ``(state.active(), their rectangles as an (N, 5) array)`` when the caller keeps
    them up to date (the move phase does), so the sweep need not gather them again.
    """
    frame: Frame | None = None
    if classes_fn is None:
        # f stays put until the end of this function: its footprint's frame points once
        frame = _footprint_local(f)

        def classes_fn(form: Formation, pose: Any) -> tuple[list[int], bool]:
            if form is not f:
                return footprint_classes(bf, form, "move", pose)
            return _footprint_at(
                bf, frame, "move", pose if pose is not None else (f.cx, f.cy, f.facing)
            )

    # the frame has the box already (the same sums): not worked out a second time
    box = frame.box if frame is not None else _local_box(f)
    start = (f.cx, f.cy, f.facing)
    may_leave = f.morale is Morale.ROUTING  # routers flee off the table (11.1)
    # the allowance is a function of f's bases and morale (unchanged until the move is made)
    # and of the classes: the same class sets recur through the searches below
    allowances: dict[tuple[int, ...], float | None] = {}

    def allow(classes: list[int]) -> float | None:
        key = tuple(classes)
        if key in allowances:
            return allowances[key]
        a = allowances[key] = allowance_for(f, classes, rules)
        return a

    c0, _ = classes_fn(f, None)
    allowance = allow(c0)
    if allowance is None:
        allowance = 0.0
    dx, dy, dth, d = _pose_toward(f, box, plan, allowance, rules)
    # 7.1: terrain entered on the way counts too - re-check the allowance at the destination
    halted: str | None = None
    for _ in range(3):
        if d <= 0 and dth == 0:
            break
        c1, off = classes_fn(f, (f.cx + dx, f.cy + dy, f.facing + dth))
        a1 = allow(sorted(set(c0) | set(c1)))
        if off and not may_leave:
            a1 = None
        if a1 is None:
            # cannot enter: find the furthest pose short of it (binary search on the fraction)
            lo, hi = 0.0, 1.0
            for _ in range(12):
                mid = (lo + hi) / 2.0
                cm, offm = classes_fn(f, (f.cx + dx * mid, f.cy + dy * mid, f.facing + dth * mid))
                ok = allow(sorted(set(c0) | set(cm))) is not None and (may_leave or not offm)
                lo, hi = (mid, hi) if ok else (lo, mid)
            dx, dy, dth, d = dx * lo, dy * lo, dth * lo, d * lo
            halted = "edge" if off else "terrain"
            break
        if a1 >= allowance - 1e-9:
            break
        allowance = a1
        dx, dy, dth, d = _pose_toward(f, box, plan, allowance, rules)
    # 7.1: terrain crossed on the way (a wall, a strip of wood) counts as well as the ends
    if halted is None and d > PATH_STEP_M:
        dx, dy, dth, d, allowance, why = _check_path(
            bf,
            f,
            plan,
            box,
            classes_fn,
            c0,
            dx,
            dy,
            dth,
            d,
            allowance,
            may_leave,
            allow,
            frame,
            rules,
        )
        halted = why
    # sweep against every other formation so bases never overlap
    through: list[Formation] = []
    through_arr = np.zeros((0, 5))
    if rules.passes is not None:
        table, through, through_arr = _without_passable(
            state, f, table, rules.passes, _path_reach(box, start, dx, dy)
        )
    frac, hit = _sweep(state, f, box, start, dx, dy, dth, table)
    if through and frac > 0:
        clear = _clear_end(box, start, dx, dy, dth, frac, through_arr)
        if clear < frac:
            # halts short of a friend it cannot stop on: the one its full move ended on
            at = obb_at(box, start[0] + dx * frac, start[1] + dy * frac, start[2] + dth * frac)
            gaps = separation(at, through_arr)
            frac, hit = clear, through[int(gaps.argmin())].id
    contact_with = None
    if hit is not None:
        g = state.formations[hit]
        halted = "contact_enemy" if g.side != f.side else "blocked"
        contact_with = hit
    dx, dy, dth = dx * frac, dy * frac, dth * frac
    end = (start[0] + dx, start[1] + dy, (start[2] + dth) % 360.0)
    dist = _move_length(box, start[2], dth, dx, dy)
    if dist > 1e-9:
        f.set_pose(*end)
        state.version += 1
    f.moved_m = dist
    near_goal = (
        plan.goal is not None and math.hypot(plan.goal[0] - end[0], plan.goal[1] - end[1]) < 1.0
    )
    if halted is None and near_goal and d > 0:
        halted = "goal"
    off_map = False
    if may_leave:
        o = f.obb()
        off_map = not bool(bf.contains(o.cx, o.cy))
    return MoveResult(dist, allowance, halted, contact_with, start, end, off_map)


def _move_length(box: Any, th: float, dth: float, dx: float, dy: float) -> float:
    """How far the move's furthest corner goes (6.1: a move's length), 0.0 for no move:
    ``max_corner_displacement(box, th, dth, (dx, dy))``."""
    th1 = th + dth
    if th1 == th and math.copysign(1.0, th1) == math.copysign(1.0, th):
        # no turn (most moves): every corner's displacement is _disp_vectors' zero plus
        # (dx, dy), of length hypot(dx, dy) (adding +0.0 changes no length), 0.0 for no move
        return math.hypot(dx, dy)
    return max_corner_displacement(box, th, dth, (dx, dy))


def _path_reach(
    box: tuple[float, float, float, float], start: tuple[float, float, float], dx: float, dy: float
) -> tuple[float, float, float]:
    """The middle of a move's straight way and how far from it, less a rectangle's ``hw + hd``,
    a rectangle the move can overlap may lie: :func:`_reachable`'s first cut (the mover's
    ``rho`` and half the way), with a millimetre more to spare."""
    a_, l_, hw_, hd_ = box
    rho = math.hypot(a_, l_) + math.hypot(hw_, hd_) + 1.0
    half = rho + 0.5 * math.hypot(dx, dy) + 2e-3
    return start[0] + 0.5 * dx, start[1] + 0.5 * dy, half


def _without_passable(
    state: BattleState,
    f: Formation,
    table: tuple[list[Formation], np.ndarray] | None,
    passes: Callable[[Formation, Formation], bool],
    reach: tuple[float, float, float],
) -> tuple[tuple[list[Formation], np.ndarray], list[Formation], np.ndarray]:
    """The sweep's table without the friends ``f`` may pass through, those friends, and their
    rectangles (rows of the table's array: their ``obb()``s). Only friends within ``reach``
    (:func:`_path_reach`) are asked: the sweep and the halt short of friends leave out every
    rectangle beyond it, so a far friend kept in the table or out of it changes nothing."""
    forms, arr = (
        table
        if table is not None
        else (state.active(), obb_array([g.obb() for g in state.active()]))
    )
    mx, my, half = reach
    lim = arr[:, 2] + arr[:, 3]
    lim += half
    near = np.flatnonzero(np.hypot(arr[:, 0] - mx, arr[:, 1] - my) <= lim).tolist()
    side = f.side
    out = [k for k in near if forms[k] is not f and forms[k].side == side and passes(f, forms[k])]
    if not out:
        return (forms, arr), [], arr[:0]
    mask = np.ones(len(forms), dtype=bool)
    mask[out] = False
    through = [forms[k] for k in out]
    return (
        ([g for g, k in zip(forms, mask.tolist(), strict=True) if k], arr[mask]),
        through,
        arr[out],
    )


def swept_rows(
    box: tuple[float, float, float, float],
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    arr: np.ndarray,
) -> np.ndarray:
    """Rows of ``arr`` (rectangles, (N, 5)) that a formation of local ``box`` (its
    :func:`_local_box`) could overlap at some pose along the straight way from (x0, y0) to
    (x1, y1), at any facing: ascending; the others are clear of every such pose. Each pose's
    rectangle lies within ``hypot(across, along) + hypot(hw, hd)`` of its point on the way
    (``obb_at``), each other rectangle within its half-diagonal of its centre, and the way
    within half its length of its middle (1 m to spare for rounding).

    >>> arr = obb_array([OBB(0.0, 50.0, 10.0, 5.0, 0.0), OBB(500.0, 0.0, 10.0, 5.0, 0.0)])
    >>> swept_rows((0.0, 0.0, 10.0, 5.0), 0.0, 0.0, 0.0, 100.0, arr).tolist()
    [0]
    """
    a, l_, hw, hd = box
    reach = 0.5 * math.hypot(x1 - x0, y1 - y0) + math.hypot(a, l_) + math.hypot(hw, hd) + 1.0
    dx = arr[:, 0] - 0.5 * (x0 + x1)
    dy = arr[:, 1] - 0.5 * (y0 + y1)
    lim = np.hypot(arr[:, 2], arr[:, 3])
    lim += reach
    return np.flatnonzero(dx * dx + dy * dy <= lim * lim)


def _clear_end(
    box: Any,
    start: tuple[float, float, float],
    dx: float,
    dy: float,
    dth: float,
    frac: float,
    arr: np.ndarray,
) -> float:
    """The furthest fraction <= ``frac`` whose pose overlaps none of the rectangles ``arr``
    (the friends a move may pass through but not stop on), searched back in sweep steps."""
    length = max_corner_displacement(box, start[2], dth, (dx, dy)) * frac
    n = max(1, math.ceil(length / SWEEP_STEP_M))
    # only the friends the way to frac can reach can be overlapped at any of its poses; with
    # none, the first pose tried is clear (its fraction as the loop works it out)
    arr = arr[swept_rows(box, start[0], start[1], start[0] + dx * frac, start[1] + dy * frac, arr)]
    if arr.shape[0] == 0:
        return frac
    for k in range(n, 0, -1):
        # the whole way first, as ``frac`` itself: ``frac * n / n`` can be an ulp short of
        # it, which the caller would read as a halt short of a friend that is not there
        t = frac if k == n else frac * k / n
        pose = obb_at(box, start[0] + dx * t, start[1] + dy * t, start[2] + dth * t)
        if not (separation(pose, arr) < -1e-6).any():
            return t
    return 0.0


PATH_STEP_M = 20.0


def _check_path(
    bf: Ground,
    f: Formation,
    plan: MovePlan,
    box: Any,
    classes_fn: Any,
    c0: list[int],
    dx: float,
    dy: float,
    dth: float,
    d: float,
    allowance: float,
    may_leave: bool,
    allow: Any = None,
    frame: Frame | None = None,
    rules: MoveRules | None = None,
) -> tuple[float, float, float, float, float, str | None]:
    """Shorten a move that crosses impassable or slower terrain between its two ends.
    ``allow``: ``allowance_for`` of ``f`` as a function of the classes alone, if the caller
    remembers its answers; ``frame``: ``_footprint_local(f)`` if the caller has it."""
    if frame is None:
        frame = _footprint_local(f)  # f stays put here: its frame points once
    reach = frame.reach
    assert allow is not None and rules is not None, "the caller's allowance and rules"
    for _ in range(3):
        n = math.ceil(d / PATH_STEP_M)
        ts = [k / n for k in range(1, n)]
        if not ts:
            return dx, dy, dth, d, allowance, None
        # every step's points lie within reach of its centre, and the centres on the line to
        # the end: all within reach + half the line of its middle
        mid_x, mid_y = f.cx + dx / 2.0, f.cy + dy / 2.0
        if _uniform_class(bf, "move", mid_x, mid_y, reach + math.hypot(dx, dy) / 2.0) == 0:
            return dx, dy, dth, d, allowance, None  # all plain: nothing to check
        loc = frame.pts[:, : frame.nb]  # the lattice
        if dth == 0:
            # one facing for every step: _place's arithmetic for all steps at once, the same
            # float operations (cx + a * rx) + l * fx, step by step, x and y as rows
            r = math.radians(f.facing + dth * ts[0])
            fx = math.sin(r)
            fy = rx = math.cos(r)
            cs = np.array([[f.cx + dx * t for t in ts], [f.cy + dy * t for t in ts]])
            k = np.array([[rx, fx], [-fx, fy]])
            pts = (
                (cs[:, :, None] + (loc[0] * k[:, :1])[:, None, :]) + (loc[1] * k[:, 1:])[:, None, :]
            ).reshape(2, -1)
        else:
            pts = np.concatenate(
                [_place_frame(loc, f.cx + dx * t, f.cy + dy * t, f.facing + dth * t) for t in ts],
                axis=1,
            )
        values, on = _codes(bf, "move", pts)
        if on and not values.any():
            return dx, dy, dth, d, allowance, None  # all plain: nothing to check
        slower = None
        for i, t in enumerate(ts):
            c, off = classes_fn(f, (f.cx + dx * t, f.cy + dy * t, f.facing + dth * t))
            a = allow(sorted(set(c0) | set(c)))
            if a is None or (off and not may_leave):
                prev = ts[i - 1] if i else 0.0
                return (
                    dx * prev,
                    dy * prev,
                    dth * prev,
                    d * prev,
                    allowance,
                    "edge" if off else "terrain",
                )
            if a < allowance - 1e-9:
                slower = a
                break
        if slower is None:
            return dx, dy, dth, d, allowance, None
        allowance = slower
        dx, dy, dth, d = _pose_toward(f, box, plan, allowance, rules)
    return dx, dy, dth, d, allowance, None


def _most_overlapped(gaps: list[float], tol: float = 1e-6) -> int | None:
    """``FewSeparation.first_overlap`` at a pose from its gaps there (``gaps_axes`` of the
    same pose: the same sums, the same values): the rectangle overlapped most (a gap below
    ``-tol``), the first on ties, or None."""
    found, worst = None, 0.0
    for k, g in enumerate(gaps):
        if g < -tol and (found is None or g < worst):
            found, worst = k, g
    return found


def _first_overlapping_step(
    few: FewSeparation,
    spans: list[tuple[float, float]],
    travel: float,
    ts: list[float],
    first: int,
    last: int,
    gaps_at: Callable[[float], list[float]],
    found: list[list[float]] | None = None,
) -> int | None:
    """The first of the steps ``ts[first..last]`` at which the mover overlaps one of ``few``
    (a gap below -1e-6), or None: what testing every step gives, found by conservative
    advancement (``gaps_at(t)``: ``few``'s gaps to the mover at step ``t``). No point of the
    mover travels further than ``travel`` over the whole move (:func:`_sweep`), so a
    rectangle whose gap is ``g`` at step ``t`` cannot be overlapped before ``t + g / travel``
    (the separating-axis gap is no more than the distance, and that shrinks no faster than
    the mover's points travel; 1 mm to spare for rounding, as in the sweep's windows), nor
    after the end of its window (``spans``): the steps in between are clear and are not
    placed. ``found``: a list the gaps at the step returned are appended to."""
    i = first
    while i <= last:
        t = ts[i]
        gaps = gaps_at(t)
        if min(gaps) < -1e-6:
            if found is not None:
                found.append(gaps)
            return i
        nxt = math.inf
        for g, (lo, hi) in zip(gaps, spans, strict=True):
            at = t + (g - 1e-3) / travel
            if at < lo:
                at = lo
            if at <= hi and at < nxt:
                nxt = at
        if nxt == math.inf:
            return None
        # the first step at or after nxt, and after t
        i = max(i + 1, bisect.bisect_left(ts, nxt, i + 1, last + 1))
    return None


def _reachable(
    f: Formation,
    table: list[Formation] | None,
    all_arr: np.ndarray,
    o0: OBB,
    box: tuple[float, float, float, float],
    start: tuple[float, float, float],
    dx: float,
    dy: float,
) -> tuple[list[int], list[list[float]]]:
    """The rows of ``all_arr`` (rectangles, (N, 5)) the sweep of ``f`` from ``start`` by
    (dx, dy) (and any turn) can reach, in order, and those rows as Python floats. ``table``:
    the formations of the rows when the mover's own row is among them (left out by its id)."""
    reach = math.hypot(dx, dy) + math.hypot(o0.hw, o0.hd) * 2 + 1.0
    # the rectangles the mover's path can reach: every point of the mover stays within
    # ``rho`` of its centre's straight path (the rotation is about that centre), every point
    # of another within its half-diagonal of its centre; the others cannot overlap it at any
    # fraction of the move (1 m to spare for rounding), so leaving them out changes nothing.
    # They are those within that reach of the path and within ``reach`` + hw + hd of the
    # start rectangle's centre ("close", a first cut of old kept as it was).
    a_, l_, hw_, hd_ = box
    rho = math.hypot(a_, l_) + math.hypot(hw_, hd_) + 1.0
    sx, sy = start[0], start[1]
    len2 = dx * dx + dy * dy
    # One pass over the whole table first, in numpy: a centre within rho + its half-diagonal
    # of the path is within half the path's length more of the path's middle, and hw + hd is
    # no shorter than the half-diagonal (1 mm more for the rounding of the middle and the
    # squares): a circle round the middle, which leaves fewer rows to the exact tests below
    # than one round the start
    half = rho + 0.5 * math.sqrt(len2) + 1e-3
    # (ex * ex + ey * ey <= lim * lim, its products and sums in place: the same floats with
    # fewer arrays made)
    ex = all_arr[:, 0] - (sx + 0.5 * dx)
    ex *= ex
    ey = all_arr[:, 1] - (sy + 0.5 * dy)
    ey *= ey
    ex += ey
    lim = all_arr[:, 2] + all_arr[:, 3]
    lim += half
    lim *= lim
    near = (ex <= lim).nonzero()[0]
    keep: list[int] = []
    boxes: list[list[float]] = []
    hypot = math.hypot
    ox, oy = o0.cx, o0.cy
    # the near rows as Python floats in one call (a tolist per row cost more than its sums);
    # the mover's own row first, known by its id (always near: its sums are not worth doing),
    # then the exact reach, then "close" in numpy's elementwise operations (the same IEEE
    # sums in Python floats)
    fid = f.id
    # (take(): the fancy index's rows at a fraction of its cost)
    for k, row in zip(near.tolist(), all_arr.take(near, axis=0).tolist(), strict=True):
        if table is not None and table[k].id == fid:
            continue  # the mover's own row
        cx, cy, hw, hd, _th = row  # (a slice of the row would be a new list)
        px, py = cx - sx, cy - sy
        t = (px * dx + py * dy) / len2 if len2 > 0.0 else 0.0
        t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
        if hypot(px - t * dx, py - t * dy) <= rho + hypot(hw, hd):
            qx, qy = cx - ox, cy - oy
            lim_k = hw + hd + reach
            if qx * qx + qy * qy > lim_k * lim_k:
                continue  # not close
            keep.append(k)
            boxes.append(row)
    return keep, boxes


def _sweep(
    state: BattleState,
    f: Formation,
    box: Any,
    start: tuple[float, float, float],
    dx: float,
    dy: float,
    dth: float,
    table: tuple[list[Formation], np.ndarray] | None = None,
) -> tuple[float, str | None]:
    """Largest fraction of the move free of overlaps, and the formation met (if any)."""
    if dx == 0 and dy == 0 and dth == 0:
        return 1.0, None
    if table is None:
        others = [g for g in state.active() if g.id != f.id]
        all_arr = obb_array([g.obb() for g in others])
        if not others:
            return 1.0, None
    else:  # the whole table, the mover's own row masked out below (no copies of the rest)
        others, all_arr = table
    o0 = obb_at(box, *start)
    keep, boxes = _reachable(
        f, others if table is not None else None, all_arr, o0, box, start, dx, dy
    )
    a_, l_, hw_, hd_ = box
    if not keep:
        return 1.0, None
    # formations already overlapping at the start (should not happen) are ignored, and so
    # are those further at the start than any point of the mover travels (along its path at
    # most the straight move plus the turn's arc at the furthest corner): no step can meet them
    travel = math.hypot(dx, dy) + abs(math.radians(dth)) * math.hypot(abs(a_) + hw_, abs(l_) + hd_)
    travel = travel * (1.0 + 1e-9) + 1e-3
    # a handful of rectangles: plain float sums (geometry.FewSeparation) beat numpy calls;
    # their gaps at the start come with the rows (of_boxes_upto: one pass), a gap beyond
    # travel not worked out to the end (that rectangle is left out anyway)
    few, gaps = FewSeparation.of_boxes_upto(boxes, o0, travel)
    live = [-1e-6 <= g <= travel for g in gaps]
    # a turn: the fractions of the move at which each rectangle left could be met (no point
    # of the mover gets nearer to it than its gap at the start less the way come since, or
    # its gap at the end less the way still to go); those with none are left out too
    window = (0.0, 1.0)
    if dth != 0 and any(live):
        g1 = _gaps_at(few.subset(live), box, start[0] + dx, start[1] + dy, start[2] + dth)
        ends = iter(g1)
        spans = [
            ((g - 1e-3) / travel, 1.0 - (next(ends) - 1e-3) / travel) if ok else (1.0, 0.0)
            for g, ok in zip(gaps, live, strict=True)
        ]
        live = [lo <= hi for lo, hi in spans]
        if any(live):
            window = (
                min(lo for lo, hi in spans if lo <= hi),
                max(hi for lo, hi in spans if lo <= hi),
            )
    if not any(live):
        return 1.0, None
    if not all(live):
        keep = [k for k, ok in zip(keep, live, strict=True) if ok]
        # a straight move asks first_contact at o0's facing: its extents kept
        few = few.subset(live, o0.facing if dth == 0 else None)
        if dth != 0:
            spans = [sp for sp, ok in zip(spans, live, strict=True) if ok]
    if dth == 0:
        # a straight move: the exact time of impact (geometry.FewSeparation.first_contact)
        hit = few.first_contact(o0, dx, dy)
        if hit is None:
            return 1.0, None
        return hit[0], others[keep[hit[1]]].id
    length = max_corner_displacement(box, start[2], dth, (dx, dy))
    n = max(1, math.ceil(length / SWEEP_STEP_M))

    sx, sy, sth = start
    sin, cos, radians = math.sin, math.cos, math.radians
    math_axes = _MATH_AXES

    def gaps_at(t: float) -> list[float]:
        # _gaps_at(few, box, sx + dx * t, sy + dy * t, sth + dth * t) with _pose_axes' sums
        # written out (the same operations in the same order: the same bits), one call
        th = sth + dth * t
        r = radians(th)
        fx = sin(r)
        fy = cos(r)
        axes = (fx, fy, fy, -fx) if math_axes and 0.0 < th < 360.0 else _scalar_axes(th % 360.0)
        return few.gaps_axes(
            sx + dx * t + a_ * fy + l_ * fx, sy + dy * t + a_ * -fx + l_ * fy, hw_, hd_, axes
        )

    def clash(t: float) -> int | None:
        return _overlap_at(few, box, start[0] + dx * t, start[1] + dy * t, start[2] + dth * t)

    # a turn: sampled in steps of at most SWEEP_STEP_M, the first overlapping step bisected;
    # the steps outside the window meet nothing
    # (k / n of two ints is rounded once, as numpy's arange(1, n + 1) / n)
    ts_ = [k / n for k in range(1, n + 1)]
    # the steps in the window: a run of indices (the fractions rise), found by bisection
    steps = range(bisect.bisect_left(ts_, window[0]), bisect.bisect_right(ts_, window[1]))
    met: int | None = None
    bad: int | None = None
    if len(steps) <= 3:
        # a few steps: each in plain floats (FewSeparation, the same gaps as separation_many)
        for i in steps:
            met = clash(ts_[i])
            if met is not None:
                bad = i
                break
    else:
        at_bad: list[list[float]] = []
        bad = _first_overlapping_step(
            few,
            spans,
            travel,
            ts_,
            steps[0],
            steps[-1],
            gaps_at,
            at_bad,
        )
        if bad is not None:
            met = _most_overlapped(at_bad[0])  # clash(ts_[bad]) from the gaps found there
    if bad is not None:
        i = bad
        t = ts_[i]
        prev = ts_[i - 1] if i else 0.0
        if met is not None:
            # the bisection's poses lie between prev and t: only the rectangles whose window
            # reaches in there can be overlapped (the others are clear of every such pose,
            # and first_overlap takes the worst of those overlapped, the first on ties)
            inside = [lo_ <= t and hi_ >= prev for lo_, hi_ in spans]
            which = [k for k, ok in enumerate(inside) if ok]
            bis = few.subset(inside) if len(which) < len(inside) else few
            lo, hi = prev, t
            first_overlap = bis.first_overlap_axes
            for _ in range(8):
                mid = (lo + hi) / 2.0
                # _overlap_at(bis, box, ...) with _pose_axes' sums written out (the same
                # operations in the same order, as gaps_at above: the same bits), one call
                th = sth + dth * mid
                r = radians(th)
                fx = sin(r)
                fy = cos(r)
                axes = (
                    (fx, fy, fy, -fx)
                    if math_axes and 0.0 < th < 360.0
                    else _scalar_axes(th % 360.0)
                )
                at_mid = first_overlap(
                    sx + dx * mid + a_ * fy + l_ * fx,
                    sy + dy * mid + a_ * -fx + l_ * fy,
                    hw_,
                    hd_,
                    axes,
                )
                if at_mid is None:
                    lo = mid
                else:
                    # what clash(hi) gives, kept rather than asked again
                    hi, met = mid, which[at_mid]
            return lo, others[keep[met or 0]].id
    return 1.0, None


# -- contact that completes (3.2) ---------------------------------------------------------------

#: the step by which a formation whose outline touches an enemy closes until bases touch
CLOSE_STEP_M = 0.5
#: at most this far (a base's depth and some): further, the bases are not there to meet
CLOSE_MAX_M = 50.0


def close_with_bases(
    state: BattleState, f: Formation, g: Formation, bearing_deg: float, allowance_m: float
) -> float:
    """A move that ends with ``f``'s outline touching enemy ``g``'s while no living bases
    touch (a holed line, a rank set back, an angled front: docs/rules-interpretations.md,
    "Contact base to base") goes on along ``bearing_deg`` in steps of :data:`CLOSE_STEP_M`,
    up to ``allowance_m`` (and :data:`CLOSE_MAX_M`), until a base of ``f`` touches a living
    base of ``g`` (3.2: contact means combat). It never puts a base of ``f`` over a base of
    ``g``, nor ``f``'s rectangle over a third formation it did not already overlap; short of
    contact it goes back to where it stood. Returns the distance closed (0 when it could not).
    """
    gb = [[float(v) for v in b.obb()] for b in g.alive_bases]
    if not gb or allowance_m <= 0:
        return 0.0
    few = FewSeparation.of_boxes(gb)
    start = (f.cx, f.cy, f.facing)
    ux, uy = forward(bearing_deg)
    limit = min(allowance_m, CLOSE_MAX_M)
    # only a formation whose circle comes within the mover's on the way can overlap it at a
    # step (rectangles whose circumcircles are apart by a metre are apart on one of their
    # axes, so separation() finds no overlap there): the rest are left out, not tested at
    # every step (the whole table was, ~100 steps a close)
    o = f.obb()
    near = math.hypot(o.hw, o.hd) + limit + 1.0
    others = []
    for h in state.active():
        if h is f or h is g:
            continue
        ho = h.obb()
        lim = near + math.hypot(ho.hw, ho.hd)
        ex, ey = ho.cx - o.cx, ho.cy - o.cy
        if ex * ex + ey * ey <= lim * lim:
            others.append(ho)
    arr = obb_array(others) if others else np.zeros((0, 5))
    clear0 = separation(o, arr) >= -1e-6 if others else np.zeros(0, dtype=bool)
    d = 0.0
    while d + CLOSE_STEP_M <= limit + 1e-9:
        d += CLOSE_STEP_M
        f.set_pose(start[0] + ux * d, start[1] + uy * d, start[2])
        gaps = [few.gaps(b.obb()) for b in f.alive_bases]
        worst = min(min(x) for x in gaps)
        if worst < -1e-6:
            break  # a base would stand on one of theirs: no nearer this way
        if others and bool((separation(f.obb(), arr) < -1e-6)[clear0].any()):
            break  # over a third formation
        if worst <= CONTACT_M:
            state.version += 1
            return d
    f.set_pose(*start)
    return 0.0
