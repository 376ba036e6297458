"""Dark Age 5.2-5.3 on the engine: a formed unit keeps its formation, so its stands close up
after losses (``003_e8e36df29227b52b.txt``).

5.2: "Other units ... must always maintain unit formation and may not voluntarily become
unformed." 5.3 defines the formations by their stands being in contact: a Shieldwall is "in one
or two ranks with all bases side by side, in contact with each other", a Column "in a single
file with all bases one behind the other, in contact", a Cuneus 2-3 ranks "with the number of
stands in each rank as nearly equal as possible"; 5.6 has the stands left in a Battle Line
"close in on each other to ensure there are no gaps in the line". The combat game (2mm Earth,
1.1) removes a killed base where it fell, "Do not re-arrange formations to fill in the gaps";
so a formed unit holed by 2mm Earth's melee is not a formation in the chapter's terms until its
stands close up again, which they do in the next movement phase.

Without it the engine deadlocks (Maldon 991, seed 1 from bound 21): two shieldwalls whose
rectangles touch at a corner where both have lost the corner stand have no base in contact
(2mm Earth 3.2: "base-to-base contact"), so they do not fight, and neither can move, since each
already touches the other.

The reading (docs/rules-interpretations.md, "5.2-5.3 closing the ranks"):

- who: every unit in Shieldwall, Column or Cuneus (unformed troops and single models keep no
  ranks, 5.1, 5.16; routing troops are unformed, 5.2) with a hole: a rank in front of its last
  one not full, or a gap inside a rank;
- when: at the start of the movement phase, by units that make no move this bound (holding, or
  already touching an enemy and so staying to fight, 2mm Earth 3.2); a unit on the move keeps its
  ranks until it stops, as 2mm Earth's own step forward (3.1) is played;
- how: the same frontage (or all the stands abreast if fewer are left), front ranks full, the
  front edge where it was; each stand goes to the nearest free place (an optimal assignment,
  :func:`scipy.optimize.linear_sum_assignment`), none further than one javelin throw (the least
  move of 5.10) and never onto another base; an enemy the unit touched it must still touch;
- cost: none (it is not one of 5.17-5.28's manoeuvres, no time and no DP).

>>> from engine.rulesets.dark_age.ranks import slots_for
>>> slots_for(5, 4, start=2)
[(0, 0), (0, 1), (0, 2), (0, 3), (1, 2)]
>>> slots_for(3, 4)
[(0, 0), (0, 1), (0, 2)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from engine.geometry import CONTACT_M, forward, obb_array, overlaps, right, separation
from engine.log import Event, Names, keep_ids
from engine.rulesets.dark_age.formations import Formation
from engine.rulesets.dark_age.movement import JAVELIN_THROW_M
from engine.state import Formation as EngineFormation
from engine.state import Morale

__all__ = ["ClosedRanks", "close_ranks", "has_hole", "slots_for"]

#: 5.10: the least move a unit makes; no stand goes further than this to close up
CLOSE_UP_MAX_M = JAVELIN_THROW_M
_FORMED = frozenset({Formation.SHIELDWALL, Formation.COLUMN, Formation.CUNEUS})


@dataclass(frozen=True, slots=True)
class ClosedRanks(Event):
    """Dark Age 5.2-5.3: a formed unit's stands closed up after losses (``ranks``: stands per
    rank, front first, before and after)."""

    type: ClassVar[str] = "closed_ranks"
    formation: str
    formation_type: str
    before: tuple[int, ...]
    after: tuple[int, ...]
    moved_m: float

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> ClosedRanks("end", "a", "shieldwall", (4, 3), (4, 2, 1), 12.0).describe()
        'a (shieldwall) closes its ranks (5.2-5.3): 4, 3 -> 4, 2, 1 stands a rank, 12 m at most'
        """
        before = ", ".join(map(str, self.before))
        after = ", ".join(map(str, self.after))
        return (
            f"{names(self.formation)} ({self.formation_type}) closes its ranks (5.2-5.3): "
            f"{before} -> {after} stands a rank, {self.moved_m:g} m at most"
        )


def slots_for(n_alive: int, frontage: int, start: int = 0) -> list[tuple[int, int]]:
    """The (rank, file) places of a closed-up unit of ``n_alive`` stands ``frontage`` wide:
    full ranks, and the last rank's stands side by side from file ``start``. Fewer stands than
    the frontage stand abreast in one rank."""
    if n_alive < 1:
        return []
    width = min(frontage, n_alive)
    full, rest = divmod(n_alive, width)
    if not 0 <= start <= (width - rest if rest else 0):
        raise ValueError(f"expected a last rank of {rest} starting in files 0..{width - rest}")
    out = [(r, c) for r in range(full) for c in range(width)]
    return out + [(full, start + c) for c in range(rest)]


def _ranks_of(f: EngineFormation) -> tuple[int, ...]:
    counts: dict[int, int] = {}
    for b in f.alive_bases:
        counts[b.rank] = counts.get(b.rank, 0) + 1
    return tuple(counts[r] for r in sorted(counts))


def has_hole(f: EngineFormation) -> bool:
    """A rank before the last with fewer stands than the frontage, a rank missing in between, or
    a gap between stands of the front rank (5.3: "side by side, in contact with each other").
    The stands of a part-filled rear rank behind full ones are not a hole: they close up side
    by side when that is within a javelin throw, else stand behind the front where they are.

    A unit of fewer stands than its frontage has a hole too: they do not stand side by side
    unless they are in adjacent files."""
    alive = f.alive_bases
    if not alive:
        return False
    ranks = sorted({b.rank for b in alive})
    if ranks != list(range(ranks[0], ranks[0] + len(ranks))):
        return True
    width = min(f.frontage, len(alive))
    for r in ranks:
        files = sorted(b.file for b in alive if b.rank == r)
        if r != ranks[-1] and len(files) < width:
            return True
        if files[-1] - files[0] + 1 != len(files) and (r != ranks[-1] or len(ranks) == 1):
            return True  # a part-filled rear rank may stand where its stands are
    return len({b.file for b in alive if b.rank == ranks[0]}) < width


@dataclass(frozen=True, slots=True)
class _Layout:
    """A closed-up unit: its frontage, centre, each living stand's (rank, file), and the
    furthest any stand goes to get there."""

    frontage: int
    cx: float
    cy: float
    places: dict[str, tuple[int, int]]
    moved_m: float


def _layout(f: EngineFormation) -> _Layout | None:
    """The living stands closed up, front edge kept; None if no layout keeps every stand
    within :data:`CLOSE_UP_MAX_M`. The places are :meth:`Formation.place`'s slots, so the unit
    stays closed up when it moves later."""
    alive = f.alive_bases
    n = len(alive)
    width = min(f.frontage, n)
    rest = n % width
    depth = math.ceil(n / width)
    o = f.obb()
    fx, fy = forward(f.facing)
    rx, ry = right(f.facing)
    pw, bd = f.pitch_w, f.base_d
    front_mid = (o.cx + o.hd * fx, o.cy + o.hd * fy)  # the old front edge's middle
    half_w = width * pw / 2.0
    now = np.array([(b.x, b.y) for b in alive])
    # the closed-up block centred on the old one, or flush with its left or right end; the
    # last rank's stands side by side where they are nearest, else (a side-step of a base width
    # is more than a javelin throw) behind the full ranks wherever they are nearest
    side_by_side: list[tuple[float, _Layout]] = []
    anywhere: list[tuple[float, _Layout]] = []
    for shift in sorted({0.0, -(o.hw - half_w), o.hw - half_w}, key=abs):
        cx = front_mid[0] + shift * rx - depth * bd / 2.0 * fx
        cy = front_mid[1] + shift * ry - depth * bd / 2.0 * fy
        starts: list[int | None] = list(range(width - rest + 1)) if rest else [0]
        for start in starts + ([None] if rest else []):
            if start is None:
                places = slots_for(n - rest, width) + [(depth - 1, c) for c in range(width)]
            else:
                places = slots_for(n, width, start)
            pos = np.array(
                [
                    (
                        cx + (c - (width - 1) / 2.0) * pw * rx + ((depth - 1) / 2.0 - r) * bd * fx,
                        cy + (c - (width - 1) / 2.0) * pw * ry + ((depth - 1) / 2.0 - r) * bd * fy,
                    )
                    for r, c in places
                ]
            )
            cost = np.hypot(now[:, None, 0] - pos[None, :, 0], now[:, None, 1] - pos[None, :, 1])
            # every place of a full rank must be taken (5.3): worth far more than any distance
            full = np.array([r < depth - 1 or not rest for r, _c in places])
            # imported here: scipy.optimize is a fifth of the engine's import time, and only
            # this close-up of a dark-age rank uses it
            from scipy.optimize import linear_sum_assignment

            rows, cols = linear_sum_assignment(cost - np.where(full, 1e6, 0.0)[None, :])
            moves = cost[rows, cols]
            if float(moves.max()) > CLOSE_UP_MAX_M + 1e-6 or full[cols].sum() != full.sum():
                continue
            lay = _Layout(
                width,
                float(cx),
                float(cy),
                {alive[i].id: places[j] for i, j in zip(rows.tolist(), cols.tolist(), strict=True)},
                float(moves.max()),
            )
            (side_by_side if start is not None else anywhere).append((float(moves.sum()), lay))
    for found in (side_by_side, anywhere):
        if found:
            return min(found, key=lambda c: c[0])[1]
    return None


def _touching(f: EngineFormation, g: EngineFormation) -> bool:
    gb = g.alive_bases
    if not gb:
        return False
    garr = obb_array([b.obb() for b in gb])
    return any(bool((separation(b.obb(), garr) <= CONTACT_M).any()) for b in f.alive_bases)


def _apply(f: EngineFormation, lay: _Layout) -> None:
    """Give the stands their closed-up places. The dead stay where they fell (1.1) and are
    numbered into the last living rank, so that rank keeps the full frontage's file places in
    :meth:`Formation.place` (a part-filled last rank is otherwise centred) and adds no rank."""
    last = max(r for r, _c in lay.places.values())
    for b in f.bases:
        if b.id in lay.places:
            b.rank, b.file = lay.places[b.id]
        else:
            b.rank, b.file = last, 0
    f.frontage = lay.frontage
    f.cx, f.cy = lay.cx, lay.cy
    f.place()


def close_ranks(ctx: Any, chapter_form: Any, moving: set[str]) -> list[Event]:
    """At the start of the movement phase every formed unit with a hole that makes no move
    (not in ``moving``) closes up (module docstring). ``chapter_form(f)``: the chapter's
    :class:`Formation` of an engine formation."""
    state = ctx.state
    events: list[Event] = []
    for f in state.active():
        if f.loose or f.morale is Morale.ROUTING or f.id in moving or not has_hole(f):
            continue
        form = chapter_form(f)
        if form not in _FORMED:
            continue
        lay = _layout(f)
        if lay is None:
            continue
        saved = ({b.id: (b.x, b.y, b.rank, b.file) for b in f.bases}, f.frontage, f.cx, f.cy)
        foes = [state.formations[e] for e in state.contacts.get(f.id, ())]
        before = _ranks_of(f)
        _apply(f, lay)
        moved = max(
            math.hypot(b.x - saved[0][b.id][0], b.y - saved[0][b.id][1]) for b in f.alive_bases
        )
        others = [
            x.obb()
            for g in state.active()
            if g is not f
            for x in g.alive_bases
            if math.hypot(x.x - f.cx, x.y - f.cy) < 500.0
        ]
        arr = obb_array(others) if others else None
        clash = arr is not None and any(
            bool(overlaps(b.obb(), arr, tol=0.5).any()) for b in f.alive_bases
        )
        if clash or moved > CLOSE_UP_MAX_M + 1e-6 or not all(_touching(f, g) for g in foes):
            # a place is taken, or a contact would be lost: the unit stays as it is this bound
            bases, f.frontage, f.cx, f.cy = saved
            for b in f.bases:
                b.x, b.y, b.rank, b.file = bases[b.id]
            continue
        state.version += 1
        ctx.allowances[f.id] = max(ctx.allowances.get(f.id, 0.0), CLOSE_UP_MAX_M)
        events.append(
            ClosedRanks("execute_moves", f.id, form.value, before, _ranks_of(f), round(moved, 2))
        )
    return events
