"""The state of a battle as plain data (dataclasses), separate from the rules that change it.

- :class:`Base`: one base (2mm Earth: 40 x 20 m; the ruleset's ``scales`` give the size),
  centre in battlefield metres, facing, ok/injured/dead.
- :class:`Formation`: bases in ranks and files (3.1), with morale (10.x), the order it follows
  (9.1), loose formation (4.1), wings (4.2), brigades (5.1) and temperament (9.3, 11.3).
- :class:`Character` (5.1), :class:`SideState`, :class:`BattleState`.

A formation keeps each base in a slot (rank, file); the base's position is the slot's place in
the formation's frame (centre ``cx, cy``, ``facing``). Killed bases leave their slot empty: "Do
not re-arrange formations to fill in the gaps" (1.1).

>>> from engine.rulesets.two_mm_earth.profiles import Profile
>>> p = Profile.model_validate({"id": "p", "name": "P", "unit_type": "infantry",
...     "initiative": 2, "arming": {"melee": 3}, "resilience": {"melee": 4, "ranged": 4}})
>>> f = Formation.build("f", "a", "F", p, n_bases=5, frontage=2, cx=0.0, cy=0.0, facing=0.0,
...                     base_w=40.0, base_d=20.0)
>>> [(b.rank, b.file) for b in f.bases]
[(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]
>>> f.bases[0].x, f.bases[0].y      # front-left base: 20 m left, 20 m ahead of the centre
(-20.0, 20.0)
>>> f.ranks, f.obb()
(3, OBB(cx=0.0, cy=0.0, hw=40.0, hd=30.0, facing=0.0))
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Protocol, cast

import numpy as np

from engine.geometry import OBB, local, obb_array

__all__ = [
    "Base",
    "BaseStatus",
    "BattleState",
    "Character",
    "Formation",
    "FormationTable",
    "Morale",
    "SideState",
    "UnitProfile",
]


class UnitProfile(Protocol):
    """What the core asks of a ruleset's unit model (2mm Earth's troop-list ``Profile``)."""

    @property
    def id(self) -> str: ...

    @property
    def unit_type(self) -> str: ...

    @property
    def initiative(self) -> int: ...

    @property
    def temperament(self) -> str: ...

    def has(self, flag: str) -> bool: ...


class BaseStatus(StrEnum):
    OK = "ok"
    INJURED = "injured"
    DEAD = "dead"


class Morale(StrEnum):
    STEADY = "steady"
    RETREATING = "retreating"
    ROUTING = "routing"
    DESTROYED = "destroyed"


#: legal morale transitions (10.3-10.4, 11.1-11.2); a formation may also stay as it is
MORALE_TRANSITIONS: dict[Morale, frozenset[Morale]] = {
    Morale.STEADY: frozenset({Morale.RETREATING, Morale.ROUTING, Morale.DESTROYED}),
    Morale.RETREATING: frozenset({Morale.STEADY, Morale.ROUTING, Morale.DESTROYED}),
    Morale.ROUTING: frozenset({Morale.RETREATING, Morale.DESTROYED}),
    Morale.DESTROYED: frozenset(),
}

ORDERS = ("attack", "hold", "advance", "retreat", "none")


class _Clock:
    """Counts every change to what a formation's rectangle, profiles or place on the table
    depend on, and logs which formation changed (None: formations added to or taken from a
    state), so derived values (a formation's rectangle, a state's :class:`FormationTable`) are
    kept by comparing a number and replaying the log: the rules write plain attributes and
    never invalidate anything themselves. One clock for the process: a state's table skips the
    entries of other states' formations."""

    __slots__ = ("base", "log", "now")

    def __init__(self) -> None:
        self.now = 0
        self.log: list[Formation | None] = []
        self.base = 0  # entries trimmed from the front of the log

    def tick(self, f: Formation | None) -> int:
        self.now += 1
        if len(self.log) >= 100_000:
            self.base += len(self.log)
            self.log.clear()
        self.log.append(f)
        return self.now


CLOCK = _Clock()

#: a base's attributes a formation's rectangle or profiles depend on
_BASE_WATCH = frozenset({"status", "x", "y", "facing", "rank", "file", "profile", "w", "d"})
#: of those, the base's place alone: a change moves the formation's revision, not its make-up's
_BASE_PLACE = frozenset({"x", "y", "facing"})
#: a formation's attributes its rectangle, profiles, place on the table or morale view depend on
_FORMATION_WATCH = frozenset(
    {
        "cx",
        "cy",
        "facing",
        "frontage",
        "loose",
        "bases",
        "morale",
        "changed_bound",
        "base_w",
        "base_d",
        "loose_gap",
    }
)
#: of those, the formation's place alone (see _BASE_PLACE)
_FORMATION_PLACE = frozenset({"cx", "cy", "facing"})
#: Formation.kept() key of the bases' slots (Formation.place)
_SLOTS = ("state", "slots")
#: a formation's values derived from the rest, kept by revision (not copied by pickle)
_DERIVED = ("_obb", "_alive", "_sole", "_kept")


@dataclass(slots=True)
class Base:
    """One base of troops."""

    id: str
    side: str
    formation: str
    profile: UnitProfile
    x: float
    y: float
    facing: float
    status: BaseStatus = BaseStatus.OK
    character: str | None = None
    rank: int = 0
    file: int = 0
    origin: str = ""  # the formation it was deployed in (wings and brigades re-join by it)
    on_wall: bool = False  # 8.3: on a wall or tower
    ladder_ready: bool = False  # 8.3: ended a bound in contact with a wall from the bottom
    w: float = 0.0  # frontage and depth on the ground (the ruleset's scales)
    d: float = 0.0
    #: the formation whose slot the base holds (set when it joins a formation's ``bases`` and
    #: on every ``Formation.place``): told when the base dies, moves or changes
    owner: Formation | None = field(default=None, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name in _BASE_WATCH:
            owner = getattr(self, "owner", None)  # not yet set while __init__ runs
            if owner is not None:
                if name in _BASE_PLACE:
                    owner._touch_place()
                else:
                    owner._touch()

    @property
    def alive(self) -> bool:
        return self.status is not BaseStatus.DEAD

    def obb(self) -> OBB:
        return OBB(self.x, self.y, self.w / 2.0, self.d / 2.0, self.facing)


@dataclass(slots=True)
class Character:
    """A leader (5.1): killed with the base that carries them."""

    id: str
    name: str
    side: str
    leadership: int
    general: bool
    base: str
    alive: bool = True


@dataclass(slots=True)
class Formation:
    """Bases that plan and act as one (3.1); wings are formations too (4.2)."""

    id: str
    side: str
    name: str
    cx: float
    cy: float
    facing: float
    frontage: int
    bases: list[Base]
    morale: Morale = Morale.STEADY
    order: str = "none"
    target_point: tuple[float, float] | None = None
    target_formation: str | None = None
    hold_fire: bool = False  # 9.1: last commanded to Hold
    held: bool = False  # 9.1: the last order was Hold (melee-only troops carry on, no pursuit)
    loose: bool = False  # 4.1
    wing_of: str | None = None  # 4.2
    linked: bool = False  # 11.3: a Pike & Shot wing, tested for morale with its sister wings
    brigade: tuple[str, ...] = ()  # 5.1: formations merged into this one
    #: 5.1: the ids of this formation's bases that went into a brigade (to break up again)
    brigaded: tuple[str, ...] = ()
    #: 5.1: the formations merged into this brigade, by id, kept to break up into again
    units: dict[str, Formation] = field(default_factory=dict, repr=False, compare=False)
    temperament: str = "normal"  # the ruleset's word (2mm Earth 9.3: normal, rash, reluctant)
    random_troops: bool = False  # 11.3: "Random" troops, currently rash or reluctant
    start_bases: int = 0
    base_w: float = 0.0  # a base's frontage and depth (the ruleset's scales)
    base_d: float = 0.0
    loose_gap: float = 0.0  # gap between bases of a Loose Formation (the ruleset's scales)
    # bookkeeping for the bound (reset in the orders phase)
    moved_m: float = 0.0
    shot: bool = False
    fought: bool = False
    shot_at: bool = False
    fired_ordnance: bool = False
    hits_melee: int = 0
    hits_ranged: int = 0
    killed_in_bound: int = 0
    alive_at_start: int = 0
    front_at_start: tuple[str, ...] = ()
    characters_killed: tuple[str, ...] = ()
    new_contact_sides: tuple[str, ...] = ()  # "front" / "flank" / "rear" contacts new this bound
    tested: tuple[str, ...] = ()  # 10.2 / 11.1 triggers already acted on this bound
    contacts_prev: tuple[str, ...] = ()  # enemy formations in contact at the previous bound
    # morale bookkeeping
    routed_bound: int | None = None
    changed_bound: int | None = None  # bound of the last morale change
    inactive_bounds: int = 0
    pursuing: str | None = None
    retreat_from: tuple[float, float] | None = None
    killed_frac_crossed: tuple[str, ...] = ()  # 10.2 "throughout game" thresholds already used
    #: the clock (CLOCK.now) at the last change of a watched attribute of the formation or of
    #: one of its bases; the values below are kept for one revision
    _rev: int = field(default=0, init=False, repr=False, compare=False)
    #: the clock at the last change of the formation's make-up: every watched attribute but
    #: its and its bases' places (_FORMATION_PLACE, _BASE_PLACE); the living bases, profiles,
    #: ranks and :meth:`kept` values are kept for it, through moves
    _crev: int = field(default=0, init=False, repr=False, compare=False)
    _obb: tuple[int, OBB] | None = field(default=None, init=False, repr=False, compare=False)
    _alive: tuple[int, list[Base]] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _sole: tuple[int, bool, UnitProfile | None] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    #: values derived from the formation alone (its bases, their profiles, its pose and
    #: morale), kept for one revision: :meth:`kept`
    _kept: tuple[int, dict[Any, Any]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name in _FORMATION_WATCH:
            if name == "bases":
                for b in value:
                    object.__setattr__(b, "owner", self)
            if name in _FORMATION_PLACE:
                self._touch_place()
            else:
                self._touch()

    def __getstate__(self) -> dict[str, Any]:
        # derived values are left behind (a kept function does not pickle, and a revision is
        # a number of this process's clock): worked out again where the copy is used
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in _DERIVED:
            out[name] = None
        return out

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def _touch(self) -> None:
        now = CLOCK.tick(self)
        object.__setattr__(self, "_rev", now)
        object.__setattr__(self, "_crev", now)

    def _touch_place(self) -> None:
        object.__setattr__(self, "_rev", CLOCK.tick(self))

    def kept(self) -> dict[Any, Any]:
        """A dict for values derived from this formation's make-up alone (its bases, their
        status, ranks, files and profiles, its morale and layout; not where it or its bases
        stand), emptied when the make-up changes (``_crev``): the rules may keep such values
        here under keys of their own and never invalidate anything."""
        c = self._kept
        if c is None or c[0] != self._crev:
            c = (self._crev, {})
            object.__setattr__(self, "_kept", c)
        return c[1]

    @property
    def revision(self) -> int:
        """The clock at the last change of what the formation's rectangle, profiles, bases or
        morale depend on: values derived from those alone may be kept while it stays."""
        return self._rev

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        fid: str,
        side: str,
        name: str,
        profile: UnitProfile,
        *,
        n_bases: int,
        frontage: int,
        cx: float,
        cy: float,
        facing: float,
        base_w: float,
        base_d: float,
        loose_gap: float = 0.0,
        loose: bool = False,
        rear_profile: UnitProfile | None = None,
        rear_ranks: int = 0,
    ) -> Formation:
        """A formation of ``n_bases`` in ranks of ``frontage``, front rank first, each base
        ``base_w`` x ``base_d`` m (the ruleset's scales)."""
        if loose:
            frontage = n_bases  # 4.1: a Loose Formation counts as one rank
        ranks = math.ceil(n_bases / frontage)
        bases = []
        for i in range(n_bases):
            r, f = divmod(i, frontage)
            prof = rear_profile if rear_profile is not None and r >= ranks - rear_ranks else profile
            bases.append(
                Base(
                    f"{fid}.{i + 1}",
                    side,
                    fid,
                    prof,
                    0.0,
                    0.0,
                    facing,
                    rank=r,
                    file=f,
                    origin=fid,
                    w=base_w,
                    d=base_d,
                )
            )
        form = cls(
            fid,
            side,
            name,
            cx,
            cy,
            facing,
            frontage,
            bases,
            loose=loose,
            temperament=profile.temperament,
            start_bases=n_bases,
            base_w=base_w,
            base_d=base_d,
            loose_gap=loose_gap,
        )
        form.place()
        return form

    # -- layout ----------------------------------------------------------------------------
    @property
    def pitch_w(self) -> float:
        return self.base_w + (self.loose_gap if self.loose else 0.0)

    @property
    def ranks(self) -> int:
        return max((b.rank for b in self.bases), default=-1) + 1

    def slot_offset(self, rank: int, file: int) -> tuple[float, float]:
        """(across, along) of a slot's centre from the formation centre."""
        ranks = self.ranks
        n_in_rank = sum(1 for b in self.bases if b.rank == rank)
        width = self.frontage if rank < ranks - 1 or n_in_rank == self.frontage else n_in_rank
        across = (file - (width - 1) / 2.0) * self.pitch_w
        along = ((ranks - 1) / 2.0 - rank) * self.base_d
        return across, along

    def _slots(self) -> list[tuple[Base, float, float]]:
        """Each living base with its slot's (across, along) from the formation's centre: the
        same for every pose until the make-up changes (kept by :meth:`place`)."""
        bases = self.bases
        counts: dict[int, int] = {}
        for b in bases:
            counts[b.rank] = counts.get(b.rank, 0) + 1
        ranks = max(counts) + 1 if counts else 0  # the ``ranks`` property's number
        pw = self.pitch_w
        bd = self.base_d
        frontage = self.frontage
        dead = BaseStatus.DEAD
        out = []
        for b in bases:
            if b.status is dead:
                continue  # removed from the table where it fell
            rank = b.rank
            n = counts[rank]
            width = frontage if rank < ranks - 1 or n >= frontage else n
            out.append((b, (b.file - (width - 1) / 2.0) * pw, ((ranks - 1) / 2.0 - rank) * bd))
        return out

    def place(self) -> None:
        """Put every base at its slot for the formation's centre and facing."""
        r = math.radians(self.facing)  # geometry.forward and right from one sine and cosine
        sin_r, cos_r = math.sin(r), math.cos(r)
        fx, fy, rx, ry = sin_r, cos_r, cos_r, -sin_r
        bases = self.bases
        set_ = object.__setattr__  # one touch for the whole formation, below
        joined = False
        for b in bases:
            if b.owner is not self:  # a base moved in from another formation is ours now
                set_(b, "owner", self)
                joined = True
        # the slots are kept with the make-up (Formation.kept: ranks, files, statuses,
        # frontage, pitch), for this very list holding these very bases (a list changed in
        # place is caught by comparing them; a base that joined changes the make-up)
        slots: list[tuple[Base, float, float]] | None = None
        if not joined:
            c = self.kept().get(_SLOTS)
            if c is not None and len(c[0]) == len(bases) and all(map(operator.is_, c[0], bases)):
                slots = c[1]
        fresh = slots is None
        if slots is None:
            slots = self._slots()
        cx, cy, facing = self.cx, self.cy, self.facing
        acr: list[float] = []
        alg: list[float] = []
        for b, across, along in slots:
            x = cx + across * rx + along * fx
            y = cy + across * ry + along * fy
            set_(b, "x", x)
            set_(b, "y", y)
            set_(b, "facing", facing)
            # the base in the formation's frame, as obb() works it out from x and y
            dx = x - cx
            dy = y - cy
            acr.append(dx * rx + dy * ry)
            alg.append(dx * fx + dy * fy)
        # a base that joined changes the make-up (the list may have grown in place)
        if joined:
            self._touch()
        else:
            self._touch_place()
        if fresh:
            self.kept()[_SLOTS] = (tuple(bases), slots)
        if acr:
            # the rectangle now, from the values just placed (obb() would read them back for
            # the new revision: the move phase asks at once)
            object.__setattr__(self, "_obb", (self._rev, self._box(acr, alg, rx, ry, fx, fy)))

    def set_pose(self, cx: float, cy: float, facing: float) -> None:
        # written without a touch each: place() touches once for the three and the bases
        set_ = object.__setattr__
        set_(self, "cx", cx)
        set_(self, "cy", cy)
        set_(self, "facing", facing % 360.0)
        self.place()

    # -- queries ---------------------------------------------------------------------------
    def _living(self) -> list[Base]:
        """The living bases (kept for the revision: do not change the list)."""
        c = self._alive
        if c is not None and c[0] == self._crev:
            return c[1]
        out = [b for b in self.bases if b.status is not BaseStatus.DEAD]
        object.__setattr__(self, "_alive", (self._crev, out))
        return out

    @property
    def alive_bases(self) -> list[Base]:
        return list(self._living())

    @property
    def n_alive(self) -> int:
        return len(self._living())

    @property
    def removed(self) -> bool:
        """Gone from the table: destroyed, or every base dead."""
        return self.morale is Morale.DESTROYED or not self._living()

    def _sole_profile(self) -> tuple[bool, UnitProfile | None]:
        """(True, the profile) when every living base shares one profile object ((True, None)
        with no living base); (False, None) for a mixed formation.

        Most formations are of one profile, and ``profiles``/``profile`` are asked ~50k times a
        battle: kept for the revision.
        """
        c = self._sole
        if c is not None and c[0] == self._crev:
            return c[1], c[2]
        out: tuple[bool, UnitProfile | None] = (True, None)
        one: UnitProfile | None = None
        for b in self._living():
            if one is None:
                one = b.profile
            elif b.profile is not one:
                out = (False, None)
                break
        else:
            out = (True, one)
        object.__setattr__(self, "_sole", (self._crev, *out))
        return out

    @property
    def profiles(self) -> list[UnitProfile]:
        """Distinct profiles of the living bases, in slot order."""
        uniform, one = self._sole_profile()
        if uniform:
            return [] if one is None else [one]
        seen: dict[str, UnitProfile] = {}
        for b in self.bases:
            if b.alive and b.profile.id not in seen:
                seen[b.profile.id] = b.profile
        return list(seen.values())

    @property
    def profile(self) -> UnitProfile:
        """The main profile: the most common among living bases (first in slot order on ties)."""
        uniform, one = self._sole_profile()
        if uniform:
            return self.bases[0].profile if one is None else one
        counts: dict[str, int] = {}
        first: dict[str, UnitProfile] = {}
        for b in self.bases:
            if b.alive:
                counts[b.profile.id] = counts.get(b.profile.id, 0) + 1
                first.setdefault(b.profile.id, b.profile)
        if not counts:
            return self.bases[0].profile
        best = max(counts, key=lambda k: counts[k])
        return first[best]

    @property
    def unit_type(self) -> str:
        return self.profile.unit_type

    @property
    def initiative(self) -> int:
        """2.1; a mixed formation acts at the lowest initiative among its bases."""
        ps = self.profiles
        return min(p.initiative for p in ps) if ps else 0

    def has_flag(self, flag: str) -> bool:
        """True when every living base has the flag (a mixed formation has what all share);
        kept for the revision (sight asks ``skirmisher`` of every troop in the way)."""
        kept = self.kept()
        key = ("has_flag", flag)
        hit = kept.get(key)
        if hit is None:
            ps = self.profiles
            hit = kept[key] = bool(ps) and all(p.has(flag) for p in ps)
        return cast(bool, hit)

    @property
    def skirmisher(self) -> bool:
        return self.has_flag("skirmisher")

    def obb(self) -> OBB:
        """The rectangle round the living bases' slots (kept until the formation or one of its
        bases changes: ``_rev``)."""
        c = self._obb
        if c is not None and c[0] == self._rev:
            return c[1]
        alive = self._living() or self.bases
        r = math.radians(self.facing)  # geometry.forward and right from one sine and cosine
        sin_r, cos_r = math.sin(r), math.cos(r)
        fx, fy, rx, ry = sin_r, cos_r, cos_r, -sin_r
        # each base in the formation's frame: geometry.local's sums, the axes worked out once
        cx, cy = self.cx, self.cy
        across = [(b.x - cx) * rx + (b.y - cy) * ry for b in alive]
        along = [(b.x - cx) * fx + (b.y - cy) * fy for b in alive]
        out = self._box(across, along, rx, ry, fx, fy)
        object.__setattr__(self, "_obb", (self._rev, out))
        return out

    def _box(
        self, across: list[float], along: list[float], rx: float, ry: float, fx: float, fy: float
    ) -> OBB:
        """The rectangle round bases at ``across``/``along`` in the formation's frame."""
        gap = self.loose_gap / 2 if self.loose else 0
        min_a = min(across) - self.pitch_w / 2.0 + gap
        max_a = max(across) + self.pitch_w / 2.0 - gap
        min_l = min(along) - self.base_d / 2.0
        max_l = max(along) + self.base_d / 2.0
        ca, cl = (min_a + max_a) / 2.0, (min_l + max_l) / 2.0
        return OBB(
            self.cx + ca * rx + cl * fx,
            self.cy + ca * ry + cl * fy,
            (max_a - min_a) / 2.0,
            (max_l - min_l) / 2.0,
            self.facing,
        )

    def rank_of(self, side: str) -> list[Base]:
        """The living bases of the rank (or file) facing ``side``: front, rear, left, right (2.4).

        A Loose Formation counts as one rank (4.1).
        """
        kept = self.kept()
        key = ("rank_of", side)
        hit = kept.get(key)
        if hit is None:
            hit = kept[key] = self._rank_of(side)
        return list(hit)

    def _rank_of(self, side: str) -> list[Base]:
        alive = self.alive_bases
        if not alive or self.loose:
            return alive
        if side == "front":
            k = min(b.rank for b in alive)
            return [b for b in alive if b.rank == k]
        if side == "rear":
            k = max(b.rank for b in alive)
            return [b for b in alive if b.rank == k]
        if side == "left":
            k = min(b.file for b in alive)
            return [b for b in alive if b.file == k]
        if side == "right":
            k = max(b.file for b in alive)
            return [b for b in alive if b.file == k]
        raise ValueError(f"expected front, rear, left or right, got {side!r}")

    def side_toward(self, x: float, y: float) -> str:
        """Which face of the formation looks toward (x, y): front, rear, left or right."""
        o = self.obb()
        r = math.radians(o.facing)  # geometry.local's sums, one sine and cosine
        sin_r, cos_r = math.sin(r), math.cos(r)
        dx, dy = x - o.cx, y - o.cy
        a, l_ = dx * cos_r + dy * -sin_r, dx * sin_r + dy * cos_r
        # ahead of the front edge is the front, even beyond the ends (an overlapping wider
        # enemy touches the front corners); level with the formation is a flank
        if l_ >= o.hd:
            return "front"
        if l_ <= -o.hd:
            return "rear"
        if abs(a) >= o.hw:
            return "right" if a > 0 else "left"
        if abs(l_) - o.hd >= abs(a) - o.hw:
            return "front" if l_ >= 0 else "rear"
        return "right" if a > 0 else "left"

    def contact_side(self, enemy: Base) -> str:
        """Which face an enemy base in contact touches: front, rear or flank (10.2).

        The face along which the enemy base overlaps the formation's extent most: a wider enemy
        line wrapping round the front corners still touches the front.
        """
        o = self.obb()
        a, l_ = local(o, enemy.x, enemy.y)
        rel = math.radians(enemy.facing - self.facing)
        c, s = abs(math.cos(rel)), abs(math.sin(rel))
        ha = enemy.w / 2.0 * c + enemy.d / 2.0 * s
        hl = enemy.w / 2.0 * s + enemy.d / 2.0 * c
        ov_a = min(a + ha, o.hw) - max(a - ha, -o.hw)
        ov_l = min(l_ + hl, o.hd) - max(l_ - hl, -o.hd)
        if ov_a >= ov_l - 0.5:  # corner to corner counts as the front
            return "front" if l_ >= 0 else "rear"
        return "flank"

    def front_rank(self) -> list[Base]:
        return self.rank_of("front")

    def injured_share(self) -> tuple[float, float]:
        """(share of the front rank, share of the formation) injured or dead (1.1, 2.4); kept
        for the revision."""
        kept = self.kept()
        hit = kept.get("injured_share")
        if hit is None:
            hit = kept["injured_share"] = self._injured_share()
        return cast("tuple[float, float]", hit)

    def _injured_share(self) -> tuple[float, float]:
        first = min((x.rank for x in self.bases), default=0)
        front = [b for b in self.bases if b.rank == first]
        front_hurt = sum(1 for b in front if b.status is not BaseStatus.OK)
        hurt = sum(1 for b in self.bases if b.status is not BaseStatus.OK)
        return (front_hurt / max(1, len(front)), hurt / max(1, len(self.bases)))

    def character_ids(self) -> list[str]:
        return [b.character for b in self.bases if b.alive and b.character]

    def centre(self) -> tuple[float, float]:
        o = self.obb()
        return (o.cx, o.cy)


@dataclass(slots=True)
class SideState:
    """One army."""

    id: str
    name: str
    colour: str
    home_edge: str | tuple[float, float]
    locality: str
    general: str | None = None
    start_bases: int = 0

    def home_bearing(self, x: float, y: float) -> float:
        """Bearing from (x, y) toward the home edge or home point (9.1 retreat direction)."""
        if isinstance(self.home_edge, str):
            return {"north": 0.0, "east": 90.0, "south": 180.0, "west": 270.0}[self.home_edge]
        hx, hy = self.home_edge
        return math.degrees(math.atan2(hx - x, hy - y)) % 360.0


class _Formations(dict[str, Formation]):
    """A state's formations by id: adding or taking one out ticks the clock (a formation's
    own changes tick it themselves)."""

    def __setitem__(self, key: str, value: Formation) -> None:
        super().__setitem__(key, value)
        CLOCK.tick(None)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        CLOCK.tick(None)

    def pop(self, key: str, *default: Any) -> Any:
        out = super().pop(key, *default)
        CLOCK.tick(None)
        return out

    def popitem(self) -> tuple[str, Formation]:
        out = super().popitem()
        CLOCK.tick(None)
        return out

    def clear(self) -> None:
        super().clear()
        CLOCK.tick(None)

    def update(self, *args: Any, **kwargs: Any) -> None:
        super().update(*args, **kwargs)
        CLOCK.tick(None)

    def setdefault(self, key: str, default: Formation) -> Formation:
        out = super().setdefault(key, default)
        CLOCK.tick(None)
        return out


class FormationTable:
    """The formations on a state's table as columns: ``forms`` in deployment order,
    ``arr`` their rectangles (N, 5: cx, cy, hw, hd, facing), ``sides`` (N,), ``rows`` id ->
    row; ``revision`` counts its changes and ``memo`` holds what phases derive from one
    revision (a spatial index, gaps, nearest enemies; emptied when it changes).

    :meth:`sync` replays the clock's log since the last call: a formation that moved, lost a
    base or changed gets its row rewritten (the array is copied first: whoever holds the old
    one keeps a consistent snapshot); one that left or joined the table rebuilds it. Nothing
    the rules do needs to invalidate it.
    """

    __slots__ = (
        "_cursor",
        "_sides_of",
        "arr",
        "forms",
        "memo",
        "revision",
        "rows",
        "sides",
        "state",
    )

    def __init__(self, state: BattleState) -> None:
        self.state = state
        self.revision = 0
        self._cursor = -1  # rebuilt at the first sync
        self.forms: list[Formation] = []
        self.rows: dict[str, int] = {}
        self.arr = np.zeros((0, 5))
        self.sides = np.zeros(0, dtype=object)
        self.memo: dict[Any, Any] = {}
        self._sides_of: dict[str, list[Formation]] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"state": self.state}  # the clock is the process's: rebuilt after a copy

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__init__(d["state"])  # type: ignore[misc]

    def _rebuild(self) -> None:
        forms = [f for f in self.state.formations.values() if not f.removed]
        self.forms = forms
        self.rows = {f.id: k for k, f in enumerate(forms)}
        self.arr = obb_array([f.obb() for f in forms])
        self.sides = np.array([f.side for f in forms])
        self._changed()

    def _changed(self) -> None:
        self.revision += 1
        self.memo = {}
        self._sides_of = None

    def sync(self) -> FormationTable:
        """Brought up to date with every change since the last call; returns itself."""
        clock = CLOCK
        end = clock.base + len(clock.log)
        if self._cursor == end:
            return self
        if self._cursor < clock.base:
            self._rebuild()
            self._cursor = end
            return self
        if end - self._cursor == 1:
            # one change since (a move: the mover placed once, ~2,600 times a 2x60 battle): a
            # formation of ours still on the table gets its row anew, as the loop below does;
            # anything else goes the general way
            f = clock.log[-1]
            if f is not None and not f.removed:
                k = self.rows.get(f.id)
                if k is not None and self.forms[k] is f:
                    arr = self.arr.copy()
                    arr[k] = f.obb()
                    self.arr = arr
                    self._changed()
                    self._cursor = end
                    return self
        own = self.state.formations
        rows: set[int] = set()
        gone: set[int] = set()
        full = False
        for f in clock.log[self._cursor - clock.base :]:
            if f is None:
                full = True  # a formation joined or left some state: perhaps this one
                break
            k = self.rows.get(f.id)
            if k is None or self.forms[k] is not f:
                if own.get(f.id) is f and not f.removed:
                    full = True  # one of ours back on the table
                    break
                continue  # another state's, or off the table already
            rows.add(k)
        if not full:
            # the changed ones now off the table (destroyed, every base dead)
            gone = {k for k in rows if self.forms[k].removed}
            rows -= gone
        if full or (gone and len(gone) == len(self.forms)):
            self._rebuild()
        elif gone:
            # what _rebuild would make: the formations still on the table keep the dict's
            # order (no formation joined or left the dict: that logs None) and their rows
            # (the kept rectangles of the unchanged ones are their rows already)
            keep = [k for k in range(len(self.forms)) if k not in gone]
            forms = [self.forms[k] for k in keep]
            arr = self.arr[keep]
            for k in rows:
                arr[keep.index(k)] = self.forms[k].obb()
            self.forms = forms
            self.rows = {f.id: k for k, f in enumerate(forms)}
            self.arr = arr
            self.sides = self.sides[keep]
            self._changed()
        elif rows:
            arr = self.arr.copy()
            for k in rows:
                arr[k] = self.forms[k].obb()
            self.arr = arr
            self._changed()
        self._cursor = end
        return self

    def side_forms(self, side: str) -> list[Formation]:
        """The formations of one side on the table, in deployment order (do not change it)."""
        by = self._sides_of
        if by is None:
            by = self._sides_of = {}
            for f in self.forms:
                by.setdefault(f.side, []).append(f)
        return by.get(side, [])


@dataclass(slots=True)
class BattleState:
    """Everything that changes during a battle."""

    sides: dict[str, SideState]
    formations: dict[str, Formation]
    characters: dict[str, Character]
    bound: int = 0
    phase: str = "deploy"
    bounds_xy: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    messengers: list[dict[str, Any]] = field(default_factory=list)
    # enemy formations in contact with each formation: fid -> sorted enemy fids
    contacts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    version: int = 0  # bumped on every move, for caches keyed on positions
    _table: FormationTable | None = field(default=None, init=False, repr=False, compare=False)
    #: :attr:`bases` and what it was built from: each formation's ``bases`` list (the objects,
    #: held so no new list can take an old one's id) and their lengths, in the dict's order
    _bases: tuple[list[list[Base]], list[int], dict[str, Base]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self.formations = _Formations(self.formations)

    def table(self) -> FormationTable:
        """The formations on the table as columns, up to date (:class:`FormationTable`)."""
        t = self._table
        # asked ~10^4 times a battle, mostly with nothing changed since: that test first
        if (
            t is not None
            and t._cursor == CLOCK.now  # = CLOCK.base + len(CLOCK.log): a tick logs one entry
            and type(self.formations) is _Formations
        ):
            return t
        if type(self.formations) is not _Formations:  # replaced by a plain dict
            self.formations = _Formations(self.formations)
            self._table = None
        t = self._table
        if t is None:
            t = self._table = FormationTable(self)
        return t.sync()

    @property
    def bases(self) -> dict[str, Base]:
        """Every base of every formation by id (do not change the dict). Asked ~500 times a
        battle, mostly with no base gone from or come into a formation since: kept while every
        formation, in the same order, holds the same ``bases`` list of the same length (the
        rules replace a formation's list or extend it; no base's id changes), else built anew.
        """
        lists = [f.bases for f in self.formations.values()]
        lens = list(map(len, lists))
        c = self._bases
        if (
            c is not None
            and c[1] == lens
            and len(c[0]) == len(lists)
            and all(map(operator.is_, c[0], lists))
        ):
            return c[2]
        out = {b.id: b for bases in lists for b in bases}
        self._bases = (lists, lens, out)
        return out

    def side_formations(self, side: str) -> list[Formation]:
        return [f for f in self.formations.values() if f.side == side]

    def active(self, side: str | None = None) -> list[Formation]:
        """Formations still on the table (optionally of one side), in deployment order."""
        t = self.table()
        return list(t.forms if side is None else t.side_forms(side))

    def enemies_of(self, side: str) -> list[Formation]:
        return [f for f in self.formations.values() if f.side != side and not f.removed]

    def losses(self) -> dict[str, int]:
        """Dead bases per side."""
        out = {s: 0 for s in self.sides}
        for f in self.formations.values():
            out[f.side] += sum(1 for b in f.bases if b.status is BaseStatus.DEAD)
        return out

    def broken_fraction(self, side: str) -> float:
        """Share of a side's bases dead, or in routing or destroyed formations (victory)."""
        total = self.sides[side].start_bases or 1
        lost = 0
        for f in self.side_formations(side):
            if f.morale in (Morale.ROUTING, Morale.DESTROYED):
                lost += len(f.bases)
            else:
                lost += sum(1 for b in f.bases if b.status is BaseStatus.DEAD)
        return lost / total

    def fingerprint(self) -> tuple[Any, ...]:
        """Everything observable, for side-by-side determinism tests."""
        return (
            self.bound,
            self.phase,
            tuple(
                (
                    f.id,
                    f.morale.value,
                    f.order,
                    str(f.temperament),
                    tuple(
                        (b.id, round(b.x, 6), round(b.y, 6), round(b.facing, 6), b.status.value)
                        for b in f.bases
                    ),
                )
                for f in self.formations.values()
            ),
        )
