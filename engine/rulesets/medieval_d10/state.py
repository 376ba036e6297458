"""The medieval-d10 game's state: each unit on the battlefield (:class:`UnitState`), each
Commander and Inspirational Figure (:class:`FigureState`) and what a unit is doing
(:class:`Mode`). The battle (:class:`~.game.MedievalBattle`) owns them; the phase modules read
and write them.

They are this book's fields on the core's state, never a second copy of it: a unit's place,
facing, figures and morale are its core ``Formation``'s (read and written through
:class:`UnitState`'s properties), a lone figure's place its one-base formation's and a placed
figure's life its core ``Character``'s. A game no core deployed (a test's) stands its units on
core formations of their own (:func:`deploy_unit`, :func:`lone_figure`).

The reasons a unit keeps for phase 15 (``UnitState.pending``) are THE MORALE TEST CHART's
"REASONS TO TAKE A MORALE TEST", by priority (:data:`R_DRAWN_LOST` ...): the phases that give
them (melee, firing, a figure falling, a first sight) and the phase that tests them share them.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from engine.rulesets.medieval_d10.charts import CommanderKind
from engine.rulesets.medieval_d10.scale import FIGURE_SCALES, FigureScale
from engine.rulesets.medieval_d10.units import MedievalProfile, Unit, UnitSpec
from engine.state import Base, BaseStatus, Character
from engine.state import Formation as CoreFormation

__all__ = [
    "ARMY_CONTINGENT",
    "CONTACT_M",
    "FigureState",
    "Mode",
    "UnitState",
    "deploy_unit",
    "lone_figure",
]

#: one figure's frontage and depth on the ground (20 mm at 25 mm: 2 chart cm)
FIGURE_M = FIGURE_SCALES[FigureScale.MM25].ground_m(2.0)
#: gap under which two units are in base-to-base contact (ground metres)
CONTACT_M = 1.0

# REASONS TO TAKE A MORALE TEST, by priority (1 highest)
R_COUNTER_CHARGE, R_DRAWN_LOST, R_FIGURE_KILLED, R_SEEN_ROUT, R_UNSEEN_ENEMY = 1, 4, 5, 6, 7
R_CASUALTIES, R_FIRST_FIRE, R_RALLY, R_HALF, R_CONTINGENT_LOST = 8, 9, 10, 11, 12


class Command(StrEnum):
    """A unit's standing orders in the game turn, from the scenario's plan (engine.command's
    intents): attack (declare charges when in reach, GAME TURN SEQUENCE phases 4-9), march to a
    place (no charge on the way, then hold) or hold."""

    ATTACK = "attack"
    MARCH = "march"
    HOLD = "hold"


class Mode(StrEnum):
    """What a unit is doing, from its orders and its last morale or control test."""

    OBEY = "act as ordered"
    HALF_SPEED = "half speed advance"
    NO_ADVANCE = "no advance"
    FALL_BACK = "fall back"
    ROUTING = "routing"
    PURSUING = "pursuing"
    DESTROYED = "destroyed"


#: what a unit's row in the battle's UnitTable depends on besides its centre (its place,
#: UnitState.place, touches the row itself): its make-up (figures, formation and order: its
#: depth; figures: alive) and its mode (alive, routing)
_TABLE_WATCH = frozenset({"make", "unit", "mode", "offstage"})
#: what ``UnitState.alive`` depends on
_LIFE = frozenset({"make", "unit", "mode", "offstage"})


@dataclass
class UnitState:
    """One unit on the battlefield (mutable; the battle owns it): the core's ``Formation`` for
    what the core keeps of it and this book's own fields beside it.

    Where it stands and faces, its figures and its morale live on :attr:`formation` alone (one
    figure is one base): :attr:`x`, :attr:`y` and :attr:`facing` read the formation's centre
    and bearing, and a write puts the formation there (:meth:`place`); :attr:`unit` is its
    make-up (:attr:`make`: spec, formation, order, limbering, disorder) with ``figures_lost``
    the formation's dead bases, and a figure lost marks a base dead (:meth:`lose`, rear ranks
    first). Everything else here is this book's own: its :class:`Mode`, orders, charge and
    reaction flags, fire counters, the REASONS TO TAKE A MORALE TEST, its contingent."""

    #: the unit's make-up (its spec, formation, order, limbering, disorder): its own
    #: ``figures_lost`` is never read (:attr:`unit` counts the formation's dead bases)
    make: Unit
    side: str
    #: the core's formation of the unit (engine.state): its pose, bases (figures) and morale
    formation: CoreFormation = field(repr=False)
    order: Command = Command.HOLD
    #: figure-ranks of its line as the scenario deploys it (its figures over its figure
    #: frontage, docs/scenarios.md "Figures"); None: its order's (``game.LINE_RANKS``)
    line_ranks: int | None = None
    from_turn: int = 1
    #: the scenario's place to attack (an attack on a point, an objective to take): the unit
    #: advances on it first, until there or an enemy is within its move (engine.conditions)
    goal: tuple[float, float] | None = None
    #: the scenario's enemy unit to attack: advanced on instead of the nearest while it stands
    aim: str | None = None
    mode: Mode = Mode.OBEY
    mode_until: int = 0  # the turn a half-speed / no-advance result lasts to
    target: str | None = None
    charging: bool = False
    charged_this_turn: bool = False
    moved: bool = False
    moving_turn: int = -9  # last turn it moved
    fired_turn: int = -9
    under_fire_turn: int = -9
    under_fire_by: set[str] = field(default_factory=set)
    #: the enemy units that shot at it this Game Turn (CONTROL TEST reason 3, "Being shot at")
    shot_at_by: set[str] = field(default_factory=set)
    #: the turn it broke into a rout (CONTROL TEST reason 4, "seeing an enemy unit break")
    routed_turn: int = -9
    volleys: int = 0
    shots_fired: int = 0
    ever_under_fire: bool = False
    casualties_turn: int = 0
    melee_lost: bool = False
    #: the unit that beat it in this turn's melee (phase 13; a draw beats no one)
    beaten_by: str | None = None
    #: MELEE result: the winner that pushes it back in phase 3 of the next turn (declared in
    #: phase 15 when its morale test leaves it in the melee: "declare which units must ... be
    #: Pushed-back"); None: not pushed
    pushed_by: str | None = None
    #: the turn it was pushed back (MELEE CHART "being PUSHED-BACK"; THE MORALE TEST CHART
    #: "Being Pushed Back in good order")
    pushed_back_turn: int = -9
    #: the beaten unit it follows up in phase 3 of the next turn ("Following-up in an on-going
    #: Melee"): the player's wish, or a failed Control Test's "must Follow-Up"
    follow_up: str | None = None
    #: the loot-worthy place (a Built-up Area of the enemy's) mercenaries failing THE CONTROL
    #: TEST reason 7 run at, out of their player's orders; None: none
    loot: tuple[float, float] | None = None
    #: the turn it followed up (THE CONTROL TEST CHART "Pushing Forward in melee")
    followed_up_turn: int = -9
    pending: list[tuple[int, str]] = field(default_factory=list)  # (priority, reason) for phase 15
    control_reasons: list[str] = field(default_factory=list)
    reactions: set[str] = field(default_factory=set)  # this turn's reaction to a charge
    fall_back_disordered: bool = False
    commander: CommanderKind | None = None  # the kind of the Commander figure with the unit
    contingent: str | None = None  # its "contingent" (a medieval "Battle"): assign_contingents
    seen: set[str] | None = None  # enemy units it has seen (MORALE reason 7); None: not looked
    saw_inspirational_lost: bool = False  # "has seen an Inspirational Figure killed or wounded"
    counter_charge: bool = False  # its charge is a counter-charge (MORALE reason 1)
    #: off the table until it arrives (engine.reinforcements): no part of the battle, but its
    #: figures count in its side's strength for the break (as the core counts them)
    offstage: bool = False
    #: the core's one-base formations of lone Inspirational Figures that joined it: they
    #: stand at its place (:meth:`place` moves them with it)
    followers: list[CoreFormation] = field(default_factory=list, repr=False)

    if TYPE_CHECKING:

        @property
        def alive(self) -> bool:
            """Not destroyed and with figures left: at run time a plain value, kept by
            :meth:`__setattr__` when ``mode``, ``unit`` or ``offstage`` change and by
            :meth:`lose` (the battle asks it of every unit many times a phase; the figures
            are lost through the game, the core kills no base of a medieval unit), and no
            dataclass field (no argument, no default)."""

    def __post_init__(self) -> None:
        # a make-up counting figures lost already (a troop list's ``figures_lost``) loses them
        # on the formation: its dead bases are the one count
        if self.make.figures_lost != _dead(self.formation):
            self.unit = self.make

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        if name in _VIEWS:
            object.__setattr__(self, name, value)  # the property: written on the formation
        else:
            d[name] = value
        if name in _TABLE_WATCH:
            self._changed(name)

    def _changed(self, name: str) -> None:
        d = self.__dict__
        if name in _LIFE and "mode" in d:  # (``make`` comes first in __init__)
            d["alive"] = (
                d["mode"] is not Mode.DESTROYED
                and self.unit.figures_left > 0
                and not d.get("offstage", False)
            )
        if name == "mode":
            hook = d.get("_on_mode")  # the battle writes the core's morale for it
            if hook is not None:
                hook(self)
        # the battle's UnitTable (engine.rulesets.medieval_d10.nearby) reads the row again
        table = d.get("_table")
        if table is not None:
            table.touch(self)

    # -- the core's fields, read and written on the formation -------------------------------
    @property
    def x(self) -> float:
        return self.formation.cx

    @x.setter
    def x(self, value: float) -> None:
        f = self.formation
        self.place(value, f.cy, f.facing)

    @property
    def y(self) -> float:
        return self.formation.cy

    @y.setter
    def y(self, value: float) -> None:
        f = self.formation
        self.place(f.cx, value, f.facing)

    @property
    def facing(self) -> float:
        """Bearing in degrees, 0 = north, clockwise: the formation's (``% 360``), turned to
        radians where a sine is taken."""
        return self.formation.facing

    @facing.setter
    def facing(self, value: float) -> None:
        f = self.formation
        self.place(f.cx, f.cy, value)

    def place(self, x: float, y: float, facing: float) -> None:
        """Stand the unit at (x, y) facing ``facing``: one ``set_pose`` of its formation (its
        fallen figures stay where they fell) and of the lone figures that joined it. A move
        sweeps its steps on its own and places the unit once, where it ends."""
        f = self.formation
        if f.cx == x and f.cy == y and f.facing == facing % 360.0:
            return
        f.set_pose(x, y, facing)
        for lone in self.followers:
            lone.set_pose(x, y, lone.facing)
        d = self.__dict__
        hook = d.get("_on_place")  # the core's clock of moves (BattleState.version)
        if hook is not None:
            hook()
        table = d.get("_table")
        if table is not None:
            table.touch(self)

    @property
    def unit(self) -> Unit:
        """The unit's make-up with ``figures_lost`` its formation's dead bases (worked out
        again when the formation's make-up changes: ``Formation.kept``)."""
        make = self.__dict__["make"]
        kept = self.formation.kept()
        hit = kept.get(_UNIT_KEY)
        if hit is not None and hit[0] is make:
            return hit[1]
        lost = _dead(self.formation)
        unit = make if make.figures_lost == lost else replace(make, figures_lost=lost)
        kept[_UNIT_KEY] = (make, unit)
        return unit

    @unit.setter
    def unit(self, value: Unit) -> None:
        # a make-up counting more (or fewer) figures lost than the formation's dead bases
        # marks bases dead, rear ranks first (or back, front ranks first: a test's set-up)
        self.__dict__["make"] = value
        f = self.formation
        gap = value.figures_lost - _dead(f)
        if gap > 0:
            _kill(f, gap, ())
        elif gap < 0:
            dead = [b for b in f.bases if b.status is BaseStatus.DEAD]
            dead.sort(key=lambda b: (b.rank, b.file))
            for b in dead[:-gap]:
                b.status = BaseStatus.OK

    def lose(self, kills: int, fallen: Collection[str] = ()) -> list[Base]:
        """``kills`` figures lost: that many living bases marked dead at once, rear ranks first,
        the front keeping on fighting; a fallen Commander or Inspirational Figure (``fallen``:
        character ids) is one of the figures lost, its base first. Returns the bases."""
        out = _kill(self.formation, kills, fallen)
        self._changed("unit")
        return out

    def relose(self, bases: list[Base], fallen: Collection[str]) -> list[Base]:
        """The same figures lost again with more characters ``fallen`` since: ``bases`` (this
        loss's) stand again and as many are lost anew, a fallen character's base first."""
        for b in bases:
            b.status = BaseStatus.OK
        return self.lose(len(bases), fallen)

    @property
    def id(self) -> str:
        return self.make.id

    @property
    def routing(self) -> bool:
        return self.mode is Mode.ROUTING

    def forward(self) -> tuple[float, float]:
        rad = math.radians(self.facing)
        return math.sin(rad), math.cos(rad)


#: the unit's view written through to the formation (properties of UnitState)
_VIEWS = frozenset({"x", "y", "facing", "unit"})
#: UnitState.unit's key in its formation's kept values
_UNIT_KEY = ("medieval-d10", "unit")


def _dead(f: CoreFormation) -> int:
    return len(f.bases) - f.n_alive


def _kill(f: CoreFormation, kills: int, fallen: Collection[str]) -> list[Base]:
    """Mark ``kills`` living bases of ``f`` dead: a fallen character's first, then the rear
    ranks, left to right."""
    alive = sorted(f.alive_bases, key=lambda b: (b.character not in fallen, -b.rank, b.file))
    out = alive[: max(0, kills)]
    for b in out:
        b.status = BaseStatus.DEAD
    return out


#: the contingent of the army commander's own battle (his troop-list ``contingent`` is None)
ARMY_CONTINGENT = "army"


@dataclass
class FigureState:
    """A Commander figure (``kind`` set) or an Inspirational Figure (``kind`` None) standing in
    the front rank of ``unit`` ("Commander and Inspirational Figures"; the MELEE CHART's "any
    COMMANDER or INSPIRATIONAL figure in the front rank"). ``seniority`` 0 is the most senior
    (the army commander, then the troop list's order); ``general`` marks the army commander.
    An Inspirational Figure may stand alone on the field (``unit`` None) at ``x``, ``y``: it
    inspires the units that see it within 150 yds and walks to join a unit (``join``).

    What the core keeps of a figure is read and written there: a figure placed alone stands
    on its one-base core formation (``lone``: ``x``, ``y`` are its centre), and the core's
    ``Character`` of a figure the scenario places (``character``) is whether it lives."""

    id: str
    side: str
    unit: str | None
    kind: CommanderKind | None
    contingent: str | None = None
    seniority: int = 0
    general: bool = False
    killed_turn: int = 0
    #: the unit a lone Inspirational Figure walks to join (None: the nearest friendly unit)
    join: str | None = None
    #: the core's one-base formation of a figure the scenario places alone
    lone: CoreFormation | None = None
    #: the core's Character of a figure the scenario places (with a unit or alone)
    character: Character | None = None
    #: killed, for a figure the core keeps no Character of (the troop list stands it with a
    #: formation the scenario does not name it with)
    fallen: bool = False

    @property
    def inspirational(self) -> bool:
        return self.kind is None

    @property
    def alive(self) -> bool:
        c = self.character
        return not self.fallen if c is None else c.alive

    @alive.setter
    def alive(self, value: bool) -> None:
        c = self.character
        if c is None:
            self.fallen = not value
        else:
            c.alive = value

    def _place(self) -> CoreFormation:
        if self.lone is None:
            raise ValueError(f"figure {self.id} stands with a unit, not alone on the field")
        return self.lone

    @property
    def x(self) -> float:
        return self._place().cx

    @property
    def y(self) -> float:
        return self._place().cy

    def walk_to(self, x: float, y: float) -> None:
        """Stand the figure alone at (x, y): one ``set_pose`` of its core formation."""
        f = self._place()
        f.set_pose(x, y, f.facing)


def deploy_unit(
    unit: Unit, side: str, xy: tuple[float, float], facing_deg: float, **kw: Any
) -> UnitState:
    """A :class:`UnitState` at a battlefield point, facing a bearing in degrees, on a core
    formation of its own (one base a figure, 20 mm at 25 mm, five files): a battle the core
    does not deploy (a test's, a procedure's)."""
    f = CoreFormation.build(
        unit.id,
        side,
        unit.spec.name or unit.id,
        MedievalProfile(unit.spec),
        n_bases=unit.figures,
        frontage=min(unit.figures, 5),
        cx=float(xy[0]),
        cy=float(xy[1]),
        facing=float(facing_deg) % 360.0,
        base_w=FIGURE_M,
        base_d=FIGURE_M,
    )
    return UnitState(unit, side, f, **kw)


def lone_figure(
    fid: str, side: str, xy: tuple[float, float], join: str | None = None
) -> FigureState:
    """An Inspirational Figure alone on the field at ``xy`` on a one-base core formation of
    its own (as the core deploys one the scenario places alone)."""
    spec = UnitSpec.model_validate(
        {"id": fid, "arm": "infantry", "weight": "heavy", "class": "A", "melee": "sword"}
    )
    f = CoreFormation.build(
        fid,
        side,
        fid,
        MedievalProfile(spec),
        n_bases=1,
        frontage=1,
        cx=float(xy[0]),
        cy=float(xy[1]),
        facing=0.0,
        base_w=FIGURE_M,
        base_d=FIGURE_M,
    )
    f.bases[0].character = fid
    return FigureState(fid, side, None, None, join=join, lone=f)
