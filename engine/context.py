"""What every phase of a bound works on: ground, state, dice, ruleset, sight, and the bound's notes.

Kept apart from the phases (:mod:`engine.rulesets.two_mm_earth.phases`) so rule modules (melee,
morale, sieges) can take it without importing the bound sequence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.dice import Dice
from engine.log import Event
from engine.sight import Sight
from engine.state import BattleState, Formation

__all__ = ["QUIET", "BoundContext"]

#: event types that never come with a change of position, losses or morale
QUIET = frozenset({"planned_move"})


@dataclass(slots=True)
class BoundContext:
    bf: Any
    state: BattleState
    dice: Dice
    ruleset: Any
    sight: Sight
    scenario: Any = None
    commanders: dict[str, Any] = field(default_factory=dict)
    delivery: Any = None
    events: list[Event] = field(default_factory=list)
    plans: dict[str, Any] = field(default_factory=dict)  # fid -> MovePlan
    shots: dict[str, Any] = field(default_factory=dict)  # fid -> ShotPlan
    pending_hits: list[tuple[str, int, tuple[float, float], str]] = field(default_factory=list)
    base_pairs: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    allowances: dict[str, float] = field(default_factory=dict)  # fid -> metres this bound
    start_poses: dict[str, dict[str, tuple[float, float, float]]] = field(default_factory=dict)
    cover_cache: dict[tuple[str, int], list[int]] = field(default_factory=dict)
    has_walls: bool = False
    geo_cache: Any = None
    centre_cache: Any = None  # (table_key, {fid: centre}) for the morale phase
    gap_matrix: Any = None  # [geo key, rows asked, distance_many matrix, {fid: row}, ids, arr]
    gap_cache: dict[tuple[str, str, int], float] = field(default_factory=dict)
    #: (fid, limit, table_key) -> the nearest enemies (bound._nearest_enemies)
    near_cache: dict[tuple[Any, ...], list[Any]] = field(default_factory=dict)

    quiet_events: int = 0  # events of this bound that change nothing on the table (QUIET)

    moved_events: int = 0  # "moved" events of this bound

    def emit(self, events: Event | list[Event]) -> None:
        for e in events if isinstance(events, list) else (events,):
            self.events.append(e)
            if e.type in QUIET:
                self.quiet_events += 1
            elif e.type == "moved":
                self.moved_events += 1

    def table_key(self, moves: bool = True) -> tuple[int, ...] | tuple[Any, ...]:
        """Changes whenever a formation moves, loses a base or changes morale (for caches of
        positions and of who is on the table): moves bump ``state.version``; losses and morale
        changes always come with an event that is not QUIET. ``moves=False``: a key that only
        changes with losses, morale and the like, for a cache that follows moves itself."""
        st = self.state
        n = len(self.events) - self.quiet_events
        if moves:
            return (st.bound, st.phase, st.version, n)
        return (st.bound, st.phase, n - self.moved_events)

    @property
    def phase(self) -> str:
        return self.state.phase

    def cover_classes(self, f: Formation) -> list[int]:
        """7.1 cover classes of a formation's footprint (cached per position state)."""
        key = (f.id, self.state.version)
        hit = self.cover_cache.get(key)
        if hit is None:
            from engine.movement import footprint_classes
            from engine.rulesets.two_mm_earth.sieges import cover_override

            hit, _ = footprint_classes(self.bf, f, "cover")
            if self.has_walls:
                hit = cover_override(self.bf, f, hit)
            self.cover_cache[key] = hit
        return hit

    def cover_class(self, f: Formation, kind: str) -> int:
        """The one cover class used for ``f``: the applicable class that helps it most (7.2)."""
        classes = self.cover_classes(f)
        if not classes:
            return 0
        return max(
            classes,
            key=lambda c: (self.ruleset.cover_modifier(f.unit_type, c, kind), c),
        )
