"""A Battle Line moving as one body (Dark Age 5.5, 5.17): the unformed troops that go with it,
and its wheel.

- 5.5 "Unformed units which are within 1 javelin throw of formed units from the same command
  are considered to be part of that formation and may move together with it": a steady
  unformed unit of the line's side, in no command formation, within one javelin throw (the gap
  between rectangles) of a member that moves this bound, and itself moving with the same kind
  of move, out of difficult ground and not under an order of its own, joins the line's move:
  it rolls on the line's die (5.9, the pace setter among all of them) and goes the way the line
  goes, as far as it may (:func:`followers`). The engine has no commands inside a side, so
  "the same command" is the side.
- 5.17 "A Battle Line of units in shieldwall wheel as one long single body": a line all in
  shieldwall whose way lies beyond 5.15's deviation pivots, as one rigid body, on the front
  corner of the end it turns toward; the furthest point of the line (its outside rear corner)
  goes at most the line's roll, so the turn is as far as the roll carries it; each unit takes
  5.17's DP in shieldwall; the rest of the roll goes straight ahead on the new facing
  (:func:`wheel_as_one`). If the wheeled line would stand on another body, off the table or on
  ground closed to it, the units wheel individually instead (as a cuneus line does).

Readings: docs/rules-interpretations.md, "Dark Age: a Battle Line moving as one body".
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from engine.command.enemies import gap
from engine.geometry import corners, right
from engine.log import Event, Moved
from engine.movement import signed_turn
from engine.rulesets.dark_age.formations import Formation
from engine.rulesets.dark_age.movement import JAVELIN_THROW_M
from engine.state import Morale

__all__ = ["FOLLOW_GAP_M", "followers", "wheel_as_one"]

#: 5.5 "within 1 javelin throw"
FOLLOW_GAP_M = JAVELIN_THROW_M


def followers(
    ctx: Any, members: tuple[str, ...], views: dict[str, Any], taken: set[str]
) -> tuple[str, ...]:
    """The unformed units that move with the line ``members`` this bound (module docstring);
    ``views``: each moving unit's (troop, grade, formation, difficult, on road, move kind);
    ``taken``: units already moving with a command formation or under an order."""
    state = ctx.state
    kind = views[members[0]][5]
    lead_side = state.formations[members[0]].side
    out = []
    for fid, (_t, _g, form, difficult, _road, k) in sorted(views.items()):
        if fid in taken or fid in members or form is not Formation.UNFORMED:
            continue
        f = state.formations[fid]
        if f.side != lead_side or f.morale is not Morale.STEADY or difficult or k is not kind:
            continue
        if any(gap(f, state.formations[m]) <= FOLLOW_GAP_M for m in members):
            out.append(fid)
    return tuple(out)


def _rotate(x: float, y: float, px: float, py: float, deg: float) -> tuple[float, float]:
    """(x, y) turned ``deg`` clockwise (bearings' sense) about (px, py)."""
    r = math.radians(deg)
    dx, dy = x - px, y - py
    return px + dx * math.cos(r) + dy * math.sin(r), py - dx * math.sin(r) + dy * math.cos(r)


def wheel_as_one(
    ctx: Any, members: tuple[str, ...], way: float, allowance_m: float, try_pose: Any
) -> list[Event]:
    """5.17: wheel the line ``members`` toward ``way`` as one body within ``allowance_m``, and
    point each unit's plan straight on for the rest; ``try_pose(ctx, f, cx, cy, facing)``:
    why a unit may not stand there (None: it may). Nothing changes (and no event) if the
    wheeled line may not stand where it would."""
    from engine.rulesets.dark_age.battle import Manoeuvre

    state = ctx.state
    forms = [state.formations[u] for u in members]
    lead = forms[0]
    turn = signed_turn(lead.facing, way)
    if abs(turn) < 1e-9:
        return []
    rx, ry = right(lead.facing)
    across = sorted(forms, key=lambda f: f.cx * rx + f.cy * ry)  # left to right
    # turning clockwise the right end's front-right corner stays put, anticlockwise the left's
    end = across[-1] if turn > 0 else across[0]
    corner = corners(end.obb())[1 if turn > 0 else 0]
    px, py = float(corner[0]), float(corner[1])
    pts = np.concatenate([corners(f.obb()) for f in forms])
    reach = float(np.max(np.hypot(pts[:, 0] - px, pts[:, 1] - py)))
    if reach <= 1e-9 or allowance_m <= 0:
        return []
    # the furthest point's chord for a turn of t: 2 R sin(t / 2) <= the roll
    most = math.degrees(2.0 * math.asin(min(1.0, allowance_m / (2.0 * reach))))
    deg = math.copysign(min(abs(turn), most), turn)
    before = {f.id: (f.cx, f.cy, f.facing) for f in forms}
    for f in forms:
        cx, cy = _rotate(f.cx, f.cy, px, py, deg)
        f.set_pose(cx, cy, (f.facing + deg) % 360.0)
    state.version += 1
    if any(try_pose(ctx, f, f.cx, f.cy, f.facing) is not None for f in forms):
        for f in forms:
            f.set_pose(*before[f.id])
        state.version += 1
        return []
    chord = 2.0 * reach * math.sin(math.radians(abs(deg)) / 2.0)
    rest = max(0.0, allowance_m - chord)
    events: list[Event] = []
    for f in forms:
        x0, y0, _th0 = before[f.id]
        moved = math.hypot(f.cx - x0, f.cy - y0)
        # it moved (the wheel's DP is due, 5.17), whatever the rest of its move does
        ctx.wheeled_m[f.id] = max(moved, 1e-6)
        events.append(
            Moved("execute_moves", f.id, (x0, y0), (f.cx, f.cy), f.facing, moved, allowance_m, None)
        )
        plan = ctx.plans[f.id]
        limit = rest if plan.max_m is None else min(rest, plan.max_m)
        # straight on, not aimed again at the target as the move begins (which would turn
        # each unit on its own, a second wheel)
        ctx.plans[f.id] = dataclasses.replace(
            plan, bearing=f.facing, goal=None, facing=None, max_m=limit, target=None
        )
        events.append(
            Manoeuvre(
                "execute_moves",
                f.id,
                f"wheel as one battle line on {end.id}'s {'right' if turn > 0 else 'left'} end",
                "5.17",
                f"{abs(deg):.0f} degrees, {chord:.0f} m of the roll",
                1,
            )
        )
    return events
