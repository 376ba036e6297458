"""References for the move phase (6.1 moves and the sweep, 7.1 footprints, 3.2 contact, 10.3
retreats, 11.3 turns): ``engine.movement``, ``engine.state.Formation``'s geometry and the 2mm
Earth movement phase (``engine.rulesets.two_mm_earth.phases``), as they were before each was
made cheaper. See ``tests/reference/__init__.py`` for the rule they follow."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import engine.movement as mv
from engine.geometry import (
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
    separation_many,
)
from engine.movement import (
    _LATTICE,
    SWEEP_STEP_M,
    _uniform_distance,
    max_corner_displacement,
    obb_at,
)
from engine.state import BaseStatus, Formation


def uniform_class(bf: Any, layer: str, cx: float, cy: float, reach: float) -> int | None:
    """Pins ``engine.movement._uniform_class`` (7.1 a footprint in one terrain class, known from one
    raster lookup): the lookup as it was before it kept the last battlefield's grid, asking the
    battlefield and layer afresh every call.
    """
    t = bf.transform
    res = bf.res
    h, w = bf.shape
    col = math.floor((cx - t.c) / res)
    row = math.floor((t.f - cy) / res)
    if not (0 <= row < h and 0 <= col < w):
        return None
    k = int(reach / res) + 2
    if k >= 255 or int(_uniform_distance(bf, layer)[row, col]) <= k:
        return None
    return int(bf.layer(layer)[row, col])


def retreat_bearing(
    centre: tuple[float, float],
    enemy_centre: tuple[float, float] | None,
    enemy_bases: list[tuple[float, float]],
    home: float,
    step: float = 5.0,
) -> float:
    """Pins ``engine.movement.retreat_bearing`` (10.3 retreat direction: straight away from the
    enemy, veering up to 45 degrees toward home, never within 45 degrees of an enemy base): the loop
    over the candidates as the rule was first written, before the numpy rewrite (main at df84c1a).
    """
    if enemy_centre is None:
        return home % 360.0
    away = bearing(enemy_centre[0], enemy_centre[1], centre[0], centre[1])
    enemy_bearings = [bearing(centre[0], centre[1], x, y) for x, y in enemy_bases]
    best, best_key = away, (angle_diff(away, home), 0.0)
    k = step
    while k <= 45.0 + 1e-9:
        for cand in ((away + k) % 360.0, (away - k) % 360.0):
            if all(angle_diff(cand, eb) >= 45.0 for eb in enemy_bearings):
                key = (angle_diff(cand, home), k)
                if key < best_key:
                    best, best_key = cand, key
        k += step
    return round(best, 6) % 360.0


def sweep(
    state: None,
    f: Any,
    box: Any,
    start: tuple[float, float, float],
    dx: float,
    dy: float,
    dth: float,
    table: tuple[list[Any], np.ndarray] | None = None,
) -> tuple[float, str | None]:
    """Pins ``engine.movement._sweep`` (6.1 a move stops at its first contact): the sweep over every
    rectangle of the table within a circle round the start, no culling of the unreachable ones
    (main at df84c1a); ``table`` must be given.
    """
    if dx == 0 and dy == 0 and dth == 0:
        return 1.0, None
    assert table is not None
    others, all_arr = table
    o0 = obb_at(box, *start)
    reach = math.hypot(dx, dy) + math.hypot(o0.hw, o0.hd) * 2 + 1.0
    close = np.hypot(all_arr[:, 0] - o0.cx, all_arr[:, 1] - o0.cy) <= reach + np.hypot(
        all_arr[:, 2], all_arr[:, 3]
    )
    if table is not None:
        for k in close.nonzero()[0].tolist():
            if others[k].id == f.id:
                close[k] = False
    if not close.any():
        return 1.0, None
    near = [others[int(k)] for k in close.nonzero()[0]]
    arr = all_arr[close]
    # a handful of rectangles: plain float sums (geometry.FewSeparation) beat numpy calls
    few = FewSeparation(arr)
    # formations already overlapping at the start (should not happen) are ignored
    live = [g >= -1e-6 for g in few.gaps(o0)]
    if not any(live):
        return 1.0, None
    if not all(live):
        arr = arr[np.array(live)]
        few = FewSeparation(arr)
    ids = [g.id for g, ok in zip(near, live, strict=True) if ok]
    if dth == 0:
        # a straight move: the exact time of impact (geometry.FewSeparation.first_contact)
        hit = few.first_contact(o0, dx, dy)
        if hit is None:
            return 1.0, None
        return hit[0], ids[hit[1]]
    length = max_corner_displacement(box, start[2], dth, (dx, dy))
    n = max(1, math.ceil(length / SWEEP_STEP_M))

    def clash(t: float) -> int | None:
        return few.first_overlap(
            obb_at(box, start[0] + dx * t, start[1] + dy * t, start[2] + dth * t)
        )

    # a turn: sampled in steps of at most SWEEP_STEP_M, the first overlapping step bisected
    ts = np.arange(1, n + 1) / n
    # the other steps' rectangles only if the first step meets nothing
    first = obb_at(box, start[0] + dx * ts[0], start[1] + dy * ts[0], start[2] + dth * ts[0])
    # a move pressing into a formation it touches meets it on the first step (over half of the
    # moves that meet anything): that step alone in plain floats (FewSeparation, the same gaps
    # as separation_many's first row), the numpy pass over the rest only when it is clear
    if few.first_overlap(first) is not None:
        bad: int | None = 0
    else:
        poses = obb_array(
            [first]
            + [
                obb_at(box, start[0] + dx * t, start[1] + dy * t, start[2] + dth * t)
                for t in ts[1:]
            ]
        )
        overlapping: Any = (separation_many(poses[1:], arr) < -1e-6).any(axis=1)
        rows = overlapping.nonzero()[0]
        bad = int(rows[0]) + 1 if rows.size else None
    if bad is not None:
        i = bad
        t = float(ts[i])
        prev = float(ts[i - 1]) if i else 0.0
        met = clash(t)
        if met is not None:
            lo, hi = prev, t
            for _ in range(8):
                mid = (lo + hi) / 2.0
                at_mid = clash(mid)
                if at_mid is None:
                    lo = mid
                else:
                    hi, met = mid, at_mid  # what clash(hi) gives, kept rather than asked again
            return lo, ids[met or 0]
    return 1.0, None


def base_pairs(f: Formation, g: Formation) -> list[tuple[str, str]]:
    """Pins ``engine.movement.base_pairs`` (3.2 contact: the pairs of bases within ``CONTACT_M``):
    every base of ``f`` against every living base of ``g`` with numpy's ``separation``, no cull by
    the centres and no plain-float gaps (main at df84c1a).
    """
    gb = g.alive_bases
    if not gb:
        return []
    garr = obb_array([b.obb() for b in gb])
    out = []
    for b in f.alive_bases:
        gaps = separation(b.obb(), garr)
        for k in (gaps <= CONTACT_M).nonzero()[0]:
            out.append((b.id, gb[int(k)].id))
    return out


def footprint_classes(bf, f, layer="move", pose=None):
    """Pins ``engine.movement.footprint_classes`` (7.1 the terrain a formation stands in: a class
    under half or more of the footprint, or along its whole middle column): point by point with
    ``Battlefield.category_at`` / ``cover_at``, before the batched rewrite. Returns the classes,
    whether the footprint leaves the map, and the points sampled.
    """
    cx, cy, th = pose if pose is not None else (f.cx, f.cy, f.facing)
    fx, fy = forward(th)
    rx, ry = right(th)
    ref = OBB(f.cx, f.cy, 0.0, 0.0, f.facing)
    pts = []
    for b in f.bases:
        if b.status is BaseStatus.DEAD:
            continue
        ba, bl = local(ref, b.x, b.y)
        for da, dl in _LATTICE:
            a, l_ = ba + da, bl + dl
            pts.append((cx + a * rx + l_ * fx, cy + a * ry + l_ * fy))
    pts = np.asarray(pts, dtype=float).reshape(-1, 2)
    o = f.obb()
    ca, cl = local(OBB(f.cx, f.cy, 0, 0, f.facing), o.cx, o.cy)
    n = max(2, int(2 * o.hd / 5.0) + 1)
    ls = np.linspace(cl - o.hd + 2.5, cl + o.hd - 2.5, n)
    mid = np.column_stack([cx + ca * rx + ls * fx, cy + ca * ry + ls * fy])
    allp = np.vstack([pts, mid])
    inside = np.atleast_1d(bf.contains(allp[:, 0], allp[:, 1]))
    off = not bool(inside.all())
    values = np.full(len(allp), -1, dtype=int)
    if inside.any():
        q = bf.category_at if layer == "move" else bf.cover_at
        values[inside] = np.atleast_1d(q(allp[inside, 0], allp[inside, 1])).astype(int)
    body, middle = values[: len(pts)], values[len(pts) :]
    classes = []
    on = body[body >= 0]
    if on.size:
        uniq, counts = np.unique(on, return_counts=True)
        for u, c in zip(uniq.tolist(), counts.tolist(), strict=True):
            if u != 0 and c / len(body) >= 0.5:
                classes.append(int(u))
    if middle.size and (middle >= 0).all():
        u = int(middle[0])
        if u != 0 and (middle == u).all() and u not in classes:
            classes.append(u)
    return sorted(classes), off, allp


def disp_vectors(box: Any, th: float, dth: float) -> list[tuple[float, float]]:
    """Pins ``engine.movement._disp_vectors`` (6.1 / 11.3 how far each corner of the box moves in a
    turn of ``dth`` from ``th``): ``geometry.forward`` / ``right`` of each facing, corner by corner
    (main at 488014c).
    """
    th1 = th + dth
    if th1 == th and math.copysign(1.0, th1) == math.copysign(1.0, th):
        return [(0.0, 0.0)] * 4
    out = []
    f0, r0 = forward(th), right(th)
    f1, r1 = forward(th + dth), right(th + dth)
    a_, l0, hw, hd = box
    for a, l_ in [(a_ + sa * hw, l0 + sl * hd) for sa in (-1, 1) for sl in (-1, 1)]:
        x0 = a * r0[0] + l_ * f0[0]
        y0 = a * r0[1] + l_ * f0[1]
        x1 = a * r1[0] + l_ * f1[0]
        y1 = a * r1[1] + l_ * f1[1]
        out.append((x1 - x0, y1 - y0))
    return out


def local_box(f: Formation) -> tuple[float, float, float, float]:
    """Pins ``engine.movement._local_box`` and the box ``Frame`` keeps (6.1 the formation's
    rectangle in its own frame: centre offset across and along, half width, half depth), from
    ``geometry.local`` (main at 488014c)."""
    o = f.obb()
    a, l_ = local(OBB(f.cx, f.cy, 0.0, 0.0, f.facing), o.cx, o.cy)
    return a, l_, o.hw, o.hd


def frame(f: Formation) -> tuple[Any, ...]:
    """Pins ``engine.movement.Frame`` / ``_footprint_local`` (7.1 the footprint's points in the
    formation's frame): what ``Frame(f)`` kept at main 488014c, ``(ba, bl, ca, col, nb, reach)``,
    each base's offset across and along, the middle column and the farthest point's reach.
    """
    fx, fy = forward(f.facing)
    rx, ry = right(f.facing)
    ba: list[float] = []
    bl: list[float] = []
    far = 0.0
    for b in f.bases:
        if b.status is not BaseStatus.DEAD:
            dx, dy = b.x - f.cx, b.y - f.cy
            a, l_ = dx * rx + dy * ry, dx * fx + dy * fy
            ba.append(a)
            bl.append(l_)
            far = max(far, math.hypot(abs(a) + mv._LAT_A_MAX, abs(l_) + mv._LAT_L_MAX))
    o = f.obb()
    ca, cl = local(OBB(f.cx, f.cy, 0, 0, f.facing), o.cx, o.cy)
    far = max(far, math.hypot(abs(ca), abs(cl) + o.hd))
    return ba, bl, ca, (cl, o.hd), 9 * len(ba), far * (1.0 + 1e-9) + 1e-6


def move_length(box: Any, th: float, dth: float, dx: float, dy: float) -> float:
    """Pins ``engine.movement._move_length`` (6.1 a move is measured by the farthest any corner
    travels): ``max_corner_displacement`` asked for every move that moves or turns (main at
    1858fb7).
    """
    return mv.max_corner_displacement(box, th, dth, (dx, dy)) if (dx or dy or dth) else 0.0


def formation_obb(f: Formation) -> OBB:
    """Pins ``engine.state.Formation.obb`` and the rectangle ``Formation.place`` keeps (2.4 the
    formation's rectangle round its living bases, 4.1 Loose gaps inside it): worked out from the
    bases as they stand (main at 1858fb7).
    """
    alive = [b for b in f.bases if b.status is not BaseStatus.DEAD] or f.bases
    r = math.radians(f.facing)
    sin_r, cos_r = math.sin(r), math.cos(r)
    fx, fy, rx, ry = sin_r, cos_r, cos_r, -sin_r
    cx, cy = f.cx, f.cy
    across = [(b.x - cx) * rx + (b.y - cy) * ry for b in alive]
    along = [(b.x - cx) * fx + (b.y - cy) * fy for b in alive]
    gap = f.loose_gap / 2 if f.loose else 0
    min_a = min(across) - f.pitch_w / 2.0 + gap
    max_a = max(across) + f.pitch_w / 2.0 - gap
    min_l = min(along) - f.base_d / 2.0
    max_l = max(along) + f.base_d / 2.0
    ca, cl = (min_a + max_a) / 2.0, (min_l + max_l) / 2.0
    return OBB(
        f.cx + ca * rx + cl * fx,
        f.cy + ca * ry + cl * fy,
        (max_a - min_a) / 2.0,
        (max_l - min_l) / 2.0,
        f.facing,
    )


def formation_place(f: Formation) -> list[tuple[float, float, float]]:
    """Pins ``engine.state.Formation.place`` (2.4 bases in ranks and files, a short last rank
    centred): where each living base goes (x, y, facing), worked out from the slots afresh (main
    at 1858fb7).
    """
    r = math.radians(f.facing)
    sin_r, cos_r = math.sin(r), math.cos(r)
    fx, fy, rx, ry = sin_r, cos_r, cos_r, -sin_r
    counts: dict[int, int] = {}
    for b in f.bases:
        counts[b.rank] = counts.get(b.rank, 0) + 1
    ranks = max(counts) + 1 if counts else 0
    out = []
    for b in f.bases:
        if b.status is BaseStatus.DEAD:
            continue
        n = counts[b.rank]
        width = f.frontage if b.rank < ranks - 1 or n >= f.frontage else n
        across = (b.file - (width - 1) / 2.0) * f.pitch_w
        along = ((ranks - 1) / 2.0 - b.rank) * f.base_d
        out.append((f.cx + across * rx + along * fx, f.cy + across * ry + along * fy, f.facing))
    return out


def allowance_for(f: Any, classes: list[int], rules: Any) -> float | None:
    """Pins ``engine.movement.allowance_for`` (7.2 / 7.3 the slowest terrain under the footprint
    sets the move; impassable ground forbids it): the speeds of every class, then their minimum
    (main at 1858fb7)."""
    if mv.FORBIDDEN in classes:
        return None
    speed = rules.speed_m(f)
    speeds = [speed(c) for c in classes] if classes else [speed(0)]
    if any(s is None for s in speeds):
        return None
    return min(x for x in speeds if x is not None)


def contacts(
    state: Any,
) -> tuple[dict[str, tuple[str, ...]], dict[tuple[str, str], list[tuple[str, str]]]]:
    """Pins ``engine.movement.update_contacts`` (3.2 contact between formations of two sides) as the
    movement phase calls it: every pair of formations of two sides, their gap by numpy's
    ``separation`` then ``base_pairs`` afresh (main at 1858fb7). Returns the contacts it set and
    the base pairs it returned (formation pairs in row order, each pair then its mirror).
    """
    forms = state.table().forms
    contacts: dict[str, set[str]] = {f.id: set() for f in forms}
    pairs: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for i, f in enumerate(forms):
        for g in forms[i + 1 :]:
            gap = mv.separation(f.obb(), mv.obb_array([g.obb()]))[0]
            if f.side != g.side and gap <= CONTACT_M and (touching := mv.base_pairs(f, g)):
                contacts[f.id].add(g.id)
                contacts[g.id].add(f.id)
                pairs[(f.id, g.id)] = touching
                pairs[(g.id, f.id)] = [(b, a) for a, b in touching]
    return {k: tuple(sorted(v)) for k, v in contacts.items()}, pairs


def new_contact_sides(ctx: Any) -> dict[str, tuple[str, ...]]:
    """Pins ``engine.rulesets.two_mm_earth.phases._mark_new_contacts`` (10.2 "enemy contact to flank
    or rear" is of a new contact): the sides of each active formation touched by an enemy it was
    not touching last bound, from every base pair (main at 1858fb7).
    """
    state = ctx.state
    out = {}
    for f in state.active():
        sides: set[str] = set()
        for eid in state.contacts.get(f.id, ()):
            if eid in f.contacts_prev:
                continue
            for _a, b in ctx.base_pairs.get((f.id, eid), ()):
                sides.add(f.contact_side(state.bases[b]))
        out[f.id] = tuple(sorted(sides))
    return out


def steps_blocked(state: Any, f: Any, moved: list[Any], before: Any) -> bool:
    """Pins ``engine.rulesets.two_mm_earth.phases._steps_blocked`` (3.1 replacing casualties: bases
    step forward only onto free ground, at most one base depth): every base within 2 km against
    the bases that stepped forward (main at 1858fb7).
    """
    import numpy as np

    from engine.geometry import obb_array, overlaps

    fx, fy = f.centre()
    t = state.table()
    reach = np.hypot(t.arr[:, 0] - fx, t.arr[:, 1] - fy) - np.hypot(t.arr[:, 2], t.arr[:, 3])
    others = [
        x
        for k in np.flatnonzero(reach < 2000.0 + 1.0).tolist()
        if (g := t.forms[k]) is not f
        for x in g.alive_bases
        if math.hypot(x.x - fx, x.y - fy) < 2000.0
    ]
    arr = obb_array([x.obb() for x in others]) if others else None
    return any(
        math.hypot(b.x - before[b.id][0], b.y - before[b.id][1]) > b.d + 0.01
        or (arr is not None and overlaps(b.obb(), arr, tol=0.5).any())
        for b in moved
    )


def reachable(
    f: Any, table: Any, all_arr: Any, o0: Any, box: Any, start: Any, dx: float, dy: float
) -> tuple[list[int], list[list[float]]]:
    """Pins ``engine.movement._reachable`` (6.1 the rectangles a move can meet): a circle round the
    start rectangle's centre over the whole table, then the exact reach of the path row by row
    (the rows ``_sweep`` kept at main 488014c).
    """
    reach = math.hypot(dx, dy) + math.hypot(o0.hw, o0.hd) * 2 + 1.0
    ex = all_arr[:, 0] - o0.cx
    ey = all_arr[:, 1] - o0.cy
    lim = all_arr[:, 2] + all_arr[:, 3] + reach
    close = ex * ex + ey * ey <= lim * lim
    a_, l_, hw_, hd_ = box
    rho = math.hypot(a_, l_) + math.hypot(hw_, hd_) + 1.0
    sx, sy = start[0], start[1]
    len2 = dx * dx + dy * dy
    keep: list[int] = []
    boxes: list[list[float]] = []
    near = close.nonzero()[0]
    for k, row in zip(near.tolist(), all_arr[near].tolist(), strict=True):
        if table is not None and table[k].id == f.id:
            continue
        cx, cy, hw, hd = row[:4]
        px, py = cx - sx, cy - sy
        t = (px * dx + py * dy) / len2 if len2 > 0.0 else 0.0
        t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
        ex_, ey_ = px - t * dx, py - t * dy
        if math.hypot(ex_, ey_) <= rho + math.hypot(hw, hd):
            keep.append(k)
            boxes.append(row)
    return keep, boxes


def pose_toward(
    f: Any, box: Any, plan: Any, allowance: float, rules: Any
) -> tuple[float, float, float, float]:
    """Pins ``engine.movement._pose_toward`` (6.1 / 11.3 a move toward a goal: the turn limited to
    the allowance, bisected, then the advance the rest allows) for 2mm Earth (no pivot wheels), with
    the corners' displacement of ``disp_vectors`` (main at 488014c).
    """
    th0 = f.facing
    want = th0 if plan.facing is None else plan.facing
    turn = rules.max_turn_deg
    dth = max(-turn, min(turn, mv.signed_turn(th0, want)))
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
    assert not rules.pivot_wheels
    turn_reach = mv._turn_reach(box, th0) if dth != 0 or allowance < 0 else None
    if turn_reach is not None and turn_reach(dth) > allowance:
        lo, hi = 0.0, dth
        for _ in range(20):
            mid = (lo + hi) / 2.0
            if turn_reach(mid) <= allowance:
                lo = mid
            else:
                hi = mid
        dth = lo
    disp = disp_vectors(box, th0, dth)
    d = max(0.0, min(dist, mv.max_advance(box, th0, dth, u, allowance, disp=disp)))
    if d < rules.min_move_m and dist < rules.min_move_m and plan.goal is not None:
        d = 0.0
    return u[0] * d, u[1] * d, dth, d


def pose_axes(box: Any, cx: float, cy: float, th: float) -> tuple[float, ...]:
    """Pins ``engine.movement._pose_axes`` (6.1 the turning sweep's poses and the bisection's): the
    rectangle and its axes at a pose, flattened, as at main bbc4149.
    """
    a, l_, hw, hd = box
    r = math.radians(th)
    fx = math.sin(r)
    fy = rx = math.cos(r)
    ry = -fx
    ax = (fx, fy, fy, ry) if mv._MATH_AXES and 0.0 < th < 360.0 else _scalar_axes(th % 360.0)
    return (cx + a * rx + l_ * fx, cy + a * ry + l_ * fy, hw, hd, *ax)


def touching_enemy(ctx: Any, f: Any, table: Any) -> bool:
    """Pins ``engine.rulesets.two_mm_earth.phases._touching_enemy`` (3.2 a formation in contact with
    an enemy): a centre-distance prefilter then numpy's gaps (main at 488014c).
    """
    from engine.geometry import CONTACT_M, separation

    _forms, arr, sides = table
    o = f.obb()
    ex = arr[:, 0] - o.cx
    ey = arr[:, 1] - o.cy
    reach = (arr[:, 2] + arr[:, 3] + (CONTACT_M + math.hypot(o.hw, o.hd) + 1.0)) * math.sqrt(2.0)
    near = (ex * ex + ey * ey <= reach * reach).nonzero()[0]
    near = near[sides[near] != f.side]
    if not near.size:
        return False
    return bool((separation(o, arr[near]) <= CONTACT_M).any())


def two_side_pairs(b: Any, sides: Any) -> tuple[list[int], list[int]]:
    """Pins ``engine.movement._two_side_pairs`` (3.2 the candidate pairs of contact: formations
    of two sides whose boxes come within ``_CANDIDATE_M``): the whole N x N matrix of box
    bounds, the pairs of two sides above its diagonal, in row order."""
    r = mv._CANDIDATE_M
    near = (b[:, None, 0] <= b[None, :, 2] + r) & (b[None, :, 0] <= b[:, None, 2] + r)
    near &= (b[:, None, 1] <= b[None, :, 3] + r) & (b[None, :, 1] <= b[:, None, 3] + r)
    ii, jj = np.nonzero(near)
    keep = (jj > ii) & (sides[ii] != sides[jj])
    return ii[keep].tolist(), jj[keep].tolist()
