"""Siege warfare (8.3): walls and towers as terrain features of the Battlefield.

The Battlefield marks wall and tower cells by feature (``bf.feature_at(x, y) == "wall"`` /
``"tower"``); the shipped 2mm Earth code table classes them as debris/debris and
impractical/overhead for everybody else. On top of that this module applies 8.3:

- moving along a wall counts as plain terrain; entering or leaving a wall counts as debris
  ("via stairs on one side"); a tower likewise plain inside, impractical to enter or leave, and
  entered (or left) only from a wall section ("Troops cannot move into a tower except via a wall
  section"; the book's "dedicated outside stairs" are not mapped, so none exist);
- no cavalry or monsters on walls or towers; formations on a wall go Loose, one rank (half-size
  rampart bases 40 x 5 m);
- walls give debris cover, towers overhead cover (:func:`cover_override`);
- from the ground to the top of a wall only troops with ``ladders``, and only the side that does
  not hold the walls needs them (the stairs are on the inside, ``SideSpec.holds_walls``): a
  formation ending a bound in base contact with the foot of a wall is ``ladder_ready``; in the next
  movement phase it deploys onto the wall; a ladder base hit before that is destroyed
  (:func:`engine.rulesets.two_mm_earth.damage.allocate_hits`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.movement import FORBIDDEN, _lattice, footprint_classes
from engine.rulesets.two_mm_earth.charts import CoverClass, MoveClass, UnitType
from engine.state import Formation
from engine.terrain import Ground

__all__ = [
    "WALL_FEATURES",
    "cover_override",
    "fortification_at",
    "has_fortifications",
    "may_enter_walls",
    "move_classes",
]

WALL_FEATURES = ("wall", "tower")
RAMPART_D = 5.0  # 8.3: rampart bases are 40 x 5 mm
_NO_WALLS = {UnitType.CAVALRY, UnitType.LIGHT_CAVALRY, UnitType.WHEEL_CAVALRY, UnitType.MONSTER}


def has_fortifications(bf: Ground) -> bool:
    """Whether the battlefield has any wall or tower cells (skip siege work otherwise)."""
    legend = bf.meta.get("legend", {}).get("feature", {})
    codes = [int(k) for k, v in legend.items() if v in WALL_FEATURES]
    if not codes:
        return False
    return bool(np.isin(bf.layer("feature"), codes).any())


def fortification_at(bf: Ground, f: Formation, pose: Any = None) -> str | None:
    """ "wall" or "tower" if at least half the formation's footprint is on it (7.1), else None."""
    pts = _lattice(f, pose)
    inside = np.atleast_1d(bf.contains(pts[:, 0], pts[:, 1]))
    if not inside.any():
        return None
    names = np.atleast_1d(bf.feature_at(pts[inside, 0], pts[inside, 1]))
    for name in WALL_FEATURES:
        if np.count_nonzero(names == name) * 2 >= len(pts):
            return name
    if np.isin(names, WALL_FEATURES).sum() * 2 >= len(pts):
        return "wall"  # astride the junction of a wall and a tower: still on the wall walk
    return None


def may_enter_walls(f: Formation) -> bool:
    """8.3: "No cavalry or monsters are allowed on walls"."""
    return all(p.unit_type not in _NO_WALLS for p in f.profiles)


def move_classes(
    bf: Ground, f: Formation, pose: Any, start_fort: str | None, holds_walls: bool
) -> tuple[list[int], bool]:
    """Movement classes for ``f`` at ``pose`` with 8.3 applied, and whether it is off the map.

    Returns ``[FORBIDDEN]`` for cavalry onto walls, and for ground troops of the side that does
    not hold the walls (they need ladders).
    """
    classes, off = footprint_classes(bf, f, "move", pose)
    end_fort = fortification_at(bf, f, pose)
    if end_fort is None and start_fort is None:
        return classes, off
    base = [c for c in classes if c not in (MoveClass.DEBRIS, MoveClass.IMPRACTICAL)]
    if end_fort is not None and not may_enter_walls(f):
        return [FORBIDDEN], off  # cannot travel for every unit type
    if start_fort == end_fort:
        return base, off  # along a wall or within a tower: plain
    if start_fort is None and end_fort == "wall" and not holds_walls:
        return [FORBIDDEN], off  # up the wall only by ladder
    if "tower" in (start_fort, end_fort):
        if {start_fort, end_fort} != {"tower", "wall"}:
            # 8.3: "Troops cannot move into a tower except via a wall section" (the internal
            # stairs lead to the wall walk); leaving it for the ground likewise
            return [FORBIDDEN], off
        return sorted({*base, int(MoveClass.IMPRACTICAL)}), off
    return sorted({*base, int(MoveClass.DEBRIS)}), off


def cover_override(bf: Ground, f: Formation, classes: list[int]) -> list[int]:
    """8.3: walls give debris cover, towers overhead cover."""
    fort = fortification_at(bf, f)
    if fort == "wall":
        return sorted({*classes, int(CoverClass.DEBRIS)})
    if fort == "tower":
        return sorted({*classes, int(CoverClass.OVERHEAD)})
    return classes


def at_wall_foot(bf: Ground, f: Formation, reach_m: float = 25.0) -> tuple[float, float] | None:
    """A wall point within ``reach_m`` ahead of the formation's front, if any (ladders, 8.3)."""
    from engine.geometry import forward

    o = f.obb()
    fx, fy = forward(f.facing)
    for d in np.arange(o.hd, o.hd + reach_m + 0.1, 2.5):
        x, y = o.cx + fx * d, o.cy + fy * d
        if bf.contains(x, y) and bf.feature_at(x, y) == "wall":
            return (float(x), float(y))
    return None


def deploy_on_wall(f: Formation, point: tuple[float, float]) -> None:
    """8.3: the ladder formation goes up: one rank, Loose, half-size bases, centred on the wall."""
    f.loose = True
    for i, b in enumerate(sorted(f.alive_bases, key=lambda b: b.id)):
        b.rank, b.file = 0, i
        b.on_wall = True
        b.ladder_ready = False
        b.d = RAMPART_D
    for b in f.bases:
        if not b.alive:
            b.rank, b.file = 0, len(f.bases)
    f.frontage = max(1, f.n_alive)
    f.set_pose(point[0], point[1], f.facing)
