"""A medieval-d10 battle: units of figures fought game turn by game turn on a built battlefield.

The game turn is the GAME TURN SEQUENCE CHART's own phase list (:data:`PHASES`, the book's
numbers 1-13, 15, 16); every event of the log names its phase. Distances are ground metres on
the battlefield; the book's chart centimetres become metres through the scenario's figure scale
(:mod:`.scale`). Every die goes through the one :class:`~engine.dice.Dice`.

What the automatic commanders do (the book leaves it to players): a unit ordered to ``attack``
advances on the nearest enemy from its ``from_turn`` and declares a charge when the enemy is
within charge reach; a unit ordered to ``hold`` stays, shoots and fights where it stands; units
with missiles halt to shoot at an enemy within long range. Readings of the rules are in
docs/rules-interpretations.md ("medieval-d10").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.dice import Dice
from engine.log import Event
from engine.pathing import CostAt, first_blocked, way_around
from engine.rulesets.medieval_d10.charts import (
    ARTILLERY_FALL_BACK_ABANDON_MAX,
    COMMANDER_KILLED_VALUE,
    FALL_BACK_DISTANCE,
    FIRING_RANGES,
    GAME_TURN_SEQUENCE,
    ArmourGrade,
    CommanderKind,
    MoraleColumn,
    MoraleResult,
    Phase,
    RangeBand,
    TerrainColumn,
    TroopClass,
    range_band,
)
from engine.rulesets.medieval_d10.nearby import UnitTable
from engine.rulesets.medieval_d10.procedures import (
    CasualtyRoll,
    control_modifier,
    control_test,
    firing_need,
    melee_need,
    morale_modifier,
    morale_test,
    roll_artillery,
    roll_casualties,
    roll_initiative,
    strength_lost_steps,
)
from engine.rulesets.medieval_d10.scale import GroundScale
from engine.rulesets.medieval_d10.terrain import (
    Cover,
    Terrain,
    TerrainTable,
    disorders,
    load_terrain_table,
    march_fraction,
    slope_class,
    slope_class_of_code,
    slope_classes,
)
from engine.rulesets.medieval_d10.units import (
    PIKE_SPEAR_HALBERD,
    Arm,
    Formation,
    MeleeWeapon,
    Order,
    Unit,
)
from engine.special_rules import SpecialRules

__all__ = [
    "ARMY_CONTINGENT",
    "PHASES",
    "FigureState",
    "MedievalBattle",
    "Mode",
    "UnitState",
    "assign_contingents",
]

#: step of the movement sweep along a path (ground metres)
STEP_M = 5.0
#: MOVEMENT CHART "Any Skirmish-order Infantry", class A, B, C or M, line: 20 cm; a lone
#: Inspirational Figure walks at it (docs/rules-interpretations.md, "Inspirational Figures alone")
LONE_FIGURE_CM = 20
#: gap under which two units are in base-to-base contact (ground metres)
CONTACT_M = 1.0
#: figure frontage and depth in chart cm (25 mm: 20 mm foot figures, horse 25 x 50 mm, guns
#: 40 x 60 mm per model)
FIGURE_CM: dict[Arm, tuple[float, float]] = {
    Arm.INFANTRY: (2.0, 2.0),
    Arm.CAVALRY: (2.5, 5.0),
    Arm.ARTILLERY: (4.0, 6.0),
}
#: figure ranks of a line by order (pikes deploy up to 4 deep: MELEE CHART)
LINE_RANKS: dict[Order, int] = {Order.CLOSE: 3, Order.LOOSE: 2, Order.SKIRMISH: 1}
COLUMN_FILES = 4


class Mode(StrEnum):
    """What a unit is doing, from its orders and its last morale or control test."""

    OBEY = "act as ordered"
    HALF_SPEED = "half speed advance"
    NO_ADVANCE = "no advance"
    FALL_BACK = "fall back"
    ROUTING = "routing"
    PURSUING = "pursuing"
    DESTROYED = "destroyed"


#: what a unit's row in the battle's UnitTable depends on: its centre, its make-up (figures,
#: formation and order: its depth; figures: alive) and its mode (alive, routing)
_TABLE_WATCH = frozenset({"x", "y", "unit", "mode", "offstage"})
#: a unit whose centre is this close to the place it was sent to has reached it (as 2mm
#: Earth's General reads a waypoint: commanders.REACHED_M)
GOAL_M = 60.0
#: the least widening of the window searched for a way around forbidden ground (metres): a
#: marsh or a lake a few hundred metres across is gone round, not only skirted at its edge
DETOUR_MARGIN_M = 300.0
#: what ``UnitState.alive`` depends on
_LIFE = frozenset({"unit", "mode", "offstage"})


def _never(uid: str) -> bool:
    """No unit is held (a battle with no readiness states)."""
    return False


@dataclass
class UnitState:
    """One unit on the battlefield (mutable; the battle owns it)."""

    unit: Unit
    side: str
    x: float
    y: float
    facing: float  # bearing in radians, 0 = north, clockwise
    order: str = "hold"
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

    if TYPE_CHECKING:

        @property
        def alive(self) -> bool:
            """Not destroyed and with figures left: at run time a plain value, kept by
            :meth:`__setattr__` when ``mode`` or ``unit`` change (the battle asks it of every
            unit many times a phase), and no dataclass field (no argument, no default)."""

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        d[name] = value
        if name in _TABLE_WATCH:
            if name in _LIFE and "mode" in d:  # (``unit`` comes first in __init__)
                d["alive"] = (
                    d["mode"] is not Mode.DESTROYED
                    and d["unit"].figures_left > 0
                    and not d.get("offstage", False)
                )
            # the battle's UnitTable (engine.rulesets.medieval_d10.nearby) reads the row again
            table = d.get("_table")
            if table is not None:
                table.touch(self)

    @property
    def id(self) -> str:
        return self.unit.id

    @property
    def routing(self) -> bool:
        return self.mode is Mode.ROUTING

    def forward(self) -> tuple[float, float]:
        return math.sin(self.facing), math.cos(self.facing)


#: the contingent of the army commander's own battle (his troop-list ``contingent`` is None)
ARMY_CONTINGENT = "army"


@dataclass
class FigureState:
    """A Commander figure (``kind`` set) or an Inspirational Figure (``kind`` None) standing in
    the front rank of ``unit`` ("Commander and Inspirational Figures"; the MELEE CHART's "any
    COMMANDER or INSPIRATIONAL figure in the front rank"). ``seniority`` 0 is the most senior
    (the army commander, then the troop list's order); ``general`` marks the army commander.
    An Inspirational Figure may stand alone on the field (``unit`` None) at ``x``, ``y``: it
    inspires the units that see it within 150 yds and walks to join a unit (``join``)."""

    id: str
    side: str
    unit: str | None
    kind: CommanderKind | None
    contingent: str | None = None
    seniority: int = 0
    general: bool = False
    alive: bool = True
    killed_turn: int = 0
    x: float = 0.0
    y: float = 0.0
    #: the unit a lone Inspirational Figure walks to join (None: the nearest friendly unit)
    join: str | None = None

    @property
    def inspirational(self) -> bool:
        return self.kind is None


def assign_contingents(units: Iterable[UnitState], figures: Iterable[FigureState]) -> None:
    """Each unit's contingent ("Each army should be divided into a number of contingents"): that
    of the Commander figure with it, else its troop list's ``contingent``, else that of the
    nearest Commander figure of its side at deployment (the "Battle" it stands in; the reading
    is in docs/rules-interpretations.md)."""
    units = list(units)
    by_id = {u.id: u for u in units}
    # Commander figures always stand with a unit (MedievalBattle refuses a lone one)
    home = {
        f.id: by_id[f.unit]
        for f in figures
        if f.kind is not None and f.unit is not None and f.unit in by_id
    }
    cmd = sorted((f for f in figures if f.id in home), key=lambda f: f.seniority)
    for f in cmd:
        if home[f.id].contingent is None:
            home[f.id].contingent = f.contingent
    for u in units:
        if u.contingent is not None:
            continue
        if u.unit.spec.contingent:
            u.contingent = u.unit.spec.contingent
            continue
        own = [f for f in cmd if f.side == u.side]
        if own:
            near = min(
                own,
                key=lambda f: (
                    math.dist((u.x, u.y), (home[f.id].x, home[f.id].y)),
                    f.seniority,
                ),
            )
            u.contingent = near.contingent


# The GAME TURN SEQUENCE CHART as (phase, method name): the log names each phase by its number
# and the book's name.
PHASES: tuple[tuple[Phase, str], ...] = (
    (Phase.INITIATIVE, "phase_initiative"),
    (Phase.WEATHER, "phase_weather"),
    (Phase.COMPULSORY_MOVEMENT, "phase_compulsory"),
    (Phase.A_DECLARE_CHARGES, "phase_declare_a"),
    (Phase.B_DECLARE_CHARGES, "phase_declare_b"),
    (Phase.B_DECLARE_REACTIONS, "phase_react_b"),
    (Phase.A_DECLARE_REACTIONS, "phase_react_a"),
    (Phase.A_CHARGE_MOVEMENT, "phase_charge_a"),
    (Phase.B_CHARGE_MOVEMENT, "phase_charge_b"),
    (Phase.MORALE_SEEING_ROUT, "phase_morale_seeing"),
    (Phase.A_NORMAL_MOVEMENT, "phase_normal_a"),
    (Phase.B_NORMAL_MOVEMENT, "phase_normal_b"),
    (Phase.MELEE, "phase_melee"),
    (Phase.MORALE, "phase_morale"),
    (Phase.CONTROL, "phase_control"),
)
_PHASE_NAME = {row.phase: f"{int(row.phase)} {row.name}" for row in GAME_TURN_SEQUENCE}

WEATHER_STATES = ("dry", "light_rain", "heavy_rain")
WIND_STRENGTHS = ("calm", "breeze", "strong", "gale")
WIND_POINTS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")  # where the wind blows from

# REASONS TO TAKE A MORALE TEST, by priority (1 highest)
R_COUNTER_CHARGE, R_DRAWN_LOST, R_FIGURE_KILLED, R_SEEN_ROUT, R_UNSEEN_ENEMY = 1, 4, 5, 6, 7
#: MORALE TEST RESULT: a counter-charge goes in on "Act as Ordered", and on "Half speed advance"
#: ("Troops wishing to Charge ... may React-to-a-charge (including Counter-charging ...)")
COUNTER_CHARGE_GOES_IN = frozenset({MoraleResult.ACT_AS_ORDERED, MoraleResult.HALF_SPEED})
R_CASUALTIES, R_FIRST_FIRE, R_RALLY, R_HALF, R_CONTINGENT_LOST = 8, 9, 10, 11, 12
#: the factors a morale or control event shows (the situation's lines; classes are implied)
_SHOWN_FACTORS = frozenset(
    {
        "commander_seen",
        "commander_near",
        "contingent_commander_lost",
        "inspirational",
        "inspirational_lost",
        "insecure_flank",
        "charge_soft_target",
    }
)
#: the sectors of a unit's flanks and rear (degrees off its facing): beyond 45 deg is a flank,
#: beyond 135 deg the rear ("Each Insecure unit flank or rear"; docs/rules-interpretations.md)
FLANK_DEG, REAR_DEG = 45.0, 135.0


def _step(i: int, face: int, n: int) -> int:
    """One step along a scale of ``n`` states: up on 1-3, down on 8-10, else stay.

    >>> _step(0, 2, 3), _step(0, 9, 3), _step(2, 1, 3), _step(1, 5, 3)
    (1, 0, 2, 1)
    """
    if face <= 3:
        return min(i + 1, n - 1)
    if face >= 8:
        return max(i - 1, 0)
    return i


def strikes(a: CasualtyRoll | None, b: CasualtyRoll | None) -> dict[str, Any]:
    """A melee's two strikes for its record: each side's kill score and d10s (MELEE CHART),
    left out for a side that did not strike."""
    out: dict[str, Any] = {}
    for key, r in (("a", a), ("b", b)):
        if r is not None:
            out[f"need_{key}"], out[f"faces_{key}"] = r.need, list(r.faces)
    return out


def phase_name(phase: Phase) -> str:
    """The log's name of a phase: its number and the book's name.

    >>> phase_name(Phase.MELEE)
    '13 Melee Calculations'
    """
    return _PHASE_NAME[phase]


class MedievalBattle:
    """One medieval-d10 battle of ``units`` on ``battlefield`` with the one ``dice``.

    ``units``: the deployed :class:`UnitState`s; ``commanders``: side -> army commander kind;
    ``scale``: the figure scale's :class:`GroundScale`.
    """

    def __init__(
        self,
        battlefield: Any,
        units: list[UnitState],
        commanders: dict[str, CommanderKind],
        dice: Dice,
        scale: GroundScale,
        *,
        weather: str = "dry",
        wind: tuple[str, str] = ("breeze", "W"),
        max_turns: int = 30,
        break_fraction: float = 0.5,
        part_dice: bool = False,
        automatic_kills: bool = False,
        terrain: TerrainTable | None = None,
        header: dict[str, Any] | None = None,
        figures: Iterable[FigureState] = (),
    ) -> None:
        if weather not in WEATHER_STATES:
            raise ValueError(f"expected weather one of {WEATHER_STATES}, got {weather!r}")
        self.bf = battlefield
        self.units = {u.id: u for u in units}
        self.sides = sorted({u.side for u in units})
        if len(self.sides) != 2:
            raise ValueError(f"expected two sides, got {self.sides}")
        self.commanders = commanders
        self.dice = dice
        self.scale = scale
        self.weather = weather
        self.wind_strength, self.wind_from = wind
        if self.wind_strength not in WIND_STRENGTHS or self.wind_from not in WIND_POINTS:
            raise ValueError(
                f"expected wind (strength, from) in {WIND_STRENGTHS} x {WIND_POINTS}, got {wind}"
            )
        self.max_turns = max_turns
        self.break_fraction = break_fraction
        self.part_dice = part_dice
        self.automatic_kills = automatic_kills
        self.terrain = terrain or load_terrain_table()
        #: units not yet ready to fight (engine.readiness: set by the ruleset)
        self.held: Callable[[str], bool] = _never
        #: the scenario's special rules (engine.special_rules): limited_missile_supply in
        #: :meth:`fire`, fog in :meth:`sees`; their events, for the core's log
        self.special = SpecialRules()
        self.special_events: list[Event] = []
        self.turn = 0
        self.side_a, self.side_b = self.sides
        self.phase: Phase = Phase.INITIATIVE
        self.events: list[dict[str, Any]] = []
        self.header = dict(header or {})
        self.start_figures = {s: self._figures(s) for s in self.sides}
        self.result: dict[str, Any] | None = None
        self.moved_m: dict[str, float] = {}
        self.allowance_m: dict[str, float] = {}
        self.figures: dict[str, FigureState] = {f.id: f for f in figures}
        for f in self.figures.values():
            if f.unit is None and f.kind is not None:
                raise ValueError(f"figure {f.id}: a Commander figure stands with a unit")
            if f.unit is not None and f.unit not in self.units:
                raise ValueError(f"figure {f.id}: no unit {f.unit!r}")
        self._sight: dict[tuple[str, str, int, int, int, int], bool] = {}
        self._m_cache: dict[float, float] = {}
        self._size_cache: dict[tuple[Arm, int, Formation, Order], tuple[float, float]] = {}
        #: units whose last normal move went around forbidden ground, or was stopped by it
        #: with no way around: the event is logged as that begins, not every turn it lasts
        self._around: dict[str, str] = {}
        #: the units near a unit, by culling in arrays (kept current by the units' writes)
        self.nearby = UnitTable(
            list(self.units.values()), self.sides, lambda u: self.size(u)[1] / 2
        )

    # -- helpers ---------------------------------------------------------------------------
    def m(self, chart_cm: float) -> float:
        """Ground metres of a chart distance (cm at 25 mm); memoised (exact Fraction sums)."""
        hit = self._m_cache.get(chart_cm)
        if hit is None:
            hit = self._m_cache[chart_cm] = self.scale.ground_m(chart_cm)
        return hit

    def log(self, kind: str, unit: str | None = None, **data: Any) -> None:
        event = {"turn": self.turn, "phase": phase_name(self.phase), "type": kind}
        if unit is not None:
            event["unit"] = unit
        event.update(data)
        self.events.append(event)

    def alive(self, side: str | None = None) -> Iterator[UnitState]:
        for u in self.units.values():
            if u.alive and (side is None or u.side == side):
                yield u

    def enemy_of(self, side: str) -> str:
        return self.side_b if side == self.side_a else self.side_a

    def _figures(self, side: str) -> int:
        return sum(u.unit.figures_left for u in self.units.values() if u.side == side)

    def size(self, u: UnitState) -> tuple[float, float]:
        """Frontage and depth (ground metres) of a unit in its formation."""
        key = (u.unit.arm, u.unit.figures_left, u.unit.formation, u.unit.order)
        hit = self._size_cache.get(key)
        if hit is not None:
            return hit
        w_cm, d_cm = FIGURE_CM[u.unit.arm]
        n = max(1, u.unit.figures_left)  # a gun model is one figure
        if u.unit.arm is Arm.ARTILLERY:
            files, ranks = n, 1
        elif u.unit.formation is Formation.COLUMN:
            files = min(COLUMN_FILES, n)
            ranks = math.ceil(n / files)
        else:
            ranks = min(LINE_RANKS[u.unit.order], n)
            files = math.ceil(n / ranks)
        hit = self._size_cache[key] = (self.m(files * w_cm), self.m(ranks * d_cm))
        return hit

    def ranks(self, u: UnitState) -> int:
        _, d = self.size(u)
        return max(1, round(d / self.m(FIGURE_CM[u.unit.arm][1])))

    def gap(self, a: UnitState, b: UnitState) -> float:
        """Ground between two units (centre distance less half their depths)."""
        return math.dist((a.x, a.y), (b.x, b.y)) - (self.size(a)[1] + self.size(b)[1]) / 2

    def in_contact(self, a: UnitState, b: UnitState) -> bool:
        return self.gap(a, b) <= CONTACT_M

    def engaged(self, uid: str) -> bool:
        """Whether unit ``uid`` is in contact with a living enemy unit."""
        u = self.units.get(uid)
        if u is None or not u.alive:
            return False
        return any(self.in_contact(u, e) for e in self.alive(self.enemy_of(u.side)))

    def terrain_at(self, x: float, y: float) -> tuple[Terrain, Cover]:
        """This ruleset's terrain and cover at a point (off the map: impassable)."""
        if not self.bf.contains(x, y):
            return Terrain.IMPASSABLE, Cover.NONE
        row = self.terrain.rows.get(str(self.bf.feature_at(x, y)))
        if row is None:
            return Terrain.OPEN, Cover.NONE
        return row.terrain, row.cover

    def elevation(self, x: float, y: float) -> float:
        return float(self.bf.elevation_at(x, y))

    def nearest_enemy(self, u: UnitState, routing_ok: bool = False) -> UnitState | None:
        """The living enemy unit of least gap to ``u`` (not routing unless ``routing_ok``),
        the first in unit order on ties: measured only among those the table cannot rule out."""
        best, best_d = None, math.inf
        units = self.nearby.units
        rows = self.nearby.nearest_rows(u, self.enemy_of(u.side), routing_ok=routing_ok)
        for i in rows.tolist():
            e = units[i]
            d = self.gap(u, e)
            if d < best_d:
                best, best_d = e, d
        return best

    def within_150yd(self, u: UnitState, others: Iterable[UnitState] | str) -> list[UnitState]:
        """The units of ``others`` (or the living units of side ``others``) other than ``u``
        within 150 yds of it, in their order."""
        reach = self.m(30)  # "within 150yds" = 30 cm at 25 mm (charts are 25 mm distances)
        if isinstance(others, str):
            others = self.nearby.near(u, reach, others)
        return [o for o in others if o is not u and self.gap(u, o) <= reach]

    def column_of(self, u: UnitState) -> TerrainColumn:
        return u.unit.terrain_column()

    # -- sight, flanks, Commander and Inspirational Figures ----------------------------------
    def sees(self, a: UnitState, b: UnitState) -> bool:
        """Whether ``a`` sees ``b`` over the battlefield's ground (its DEM levels, woods and
        built-up areas: the Battlefield's line of sight). Cached for the turn."""
        fog = self.special.fog_m
        if fog is not None and a.side != b.side and self.gap(a, b) > fog:
            return False  # special rule fog: no enemy seen beyond it
        key = (a.id, b.id, round(a.x), round(a.y), round(b.x), round(b.y))
        hit = self._sight.get(key)
        if hit is None:
            try:
                hit = bool(self.bf.line_of_sight((a.x, a.y), (b.x, b.y)))
            except (ValueError, KeyError, IndexError):
                hit = False  # off the battlefield: out of sight
            self._sight[key] = hit
        return hit

    def _sight_of_pairs(self, pairs: list[tuple[UnitState, UnitState]]) -> list[bool]:
        """Whether each ``a`` sees its ``b``, in one vectorised line-of-sight call (pair by pair
        through :meth:`sees` if an end is off the battlefield): :meth:`sees`' answers, not kept in
        the turn's cache (only ``look`` asks of enemy pairs, each once a turn)."""
        many = getattr(self.bf, "line_of_sight_many", None)
        if self.special.fog_m is not None:
            many = None  # fog: each pair through sees (its distance first)
        if pairs and many is not None:
            src = np.asarray([(a.x, a.y) for a, _ in pairs], float)
            dst = np.asarray([(b.x, b.y) for _, b in pairs], float)
            try:
                return [bool(h) for h in many(src, dst)]
            except (ValueError, KeyError, IndexError):
                pass  # some end off the battlefield: ask pair by pair
        return [self.sees(a, b) for a, b in pairs]

    def sector(self, u: UnitState, x: float, y: float) -> str:
        """Where a point lies from ``u``: ``front``, ``left``, ``right`` or ``rear`` (beyond
        :data:`FLANK_DEG` off its facing a flank, beyond :data:`REAR_DEG` the rear)."""
        dx, dy = x - u.x, y - u.y
        along = dx * math.sin(u.facing) + dy * math.cos(u.facing)
        across = dx * math.cos(u.facing) - dy * math.sin(u.facing)
        off = math.degrees(math.atan2(across, along))
        if abs(off) <= FLANK_DEG:
            return "front"
        if abs(off) > REAR_DEG:
            return "rear"
        return "right" if off > 0 else "left"

    def insecure_flanks(self, u: UnitState) -> list[str]:
        """THE MORALE / CONTROL TEST CHART "Each Insecure unit flank or rear" (the book does not
        define it; docs/rules-interpretations.md): a flank or the rear is insecure when a formed
        enemy unit that can charge (not routing or falling back, not artillery) stands within
        150 yds in that sector, and no formed friendly unit stands within 150 yds in the same
        sector, nor does the flank rest on ground no formed body crosses (impassable, marsh or
        the battlefield's edge)."""
        reach = self.m(30)
        threatened: set[str] = set()
        for e in self.nearby.near(u, reach, self.enemy_of(u.side)):
            if e.routing or e.mode is Mode.FALL_BACK or e.unit.arm is Arm.ARTILLERY:
                continue
            if self.gap(u, e) <= reach:
                where = self.sector(u, e.x, e.y)
                if where != "front":
                    threatened.add(where)
        out = []
        for where in ("left", "right", "rear"):
            if where in threatened and not self._covered(u, where, reach):
                out.append(where)
        return out

    def _covered(self, u: UnitState, where: str, reach: float) -> bool:
        for f in self.nearby.near(u, reach, u.side):
            if f is u or f.routing or f.mode is Mode.FALL_BACK:
                continue
            if self.gap(u, f) <= reach and self.sector(u, f.x, f.y) == where:
                return True
        w, d = self.size(u)
        step = self.m(FIGURE_CM[u.unit.arm][0])
        sx, sy = math.sin(u.facing), math.cos(u.facing)  # forward
        if where == "rear":
            px, py = u.x - sx * (d / 2 + step), u.y - sy * (d / 2 + step)
        else:
            side = 1.0 if where == "right" else -1.0
            px = u.x + side * math.cos(u.facing) * (w / 2 + step)
            py = u.y - side * math.sin(u.facing) * (w / 2 + step)
        terrain, _ = self.terrain_at(px, py)
        return terrain in (Terrain.IMPASSABLE, Terrain.MARSH)

    def figures_with(self, u: UnitState) -> list[FigureState]:
        """The living Commander and Inspirational Figures in ``u``'s front rank."""
        return [f for f in self.figures.values() if f.alive and f.unit == u.id]

    def unit_of(self, f: FigureState) -> UnitState:
        """The unit a figure stands with (a Commander figure always has one)."""
        if f.unit is None:
            raise ValueError(f"figure {f.id} stands alone, with no unit")
        return self.units[f.unit]

    def _present(self, f: FigureState) -> bool:
        return f.alive and (f.unit is None or self.units[f.unit].alive)

    def commanders_near(self, u: UnitState) -> list[FigureState]:
        """Friendly Commander figures seen within 150 yds of ``u`` (not with it)."""
        reach = self.m(30)
        out = []
        for f in self.figures.values():
            if f.side != u.side or f.kind is None or f.unit == u.id or not self._present(f):
                continue
            fu = self.unit_of(f)
            if self.gap(u, fu) <= reach and self.sees(u, fu):
                out.append(f)
        return out

    def inspired(self, u: UnitState) -> bool:
        """ "An Inspirational Figure is either with the testing Unit or seen within 150yds"."""
        reach = self.m(30)
        for f in self.figures.values():
            if f.side != u.side or f.kind is not None or not self._present(f):
                continue
            if f.unit is None:
                # alone on the field: seen within 150 yds of the unit's front or rear edge
                near = math.dist((u.x, u.y), (f.x, f.y)) - self.size(u)[1] / 2 <= reach
                if near and self._sees_point(u, f.x, f.y):
                    return True
                continue
            fu = self.unit_of(f)
            if fu is u or (self.gap(u, fu) <= reach and self.sees(u, fu)):
                return True
        return False

    def _sees_point(self, u: UnitState, x: float, y: float) -> bool:
        try:
            return bool(self.bf.line_of_sight((u.x, u.y), (x, y)))
        except (ValueError, KeyError, IndexError):
            return False  # off the battlefield: out of sight

    def move_lone_figures(self, side: str) -> None:
        """Phases 11-12, normal movement: each Inspirational Figure standing alone walks toward
        the unit it is to join (else the nearest friendly unit not routing) at the MOVEMENT
        CHART's "Any Skirmish-order Infantry" class A-C line rate (a lone figure on foot; the
        chart has no row for one: docs/rules-interpretations.md), paying the TERRAIN CHART as
        skirmishers do; reaching the unit it joins its front rank ("with the testing Unit"; the
        MELEE CHART's "in the front rank")."""
        for f in self.figures.values():
            if f.side != side or f.unit is not None or not f.alive or f.kind is not None:
                continue
            friends = [u for u in self.alive(side) if not u.routing]
            if f.join is not None:
                friends = [u for u in friends if u.id == f.join]
            if not friends:
                continue
            goal = min(
                friends, key=lambda u: (math.dist((u.x, u.y), (f.x, f.y)) - self.size(u)[1], u.id)
            )
            rate = self.m(LONE_FIGURE_CM)
            spent, x0, y0 = 0.0, f.x, f.y
            while spent < rate - 1e-9:
                centre = math.dist((goal.x, goal.y), (f.x, f.y))
                d = centre - self.size(goal)[1] / 2
                if d <= CONTACT_M or centre < 1e-9:
                    break
                ux, uy = (goal.x - f.x) / centre, (goal.y - f.y) / centre
                step = min(STEP_M, d)
                nx, ny = f.x + ux * step, f.y + uy * step
                terrain, _ = self.terrain_at(nx, ny)
                slope = slope_class(float(self.bf.slope_at(nx, ny)))
                uphill = self.elevation(nx, ny) > self.elevation(f.x, f.y)
                frac = march_fraction(
                    TerrainColumn.SKIRMISH, terrain, slope, uphill=uphill, cavalry=False
                )
                if frac is None or frac <= 0:
                    break
                if spent + step / float(frac) > rate:
                    step = (rate - spent) * float(frac)  # the last of the move
                    nx, ny = f.x + ux * step, f.y + uy * step
                    spent = rate
                else:
                    spent += step / float(frac)
                f.x, f.y = nx, ny
            moved = math.dist((x0, y0), (f.x, f.y))
            joined = math.dist((goal.x, goal.y), (f.x, f.y)) - self.size(goal)[1] / 2 <= CONTACT_M
            if joined:
                f.unit, f.join = goal.id, None
            self.log("figure_moves", goal.id, figure=f.id, metres=round(moved, 1), joined=joined)

    def contingent_commander(self, u: UnitState) -> FigureState | None:
        """The Commander figure of ``u``'s contingent (its most senior at deployment)."""
        cands = [
            f
            for f in self.figures.values()
            if f.side == u.side and f.kind is not None and f.contingent == u.contingent
        ]
        return min(cands, key=lambda f: f.seniority) if cands else None

    def contingent_lost(self, u: UnitState) -> tuple[bool, FigureState | None]:
        """ "The testing Unit's contingent Commander figure is either killed, wounded or not in
        sight": (whether so, the figure). A commander whose unit has left the field is not in
        sight; with no contingent commander on the table the line never applies."""
        c = self.contingent_commander(u)
        if c is None:
            return False, None
        if not c.alive:
            return True, c
        cu = self.unit_of(c)
        if not cu.alive:
            return True, c
        return (cu is not u and not self.sees(u, cu)), c

    def initiative_commander(self, side: str) -> CommanderKind | None:
        """Initiative: "If several commanders (players) are present, the most senior will roll":
        the army commander while his figure lives (or when he has none on the table), else the
        most senior surviving Commander figure; None (no modifier) when none survives."""
        figs = [f for f in self.figures.values() if f.side == side and f.kind is not None]
        general = next((f for f in figs if f.general), None)
        if general is None or self._present(general):
            return self.commanders[side]
        alive = sorted((f for f in figs if self._present(f)), key=lambda f: f.seniority)
        return alive[0].kind if alive else None

    def figure_falls(self, fig: FigureState, why: str) -> None:
        """A Commander or Inspirational Figure is killed: its unit loses it, friendly units that
        see it fall within 150 yds test (MORALE reason 5), and an Inspirational Figure's death
        stays with those who saw it ("has seen an Inspirational Figure killed or wounded")."""
        fig.alive, fig.killed_turn = False, self.turn
        u = self.unit_of(fig)
        if fig.kind is not None:
            left = [f.kind for f in self.figures_with(u) if f.kind is not None]
            u.commander = left[0] if left else None
        self.log(
            "figure_killed",
            u.id,
            figure=fig.id,
            role="inspirational" if fig.inspirational else "commander",
            commander_kind=None if fig.kind is None else fig.kind.value,
            general=fig.general,
            reason=why,
        )
        reach = self.m(30)
        what = "Inspirational Figure" if fig.inspirational else "Commander figure"
        for o in self.alive(fig.side):
            if o is u or (self.gap(o, u) <= reach and self.sees(o, u)):
                o.pending.append((R_FIGURE_KILLED, f"saw {what} {fig.id} killed"))
                if fig.inspirational:
                    o.saw_inspirational_lost = True

    def look(self) -> None:
        """MORALE reason 7, "The testing unit has just seen previously unseen enemy, for the
        first time": each unit notes the enemy units it sees; those it sees at its first look
        (the deployment) are not a surprise, and neither is an enemy first seen further off
        than 150 yds (the distance the book gives its other sight tests, reasons 5 and 6: an
        army seen coming from afar is watched, not sprung on the unit; docs/
        rules-interpretations.md)."""
        lookers = [u for u in self.alive() if not u.routing]
        enemies = {s: list(self.alive(self.enemy_of(s))) for s in self.sides}
        # an enemy a unit has seen before can give it no first sight: only the others are
        # looked at (the answers are the same, and no other question asks of enemy pairs, so
        # the turn's sight cache answers nothing else differently); the first look sees all
        todo = [
            (u, [e for e in enemies[u.side] if u.seen is None or e.id not in u.seen])
            for u in lookers
        ]
        pairs = [(u, e) for u, unseen in todo for e in unseen]
        hits = iter(self._sight_of_pairs(pairs))
        for u, unseen in todo:
            now = {e.id for e in unseen if next(hits)}
            if u.seen is None:
                u.seen = now
                continue
            if now:
                u.seen |= now
                seen_now = [e for e in unseen if e.id in now]
                near = sorted(e.id for e in self.within_150yd(u, seen_now))
                if near:
                    u.pending.append((R_UNSEEN_ENEMY, f"first sight of {', '.join(near)}"))

    # -- movement ----------------------------------------------------------------------------
    def allowance(self, u: UnitState, *, bonus: bool = False) -> float:
        """Ground metres of the unit's march rate (plus the charge / rout / pursue bonus)."""
        cm = u.unit.march_rate_cm() + (u.unit.bonus_cm() if bonus else 0)
        return self.m(cm)

    def move_toward(
        self,
        u: UnitState,
        tx: float,
        ty: float,
        allowance_m: float,
        *,
        stop_short_of: UnitState | None = None,
        face: bool = True,
        backwards: bool = False,
    ) -> float:
        """Sweep ``u`` toward (tx, ty) in steps, paying the TERRAIN CHART's fraction of its
        march rate for each step's ground; stops at impassable ground, at the map edge, on
        reaching the point, or in contact with ``stop_short_of``. Returns metres moved."""
        if math.hypot(tx - u.x, ty - u.y) < 1e-6 or allowance_m <= 0:
            return 0.0
        self.allowance_m[u.id] = self.allowance_m.get(u.id, 0.0) + allowance_m
        moved, _, _ = self._sweep(u, tx, ty, allowance_m, stop_short_of, face, backwards)
        self._moved(u, moved)
        return moved

    def move_along(self, u: UnitState, way: list[tuple[float, float]], allowance_m: float) -> float:
        """Sweep ``u`` along the points of ``way`` in turn, as :meth:`move_toward` sweeps one
        leg, on one allowance: each leg spends what the chart charges for its ground and the
        next starts with what is left. Returns metres moved."""
        if not way or allowance_m <= 0:
            return 0.0
        self.allowance_m[u.id] = self.allowance_m.get(u.id, 0.0) + allowance_m
        moved, budget = 0.0, allowance_m
        for tx, ty in way:
            leg, spent, done = self._sweep(u, tx, ty, budget, None, True, False)
            moved, budget = moved + leg, budget - spent
            if not done or budget <= 1e-9:
                break
        self._moved(u, moved)
        return moved

    def advance_to(self, u: UnitState, tx: float, ty: float, allowance_m: float) -> float:
        """A normal move toward (tx, ty) as a table makes it: straight when the straight way
        is ground the unit may cross; around it (:func:`engine.pathing.way_around`) when the
        TERRAIN CHART forbids ground on the straight way (a marsh "only on track, road or
        through a gap", impassable ground), logging the ground it goes around; straight to
        the edge, logging that it is blocked, when no way around is found. Returns metres
        moved."""
        price = self.ground_price(u)
        stop = first_blocked((u.x, u.y), (tx, ty), price, step=STEP_M)
        if stop is None:
            self._around.pop(u.id, None)
            allowance_m = self._road_march(u, [(tx, ty)], allowance_m)
            return self.move_toward(u, tx, ty, allowance_m)
        by = self.terrain_at(*stop)[0].value  # the chart's name of the ground in the way
        straight = math.dist((u.x, u.y), (tx, ty))
        way = way_around(
            (u.x, u.y),
            (tx, ty),
            price,
            cell=max(float(getattr(self.bf, "res", STEP_M)), 2 * STEP_M),
            margin=max(DETOUR_MARGIN_M, straight / 2),
        )
        if way is None:
            if self._around.get(u.id) != "blocked":
                self.log("blocked", u.id, by=by)
            self._around[u.id] = "blocked"
            return self.move_toward(u, tx, ty, allowance_m)
        if self._around.get(u.id) != "detour":
            legs = zip([(u.x, u.y), *way[:-1]], way, strict=True)
            self.log(
                "detour",
                u.id,
                by=by,
                way_m=round(sum(math.dist(a, b) for a, b in legs), 1),
                straight_m=round(straight, 1),
                reaches=way[-1] == (tx, ty),
            )
        self._around[u.id] = "detour"
        return self.move_along(u, way, self._road_march(u, way, allowance_m))

    def _road_march(
        self, u: UnitState, way: list[tuple[float, float]], allowance_m: float
    ) -> float:
        """MOVEMENT CHART "March on a Road or Track" bonus: ``allowance_m`` plus the unit's
        bonus when its whole move this turn, from where it stands to where the larger
        allowance would take it along ``way``, lies on road or track (TERRAIN CHART note **:
        "A unit must be on a road / track for an entire Game Turn, to claim the Road Bonus");
        a unit at full march rate only (not at half speed, not artillery: its limbered moves
        are :meth:`_toward_range`'s). Logged as ``road_march``."""
        if u.mode is Mode.HALF_SPEED or u.unit.arm is Arm.ARTILLERY:
            return allowance_m
        if self.terrain_at(u.x, u.y)[0] is not Terrain.ROAD_TRACK:
            return allowance_m
        bonus = self.m(u.unit.bonus_cm())
        left, at = allowance_m + bonus, (u.x, u.y)
        for point in way:
            leg = math.dist(at, point)
            n = max(1, math.ceil(min(leg, left) / STEP_M))
            for i in range(1, n + 1):
                t = min(leg, left) * i / n / (leg or 1.0)
                x, y = at[0] + (point[0] - at[0]) * t, at[1] + (point[1] - at[1]) * t
                if self.terrain_at(x, y)[0] is not Terrain.ROAD_TRACK:
                    return allowance_m
            left -= leg
            if left <= 0:
                break
            at = point
        self.log("road_march", u.id, bonus_m=round(bonus, 1))
        return allowance_m + bonus

    def ground_price(self, u: UnitState) -> CostAt:
        """The price of a metre of ground at many points for ``u``'s move: the reciprocal of
        the TERRAIN CHART's share of its march rate (slopes counted as if climbed: a path
        is planned before the way up or down is known), ``inf`` where the chart forbids it
        and off the map."""
        column = self.column_of(u)
        cavalry = u.unit.arm is Arm.CAVALRY
        local = u.unit.spec.local
        legend = self.bf.meta["legend"]["feature"]
        minx, miny, maxx, maxy = self.bf.bounds
        known: dict[int, float] = {}

        def price(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
            codes, inside = self.bf.codes_on_map("feature", xs, ys)
            sx = np.clip(xs, minx, np.nextafter(maxx, minx))
            sy = np.clip(ys, np.nextafter(miny, maxy), maxy)
            slopes = slope_classes(np.asarray(self.bf.slope_at(sx, sy), dtype=float))
            keys = np.where(inside, codes.astype(np.int64) * 4 + slopes, -1)
            out = np.full(keys.shape, math.inf)
            for key in np.unique(keys).tolist():
                if key < 0:
                    continue
                value = known.get(key)
                if value is None:
                    row = self.terrain.rows.get(str(legend.get(key // 4, "unknown")))
                    terrain = Terrain.OPEN if row is None else row.terrain
                    frac = march_fraction(
                        column,
                        terrain,
                        slope_class_of_code(key % 4),
                        uphill=True,
                        cavalry=cavalry,
                        local=local,
                    )
                    value = known[key] = math.inf if not frac else 1.0 / float(frac)
                out[keys == key] = value
            return out

        return price

    def _moved(self, u: UnitState, moved: float) -> None:
        if moved > 0:
            u.moving_turn = self.turn
            self.moved_m[u.id] = self.moved_m.get(u.id, 0.0) + moved

    def _sweep(
        self,
        u: UnitState,
        tx: float,
        ty: float,
        budget: float,
        stop_short_of: UnitState | None,
        face: bool,
        backwards: bool,
    ) -> tuple[float, float, bool]:
        """One leg of a move: (metres moved, allowance spent, whether it reached the point)."""
        dx, dy = tx - u.x, ty - u.y
        dist = math.hypot(dx, dy)
        if dist < 1e-6:
            return 0.0, 0.0, True
        ux, uy = dx / dist, dy / dist
        if face:
            u.facing = math.atan2(ux, uy) if not backwards else math.atan2(-ux, -uy)
        column = self.column_of(u)
        cavalry = u.unit.arm is Arm.CAVALRY
        start = budget
        moved = 0.0
        z = self.elevation(u.x, u.y)
        while moved < dist - 1e-9 and budget > 1e-9:
            step = min(STEP_M, dist - moved)
            nx, ny = u.x + ux * step, u.y + uy * step
            if not self.bf.contains(nx, ny):
                if u.routing:
                    self.destroy(u, "routed off the battlefield")
                return moved, start - budget, False
            terrain, _ = self.terrain_at(nx, ny)
            nz = self.elevation(nx, ny)
            slope = slope_class(float(self.bf.slope_at(nx, ny)))
            fraction = march_fraction(
                column, terrain, slope, uphill=nz > z, cavalry=cavalry, local=u.unit.spec.local
            )
            if fraction is None or fraction <= 0:
                return moved, start - budget, False
            cost = step / float(fraction)
            if cost > budget:
                step = budget * float(fraction)
                cost = budget
                nx, ny = u.x + ux * step, u.y + uy * step
                # the short last step can end in a cell the full step passed by (a corner of
                # a marsh between two samples): a unit never stops on ground it may not enter
                if (
                    march_fraction(
                        column,
                        self.terrain_at(nx, ny)[0],
                        slope,
                        uphill=nz > z,
                        cavalry=cavalry,
                        local=u.unit.spec.local,
                    )
                    is None
                ):
                    return moved, start - budget, False
            if stop_short_of is not None:
                ox, oy = u.x, u.y
                u.x, u.y = nx, ny
                if self.gap(u, stop_short_of) < 0:
                    # back off to contact
                    over = -self.gap(u, stop_short_of)
                    u.x, u.y = nx - ux * over, ny - uy * over
                    moved += max(0.0, step - over)
                    return moved, start - budget, False
                u.x, u.y = ox, oy
            u.x, u.y = nx, ny
            moved += step
            budget -= cost
            z = nz
            if disorders(column, terrain) and not u.unit.disordered:
                u.unit = dc_replace(u.unit, disordered=True)
                self.log("disordered", u.id, by=terrain.value)
        return moved, start - budget, moved >= dist - 1e-9

    def destroy(self, u: UnitState, why: str) -> None:
        if u.mode is not Mode.DESTROYED:
            u.mode = Mode.DESTROYED
            self.log("destroyed", u.id, reason=why, figures_left=u.unit.figures_left)

    # -- the turn ----------------------------------------------------------------------------
    def phases(self) -> Iterator[Phase]:
        """Play the battle phase by phase (yielding after each, for checks), to the end."""
        while self.result is None:
            self.begin_turn()
            for phase, method in PHASES:
                self.play(phase, method)
                yield phase
                if self.result is not None:
                    return
            self.check_end()

    def begin_turn(self) -> None:
        """Advance the turn count and clear the turn's notes (before phase 1)."""
        self.turn += 1
        self.moved_m = {}
        self.allowance_m = {}
        self._sight.clear()
        for u in self.alive():
            u.moved = False
            u.charged_this_turn = False
            u.casualties_turn = 0
            u.melee_lost = False
            u.shot_at_by = set()
            u.reactions.clear()

    def play(self, phase: Phase, method: str) -> None:
        """Play one phase of the current turn."""
        self.phase = phase
        getattr(self, method)()

    def run(self) -> dict[str, Any]:
        for _ in self.phases():
            pass
        assert self.result is not None
        return self.result

    def check_end(self) -> None:
        """A side breaks when half its starting figures are lost or routing (the scenario's
        ``break_fraction``); the battle also ends at ``max_turns``."""
        broken = []
        for side in self.sides:
            gone = self.start_figures[side] - sum(
                u.unit.figures_left
                for u in self.units.values()
                if u.side == side and (u.offstage or (u.alive and not u.routing))
            )
            if gone >= self.break_fraction * self.start_figures[side]:
                broken.append(side)
        losses = {s: self.start_figures[s] - self._figures(s) for s in self.sides}
        if broken or self.turn >= self.max_turns:
            if len(broken) == 1:
                winner = self.enemy_of(broken[0])
                reason = f"{broken[0]} broke"
            else:
                winner = None
                reason = "both broke" if broken else "turn limit"
            self.result = {"winner": winner, "turns": self.turn, "reason": reason, "losses": losses}
            self.log("end", None, **self.result)

    # phase 1
    def phase_initiative(self) -> None:
        first, second = self.sides
        if any(u.seen is None for u in self.alive()):
            self.look()  # what each unit sees as the battle opens (MORALE reason 7)
        kinds = {s: self.initiative_commander(s) for s in self.sides}
        init = roll_initiative(self.dice, kinds[first], kinds[second], purpose=f"turn {self.turn}")
        winner = self.sides[init.winner]
        # the winner chooses to be side A: to declare charges first and move first
        self.side_a, self.side_b = winner, self.enemy_of(winner)
        self.log(
            "initiative",
            None,
            sides=list(self.sides),
            rolls=[list(r) for r in init.rolls],
            totals=list(init.totals),
            side_a=self.side_a,
            side_b=self.side_b,
            commanders={s: None if k is None else k.value for s, k in kinds.items()},
        )

    # phase 2
    def phase_weather(self) -> None:
        """ "Weather, Wind Strength and Wind Direction: at the start of every twelfth Game Turn,
        roll dice to determine any changes." The quick reference prints no table (read again: its
        only weather lines are the FIRING CHART's rain / snow modifiers), so this table is OURS,
        not the book's (docs/rules-interpretations.md, "Weather table: ours"): a d10 each;
        rain and wind strength go one step worse on 1-3 and ease on 8-10; the wind backs a point
        on 1-2 and veers on 9-10 (docs/rules-interpretations.md)."""
        if self.turn % 12 != 0:
            return
        face, strength, direction = self.dice.roll(
            3, f"turn {self.turn} weather, wind strength, wind direction", 10
        ).faces
        self.weather = WEATHER_STATES[
            _step(WEATHER_STATES.index(self.weather), face, len(WEATHER_STATES))
        ]
        self.wind_strength = WIND_STRENGTHS[
            _step(WIND_STRENGTHS.index(self.wind_strength), strength, len(WIND_STRENGTHS))
        ]
        # the wind backs (1-2) or veers (9-10) one point of eight
        turn = -1 if direction <= 2 else (1 if direction >= 9 else 0)
        i = (WIND_POINTS.index(self.wind_from) + turn) % len(WIND_POINTS)
        self.wind_from = WIND_POINTS[i]
        self.log(
            "weather",
            None,
            dice=[face, strength, direction],
            weather=self.weather,
            wind_strength=self.wind_strength,
            wind_from=self.wind_from,
        )

    # phase 3
    def phase_compulsory(self) -> None:
        # routers and units falling back move first, then pursuers and followers-up
        order = sorted(self.alive(), key=lambda v: v.mode is Mode.PURSUING)
        for u in order:
            if not u.alive:
                continue
            if u.mode is Mode.ROUTING:
                enemy = self.nearest_enemy(u, routing_ok=True)
                (face,) = self.dice.roll(1, f"{u.id} rout", 10).faces
                dist = self.allowance(u, bonus=True) + self.m(face)
                self._move_away(u, enemy, dist)
                u.moved = True
                self.log("rout_move", u.id, metres=round(self.moved_m.get(u.id, 0.0), 1), die=face)
            elif u.mode is Mode.FALL_BACK and u.unit.arm is Arm.ARTILLERY:
                self._battery_falls_back(u)
            elif u.mode is Mode.FALL_BACK:
                enemy = self.nearest_enemy(u, routing_ok=True)
                back = FALL_BACK_DISTANCE["cavalry" if u.unit.arm is Arm.CAVALRY else "infantry"].cm
                self._move_away(u, enemy, self.m(back), face_enemy=True)
                if u.fall_back_disordered:
                    u.unit = dc_replace(u.unit, disordered=True)
                u.mode, u.moved = Mode.OBEY, True
                self.log("fall_back", u.id, metres=round(self.moved_m.get(u.id, 0.0), 1))
            elif u.mode is Mode.PURSUING and u.target in self.units:
                target = self.units[u.target]
                if not target.alive:
                    u.mode, u.target = Mode.OBEY, None
                    continue
                moved = self.move_toward(
                    u, target.x, target.y, self.allowance(u, bonus=True), stop_short_of=target
                )
                u.moved = True
                contact = self.in_contact(u, target)
                self.log("pursue", u.id, target=target.id, metres=round(moved, 1), contact=contact)
                if contact and not target.routing:
                    u.mode = Mode.OBEY  # followed up into contact: the melee goes on

    def _battery_falls_back(self, u: UnitState) -> None:
        """MORALE TEST RESULT, Artillery: falling back in disorder, a d10 of 1-5 abandons the
        guns (the battery is lost), 6-10 manhandles them back; in good order the guns are
        manhandled back for one Game Turn, facing the enemy (a limbered battery moves back
        limbered)."""
        if u.fall_back_disordered:
            (face,) = self.dice.roll(1, f"{u.id} falls back in disorder", 10).faces
            if face <= ARTILLERY_FALL_BACK_ABANDON_MAX:
                self.log("abandon_guns", u.id, die=face)
                self.destroy(u, f"abandoned its guns (d10 {face})")
                return
        enemy = self.nearest_enemy(u, routing_ok=True)
        self._move_away(u, enemy, self.allowance(u), face_enemy=True)
        u.mode, u.moved = Mode.OBEY, True
        how = "limbered" if u.unit.limbered else "manhandled"
        self.log("fall_back", u.id, metres=round(self.moved_m.get(u.id, 0.0), 1), guns=how)

    def _move_away(
        self, u: UnitState, enemy: UnitState | None, dist: float, face_enemy: bool = False
    ) -> None:
        home = self.header.get("home_bearing", {}).get(u.side)
        if enemy is not None:
            dx, dy = u.x - enemy.x, u.y - enemy.y
        elif home is not None:
            dx, dy = math.sin(home), math.cos(home)
        else:
            dx, dy = -u.forward()[0], -u.forward()[1]
        norm = math.hypot(dx, dy) or 1.0
        self.move_toward(
            u, u.x + dx / norm * dist, u.y + dy / norm * dist, dist, backwards=face_enemy
        )

    # phases 4-7: declarations
    def _declare(self, side: str) -> None:
        for u in self.alive(side):
            if (
                u.moved
                or u.routing
                or u.mode in (Mode.NO_ADVANCE, Mode.HALF_SPEED, Mode.FALL_BACK, Mode.PURSUING)
            ):
                continue
            if u.unit.arm is Arm.ARTILLERY or u.order != "attack" or self.turn < u.from_turn:
                continue
            if self.held(u.id):
                continue  # not ready (engine.readiness): it declares no charge
            if any(
                self.in_contact(u, e) for e in self.nearby.near(u, CONTACT_M, self.enemy_of(side))
            ):
                continue
            reach = self.allowance(u, bonus=True)
            if side == self.side_b and self._counter_charge(u, reach):
                continue
            enemy = self.nearest_enemy(u)
            if enemy is None:
                continue
            if self.gap(u, enemy) > reach:
                continue
            soft = (
                enemy.unit.disordered
                or enemy.unit.order is Order.SKIRMISH
                or (enemy.unit.arm is Arm.ARTILLERY and enemy.unit.limbered)
            )
            result = self.morale(
                u, MoraleColumn.OTHER, "declare a charge", extra={"charge_soft_target": int(soft)}
            )
            if result is MoraleResult.ACT_AS_ORDERED:
                u.charging, u.target = True, enemy.id
                self.log("charge_declared", u.id, target=enemy.id)
            else:
                self.apply_other(u, result)

    def charge_path(self, c: UnitState) -> list[tuple[float, float]]:
        """The points (every STEP_M) a declared charger ``c`` will pass through in its charge:
        straight at its target, at most its charge rate, ending where it would meet it."""
        target = self.units.get(c.target) if c.target is not None else None
        if target is None:
            return [(c.x, c.y)]
        d = math.dist((c.x, c.y), (target.x, target.y))
        length = min(self.allowance(c, bonus=True), max(0.0, self.gap(c, target)))
        if d < 1e-6:
            return [(c.x, c.y)]
        ux, uy = (target.x - c.x) / d, (target.y - c.y) / d
        n = int(length // STEP_M)
        steps = [i * STEP_M for i in range(n + 1)] + ([length] if length > n * STEP_M else [])
        return [(c.x + ux * t, c.y + uy * t) for t in steps]

    def interception(self, u: UnitState, c: UnitState, reach: float) -> tuple[float, float] | None:
        """GAME TURN SEQUENCE phase 8: "Move Side A's charging units and simultaneously move ...
        Side B's units that are reacting": the first point of the charger ``c``'s charge path
        where the counter-charger ``u`` can meet it within ``reach`` (None: nowhere)."""
        home = (c.x, c.y)
        try:
            for x, y in self.charge_path(c):
                c.x, c.y = x, y
                if self.gap(u, c) <= reach:
                    return x, y
        finally:
            c.x, c.y = home
        return None

    def _counter_charge(self, u: UnitState, reach: float) -> bool:
        """Phase 5: side B may counter-charge an enemy unit charging another friendly unit
        (MORALE reason 1, "Wishing to Counter-Charge an enemy unit (that is charging another
        friendly unit)"): the automatic commander does so with an attacking unit that can meet
        such a charger anywhere on its charge path within its own charge reach (the two move
        simultaneously, phase 8). Returns whether it tested.

        MORALE TEST RESULT "Half speed advance", Troops wishing to Charge: "may not now declare
        a Charge ... but it may React-to-a-charge (including Counter-charging or Evading, at
        full speed)": a counter-charge goes in on Act as Ordered or Half speed advance
        (docs/rules-interpretations.md, "Counter-charges")."""
        chargers = [
            c
            for c in self.alive(self.enemy_of(u.side))
            if c.charging
            and c.target not in (None, u.id)
            and not c.counter_charge
            and self.interception(u, c, reach) is not None
        ]
        if not chargers:
            return False
        charger = min(chargers, key=lambda c: (self.gap(u, c), c.id))
        # "Wishing to charge enemy unit's Flank or Rear, or ... Disordered Troops" (+2)
        soft = self.sector(charger, u.x, u.y) != "front" or charger.unit.disordered
        result = self.morale(
            u,
            MoraleColumn.OTHER,
            f"counter-charge {charger.id}",
            extra={"charge_soft_target": int(soft)},
        )
        if result in COUNTER_CHARGE_GOES_IN:
            u.charging, u.target, u.counter_charge = True, charger.id, True
            self.log(
                "charge_declared",
                u.id,
                target=charger.id,
                counter_charge=True,
                charging_at=charger.target,
            )
        self.apply_other(u, result)
        return True

    def phase_declare_a(self) -> None:
        self._declare(self.side_a)

    def phase_declare_b(self) -> None:
        self._declare(self.side_b)

    def _react(self, side: str) -> None:
        # the enemy's charges by target, in unit order: a reaction changes the reacting unit
        # alone, never who charges whom (each still checked as it is asked)
        charging: dict[str, list[UnitState]] = {}
        for c in self.alive(self.enemy_of(side)):
            if c.charging and c.target is not None:
                charging.setdefault(c.target, []).append(c)
        for u in self.alive(side):
            chargers = [
                c for c in charging.get(u.id, ()) if c.alive and c.charging and c.target == u.id
            ]
            if not chargers or u.routing:
                continue
            # skirmishers evade (the automatic commanders' choice); the rest stand (and fire);
            # troops not yet ready (engine.readiness) only stand
            held = self.held(u.id)
            evade = u.unit.order is Order.SKIRMISH and not held
            column = MoraleColumn.EVADING_CHARGE if evade else MoraleColumn.RECEIVING_CHARGE
            result = self.morale(u, column, "evade a charge" if evade else "receive a charge")
            if evade and result in (
                MoraleResult.FALL_BACK_GOOD_ORDER,
                MoraleResult.FALL_BACK_DISORDER,
            ):
                # the evade succeeds: it moves off at its evade rate as the chargers come on
                u.reactions.add("evade")
            elif result is MoraleResult.RECEIVE_DISORDER:
                u.unit = dc_replace(u.unit, disordered=True)
            elif result is MoraleResult.ROUT_ON_CONTACT:
                u.reactions.add("rout_on_contact")
            elif result in (
                MoraleResult.FALL_BACK_GOOD_ORDER,
                MoraleResult.FALL_BACK_DISORDER,
                MoraleResult.ROUT,
            ):
                self.apply_other(u, result)
                self.log("reaction", u.id, result=result.value, chargers=[c.id for c in chargers])
                continue
            limbered = u.unit.arm is Arm.ARTILLERY and u.unit.limbered
            if u.unit.spec.missile is not None and not evade and not limbered and not held:
                u.reactions.add("fire_at_chargers")
            self.log("reaction", u.id, result=result.value, chargers=[c.id for c in chargers])

    def phase_react_b(self) -> None:
        self._react(self.side_b)

    def phase_react_a(self) -> None:
        self._react(self.side_a)

    # phases 8-9: charge movement with reaction fire
    def _charge_move(self, side: str) -> None:
        for u in list(self.alive(side)):
            if not u.charging or u.target not in self.units:
                continue
            target = self.units[u.target]
            u.charging = False
            if u.counter_charge:
                u.counter_charge = False
                continue  # it moved with the charge it met
            if not target.alive:
                continue
            if self._meet_counter_charges(u):
                continue
            if "evade" in target.reactions and not target.moved:
                # MOVEMENT CHART: evade at march rate plus bonus, away from the charger;
                # skirmishers fall back without becoming disordered
                self._move_away(target, u, self.allowance(target, bonus=True))
                target.moved = True
                self.log(
                    "evade",
                    target.id,
                    charger=u.id,
                    metres=round(self.moved_m.get(target.id, 0.0), 1),
                )
            if "fire_at_chargers" in target.reactions and not target.routing:
                target.reactions.discard("fire_at_chargers")
                kills = self.fire(target, u, reaction=True)
                if kills:
                    result = self.morale(
                        u, MoraleColumn.CASUALTIES_CHARGING, "casualties while charging"
                    )
                    if result is MoraleResult.NO_ADVANCE:
                        # halt disordered 5 cm in front of the enemy
                        gap = self.gap(u, target) - self.m(5)
                        if gap > 0:
                            self.move_toward(u, target.x, target.y, gap, stop_short_of=target)
                        u.unit = dc_replace(u.unit, disordered=True)
                        u.moved = True
                        continue
            moved = self.move_toward(
                u, target.x, target.y, self.allowance(u, bonus=True), stop_short_of=target
            )
            u.moved, u.charged_this_turn = True, True
            contact = self.in_contact(u, target)
            self.log("charge", u.id, target=target.id, metres=round(moved, 1), contact=contact)
            if contact and "rout_on_contact" in target.reactions:
                target.reactions.discard("rout_on_contact")
                self.set_rout(target, "routed on contact")

    def _meet_counter_charges(self, u: UnitState) -> bool:
        """GAME TURN SEQUENCE phases 8-9: "simultaneously move ... units that are reacting":
        the charger ``u`` comes on along its charge path to the first point where a unit
        counter-charging it can meet it, and that unit charges it there; if one meets it, ``u``'s
        charge ends there (in contact, charging; its target is the unit it met). Returns whether
        met; if none meets it, ``u`` is back where it started, to make its own charge."""
        met = None
        start = (u.x, u.y, u.facing)
        for c in sorted(self.alive(self.enemy_of(u.side)), key=lambda v: v.id):
            if not (c.charging and c.counter_charge and c.target == u.id) or c.routing:
                continue
            c.charging, c.counter_charge = False, False
            reach = self.allowance(c, bonus=True)
            point = self.interception(c, u, reach) if met is None else None
            if point is not None:
                self.move_toward(u, point[0], point[1], self.allowance(u, bonus=True))
            moved = self.move_toward(c, u.x, u.y, reach, stop_short_of=u)
            c.moved, c.charged_this_turn = True, True
            contact = self.in_contact(c, u)
            self.log(
                "counter_charge",
                c.id,
                target=u.id,
                metres=round(moved, 1),
                contact=contact,
                charger_metres=round(self.moved_m.get(u.id, 0.0), 1),
            )
            if contact and met is None:
                met = c
            elif met is None:
                # not met: the charger's partial move is undone, it makes its own charge
                self.moved_m.pop(u.id, None)
                self.allowance_m.pop(u.id, None)
                u.x, u.y, u.facing = start
        if met is None:
            return False
        u.moved, u.charged_this_turn = True, True
        self.log(
            "charge",
            u.id,
            target=u.target,
            metres=round(self.moved_m.get(u.id, 0.0), 1),
            contact=True,
            met_by=met.id,
        )
        return True

    def phase_charge_a(self) -> None:
        self._charge_move(self.side_a)

    def phase_charge_b(self) -> None:
        self._charge_move(self.side_b)

    # phase 10
    def phase_morale_seeing(self) -> None:
        fleeing = [
            u
            for u in self.alive()
            if u.routing and u.unit.arm is not Arm.ARTILLERY and u.unit.order is not Order.SKIRMISH
        ]
        if not fleeing:
            return
        for u in list(self.alive()):
            if u.routing or u.charged_this_turn or u.moved:
                continue
            near = self.within_150yd(u, iter(f for f in fleeing if f.side == u.side))
            if near:
                result = self.morale(u, MoraleColumn.OTHER, "seeing friends rout")
                self.apply_other(u, result)

    # phases 11-12: normal movement and firing
    def _normal(self, side: str) -> None:
        self.move_lone_figures(side)
        for u in list(self.alive(side)):
            if u.moved or u.routing or not u.alive:
                continue
            if self.held(u.id):
                continue  # not ready (engine.readiness): no move and no shot
            enemy = self.nearest_enemy(u)
            engaged = enemy is not None and self.in_contact(u, enemy)
            if engaged:
                continue
            if u.unit.arm is Arm.ARTILLERY:
                self._artillery(u, enemy)
                continue
            weapon = u.unit.spec.missile
            if weapon is not None and enemy is not None:
                target = self.missile_target(u)
                if target is not None and (
                    u.order != "attack"
                    or u.unit.spec.melee is None
                    or u.unit.arm is Arm.ARTILLERY
                    or self.gap(u, target) > self.allowance(u)
                ):
                    self.fire(u, target)
                    continue
            advancing = u.order == "attack" and self.turn >= u.from_turn and enemy is not None
            if u.unit.disordered and not (advancing and u.mode is Mode.OBEY):
                # a disordered unit that spends its movement halted re-forms (reading)
                u.unit = dc_replace(u.unit, disordered=False)
                self.log("reformed", u.id)
                continue
            if u.order == "march" and u.goal is not None and u.mode is not Mode.NO_ADVANCE:
                self._march(u)
                continue
            if u.order != "attack" or self.turn < u.from_turn or enemy is None:
                continue
            if u.mode is Mode.NO_ADVANCE or u.unit.arm is Arm.ARTILLERY:
                continue
            allowance = self.allowance(u)
            if u.mode is Mode.HALF_SPEED:
                allowance /= 2
            if u.goal is not None:
                if math.dist((u.x, u.y), u.goal) <= GOAL_M or self.gap(u, enemy) <= allowance:
                    u.goal = None  # there, or an enemy within its move: it goes at the enemy
                else:
                    moved = self.advance_to(u, u.goal[0], u.goal[1], allowance)
                    u.moved = moved > 0
                    if moved:
                        self.log("advance", u.id, toward="place", metres=round(moved, 1))
                    continue
            aimed = self.units.get(u.aim) if u.aim is not None else None
            if aimed is not None and aimed.alive and not aimed.routing:
                enemy = aimed  # the enemy the scenario sends it at
            # "any movement not resulting in the unit coming into base-to-base contact": stop
            # 1 cm (chart) short of the nearest enemy
            room = self.gap(u, enemy) - self.m(1)
            if room <= 0:
                continue
            d = math.dist((u.x, u.y), (enemy.x, enemy.y)) or 1.0
            tx = u.x + (enemy.x - u.x) / d * room
            ty = u.y + (enemy.y - u.y) / d * room
            moved = self.advance_to(u, tx, ty, allowance)
            u.moved = moved > 0
            if moved:
                self.log("advance", u.id, toward=enemy.id, metres=round(moved, 1))

    def _march(self, u: UnitState) -> None:
        """A unit sent to hold a place away from where it stood (a ``hold`` objective) moves
        on it at its rate (half when the last test said so), then holds there: no charge is
        declared on the way (it is not ordered to attack)."""
        assert u.goal is not None
        if math.dist((u.x, u.y), u.goal) <= GOAL_M:
            u.order, u.goal = "hold", None
            return
        allowance = self.allowance(u) / (2 if u.mode is Mode.HALF_SPEED else 1)
        moved = self.advance_to(u, u.goal[0], u.goal[1], allowance)
        u.moved = moved > 0
        if moved:
            self.log("advance", u.id, toward="place", metres=round(moved, 1))

    def _artillery(self, u: UnitState, enemy: UnitState | None) -> None:
        """Normal movement and firing of a battery (MOVEMENT CHART artillery rows): unlimbered
        guns fire at an enemy in range, or are manhandled forward when it is less than a
        manhandled move out of range; otherwise a battery ordered to attack limbers, marches
        limbered to long range and unlimbers there. Limbering or unlimbering takes the chart's
        "Limber or Unlimber" time: a whole Game Turn (heavy, medium), so no move or shot that
        turn; half a Game Turn (light, galloper), so the other half may be a half-rate move.
        Limbered guns cannot fire (docs/rules-interpretations.md)."""
        weapon = u.unit.spec.missile
        assert weapon is not None
        advancing = (
            u.order == "attack"
            and self.turn >= u.from_turn
            and enemy is not None
            and u.mode is not Mode.NO_ADVANCE
        )
        long_m = self.m(FIRING_RANGES[weapon][RangeBand.LONG].cm)
        target = self.missile_target(u)
        half = u.unit.limber_turns() < 1
        if not u.unit.limbered:
            if target is not None:
                self.fire(u, target)
                return
            if not advancing or enemy is None:
                return
            out_of_range = self.gap(u, enemy) - long_m
            if out_of_range <= self.allowance(u):
                # manhandle the guns forward, facing the enemy, to bring it into range
                moved = self._toward_range(u, enemy, long_m, self.allowance(u))
                u.moved = moved > 0
                self.log("manhandle", u.id, toward=enemy.id, metres=round(moved, 1))
                return
            if not self._limbered_can_advance(u, enemy):
                return  # no going for limbered guns ahead: the battery stays unlimbered
            self._limber(u, True)
            if half:
                moved = self._toward_range(u, enemy, long_m, self.allowance(u) / 2)
                if moved:
                    self.log("advance", u.id, toward=enemy.id, metres=round(moved, 1))
            return
        # limbered
        if target is None and advancing and enemy is not None:
            if not self._limbered_can_advance(u, enemy):
                self._limber(u, False)  # halted by ground it cannot cross: unlimber there
                return
            moved = self._toward_range(u, enemy, long_m, self.allowance(u))
            u.moved = moved > 0
            if moved:
                self.log("advance", u.id, toward=enemy.id, metres=round(moved, 1))
            within_half = moved <= self.allowance(u) / 2 + 1e-9
            if half and within_half and self.missile_target(u) is not None:
                self._limber(u, False)
            return
        if target is not None:
            self._limber(u, False)

    def _limbered_can_advance(self, u: UnitState, enemy: UnitState) -> bool:
        """Whether limbered guns can make a tenth of a limbered move toward ``enemy``: the
        TERRAIN CHART lets limbered artillery into marsh "only on track, road or through a
        gap" (and into no impassable ground)."""
        limbered = dc_replace(u.unit, limbered=True)
        reach = self.m(limbered.march_rate_cm()) / 10
        d = math.dist((u.x, u.y), (enemy.x, enemy.y)) or 1.0
        ux, uy = (enemy.x - u.x) / d, (enemy.y - u.y) / d
        z = self.elevation(u.x, u.y)
        n = max(1, math.ceil(reach / STEP_M))
        for i in range(1, n + 1):
            x, y = u.x + ux * reach * i / n, u.y + uy * reach * i / n
            if not self.bf.contains(x, y):
                return False
            terrain, _ = self.terrain_at(x, y)
            nz = self.elevation(x, y)
            slope = slope_class(float(self.bf.slope_at(x, y)))
            frac = march_fraction(
                TerrainColumn.LIMBERED_ARTILLERY, terrain, slope, uphill=nz > z, cavalry=False
            )
            if frac is None or frac <= 0:
                return False
            z = nz
        return True

    def _toward_range(self, u: UnitState, enemy: UnitState, long_m: float, allow: float) -> float:
        """Move ``u`` toward ``enemy`` until it is just within ``long_m`` (ground metres)."""
        room = self.gap(u, enemy) - long_m + 1.0
        if room <= 0:
            return 0.0
        d = math.dist((u.x, u.y), (enemy.x, enemy.y)) or 1.0
        tx = u.x + (enemy.x - u.x) / d * room
        ty = u.y + (enemy.y - u.y) / d * room
        return self.move_toward(u, tx, ty, allow)

    def _limber(self, u: UnitState, limber: bool) -> None:
        """MOVEMENT CHART "Limber or Unlimber": the battery spends the chart's time."""
        turns = u.unit.limber_turns()
        u.unit = dc_replace(u.unit, limbered=limber, limber_progress=Fraction(turns))
        u.moved = True
        self.log("limber" if limber else "unlimber", u.id, game_turns=str(turns))

    def phase_normal_a(self) -> None:
        self._normal(self.side_a)

    def phase_normal_b(self) -> None:
        self._normal(self.side_b)

    def missile_target(self, u: UnitState) -> UnitState | None:
        weapon = u.unit.spec.missile
        if weapon is None or not self.special.may_shoot(u.id, u.side):
            return None  # no missiles, or none left (special rule limited_missile_supply)
        best, best_d = None, math.inf
        # a band needs the range, rounded up, within the longest band: no enemy further than
        # that centimetre more (and a metre to spare) can be the target
        longest = max(limit.cm for limit in FIRING_RANGES[weapon].values())
        for e in self.nearby.near(u, self.m(longest + 1) + 1.0, self.enemy_of(u.side)):
            d = max(0.0, self.gap(u, e))
            band = range_band(weapon, self.scale.chart_cm(d))
            if band is None or d >= best_d:
                continue
            best, best_d = e, d
        return best

    def fire(self, u: UnitState, target: UnitState, reaction: bool = False) -> int:
        """FIRING CHART: ``u`` shoots at ``target``; returns figures killed."""
        weapon = u.unit.spec.missile
        assert weapon is not None
        if u.unit.arm is Arm.ARTILLERY and u.unit.limbered:
            return 0  # limbered guns cannot fire
        if not self.special.may_shoot(u.id, u.side):
            return 0  # out of missiles (special rule limited_missile_supply): no reaction fire
        d = max(0.0, self.gap(u, target))
        band = range_band(weapon, self.scale.chart_cm(d))
        if band is None:
            return 0
        _, cover = self.terrain_at(target.x, target.y)
        factors: dict[str, int] = {
            "under_fire": int(u.under_fire_turn >= self.turn - 1),
            "moving_target": int(target.moving_turn >= self.turn - 1),
            "soft_cover": int(cover is Cover.SOFT),
            "hard_cover": int(cover is Cover.HARD),
            "loose_order_foot": int(
                target.unit.order is Order.LOOSE and target.unit.arm is Arm.INFANTRY
            ),
            "skirmishers_or_deployed_artillery": int(
                target.unit.order is Order.SKIRMISH
                or (target.unit.arm is Arm.ARTILLERY and not target.unit.limbered)
            ),
            "limbered_artillery_or_wagons": int(
                target.unit.arm is Arm.ARTILLERY and target.unit.limbered
            ),
            "three_ranks_deep": int(self.ranks(target) >= 3),
            "column_or_schiltron": int(target.unit.formation is Formation.COLUMN),
            "light_rain": int(self.weather == "light_rain"),
            "heavy_rain": int(self.weather == "heavy_rain"),
            "first_shot": int(weapon.is_gunpowder and u.shots_fired == 0),
            "fourth_volley": int(u.volleys >= 3),
            "shields": int(target.unit.spec.shields),
            "barded_horses": int(target.unit.spec.barded),
        }
        need = firing_need(weapon, band, target.unit.armour, u.unit.spec.troop_class, factors)
        purpose = f"{u.id} fires at {target.id}"
        if u.unit.arm is Arm.ARTILLERY:
            roll = roll_artillery(self.dice, u.unit.figures_left, need, purpose)
            kills = roll.kills
            if roll.exploded:
                # an exploded gun model is lost (one figure per gun)
                self.log("gun_exploded", u.id, guns=roll.exploded)
                self.take_losses(u, roll.exploded)
            faces: list[int] = list(roll.faces)
        else:
            cas = roll_casualties(
                self.dice, u.unit.figures_left, need, part_dice=self.part_dice, purpose=purpose
            )
            kills, faces = cas.kills, list(cas.faces)
        u.shots_fired += 1
        dry = self.special.spend_volley(u.id, u.side, phase_name(self.phase))
        if dry is not None:
            self.special_events.append(dry)
        u.volleys = u.volleys + 1 if u.fired_turn >= self.turn - 1 else 1
        u.fired_turn = self.turn
        u.moved = True
        self.take_losses(target, kills, risk="firing")
        target.under_fire_turn = self.turn
        target.under_fire_by.add(u.id)
        target.shot_at_by.add(u.id)
        if not target.ever_under_fire:
            target.ever_under_fire = True
            target.pending.append((R_FIRST_FIRE, "first time under fire"))
        if kills:
            target.pending.append((R_CASUALTIES, "casualties from firing"))
        self.log(
            "fire",
            u.id,
            target=target.id,
            band=band.value,
            need=need,
            faces=faces,
            kills=kills,
            reaction=reaction,
        )
        return kills

    def take_losses(self, u: UnitState, kills: int, risk: str | None = None) -> None:
        """``u`` loses ``kills`` figures. With ``risk`` (firing or melee) each Commander or
        Inspirational Figure in its front rank is at risk: one d10, killed on a score of ``kills``
        or less (one of the figures lost; docs/rules-interpretations.md). A unit that loses all
        its figures loses its figures too."""
        if kills <= 0:
            return
        u.unit = u.unit.with_losses(kills)
        u.casualties_turn += kills
        for fig in self.figures_with(u):
            if u.unit.figures_left <= 0:
                self.figure_falls(fig, "all the unit's figures lost")
            elif risk is not None:
                (face,) = self.dice.roll(1, f"{fig.id} at risk in {u.id} ({risk})", 10).faces
                if face <= kills:
                    self.figure_falls(fig, f"{risk}: d10 {face} <= {kills} figures lost")
        if u.unit.figures_left <= 0:
            self.destroy(u, "all figures lost")

    # phase 13
    def phase_melee(self) -> None:
        pairs: list[tuple[UnitState, UnitState]] = []
        for a in self.alive(self.side_a):
            for b in self.nearby.near(a, CONTACT_M, self.side_b):
                if self.in_contact(a, b):
                    pairs.append((a, b))
        for a, b in pairs:
            if not (a.alive and b.alive):
                continue
            ra, rb = self.strike(a, b), self.strike(b, a)
            ka, kb = (0 if r is None else r.kills for r in (ra, rb))
            self.take_losses(b, ka, risk="melee")
            self.take_losses(a, kb, risk="melee")
            self.log("melee", None, a=a.id, b=b.id, kills_by_a=ka, kills_by_b=kb, **strikes(ra, rb))
            for loser, winner, lost in ((a, b, ka < kb), (b, a, kb < ka)):
                if ka == kb or lost:
                    loser.melee_lost = True
                    loser.pending.append((R_DRAWN_LOST, "drawn or lost melee"))
                if not lost and ka != kb:
                    winner.control_reasons.append(f"won melee against {loser.id}")
                    winner.target = loser.id

    def strike(self, u: UnitState, foe: UnitState) -> CasualtyRoll | None:
        """MELEE CHART: ``u`` strikes ``foe`` (None: it does not; routing units do not strike
        back, nor do guns)."""
        if u.routing or not u.alive:
            return None
        if u.unit.arm is Arm.ARTILLERY:
            return None
        row = u.unit.melee_row(charging=u.charged_this_turn)
        _, cover = self.terrain_at(foe.x, foe.y)
        cav = u.unit.arm is Arm.CAVALRY
        foe_formed_pike = (
            foe.unit.arm is Arm.INFANTRY
            and foe.unit.order is Order.CLOSE
            and not foe.unit.disordered
            and foe.unit.spec.melee in PIKE_SPEAR_HALBERD
        )
        pike_ranks = (
            min(3, self.ranks(foe) - 1)
            if (foe_formed_pike and foe.unit.spec.melee is MeleeWeapon.PIKE)
            else 0
        )
        halberd = int(
            foe_formed_pike and foe.unit.spec.melee is not MeleeWeapon.PIKE and self.ranks(foe) >= 2
        )
        factors = {
            "charging": int(u.charged_this_turn),
            "upslope": int(self.elevation(u.x, u.y) > self.elevation(foe.x, foe.y) + 1.0),
            "impetuous": int(
                u.unit.spec.impetuous and (u.charged_this_turn or u.mode is Mode.PURSUING)
            ),
            "vs_formed_pike_infantry": int(foe_formed_pike and not cav),
            "vs_formed_pike_cavalry": int(foe_formed_pike and cav),
            "pike_rank": pike_ranks,
            "halberd_rank": halberd,
            "soft_cover_infantry": int(cover is Cover.SOFT and not cav),
            "hard_cover_infantry": int(cover is Cover.HARD and not cav),
            "soft_cover_cavalry": int(cover is Cover.SOFT and cav),
            "hard_cover_cavalry": int(cover is Cover.HARD and cav),
            "shields": int(foe.unit.spec.shields),
            "free_hack": int(foe.routing),
            "commander_front_rank": int(bool(self.figures_with(u))),
            "mounted_infantry": int(u.unit.spec.mounted_infantry and cav),
        }
        armour: ArmourGrade = foe.unit.armour
        need = melee_need(row, u.unit.spec.troop_class, armour, factors)
        roll = roll_casualties(
            self.dice,
            u.unit.figures_left,
            need,
            automatic_kills=self.automatic_kills,
            part_dice=self.part_dice,
            purpose=f"{u.id} strikes {foe.id}",
        )
        return roll

    # phase 15
    def phase_morale(self) -> None:
        self.look()
        for u in list(self.alive()):
            if u.routing:
                result = self.morale(u, MoraleColumn.RALLY, "rally from a rout")
                if result is MoraleResult.NO_ADVANCE:
                    u.mode, u.mode_until = Mode.NO_ADVANCE, self.turn + 1
                    self.log("rallied", u.id)
                elif result is MoraleResult.FALL_BACK_DISORDER:
                    u.mode, u.fall_back_disordered = Mode.FALL_BACK, True
                    self.log("rallied", u.id, falling_back=True)
                u.pending.clear()
                continue
            if u.unit.figures_left * 2 <= u.unit.figures:
                u.pending.append((R_HALF, "at 50% strength or less"))
            lost, chief = self.contingent_lost(u)
            if lost and chief is not None and not chief.alive:
                # "The unit's contingent Commander figure is either killed or wounded (Test
                # every Game Turn)"
                u.pending.append((R_CONTINGENT_LOST, f"contingent commander {chief.id} killed"))
            if not u.pending:
                if u.mode in (Mode.NO_ADVANCE, Mode.HALF_SPEED) and self.turn >= u.mode_until:
                    u.mode = Mode.OBEY
                continue
            u.pending.sort()
            reason = u.pending[0][1]
            u.pending.clear()
            result = self.morale(u, MoraleColumn.OTHER, reason)
            self.apply_other(u, result)

    def apply_other(self, u: UnitState, result: MoraleResult) -> None:
        """MORALE TEST RESULT, "All other Reasons" (and declaring a charge)."""
        if result is MoraleResult.ROUT:
            self.set_rout(u, "morale test")
        elif result in (MoraleResult.FALL_BACK_GOOD_ORDER, MoraleResult.FALL_BACK_DISORDER):
            u.mode = Mode.FALL_BACK
            u.fall_back_disordered = result is MoraleResult.FALL_BACK_DISORDER
            u.charging = False
        elif result is MoraleResult.NO_ADVANCE:
            u.mode, u.mode_until, u.charging = Mode.NO_ADVANCE, self.turn + 1, False
        elif result is MoraleResult.HALF_SPEED:
            u.mode, u.mode_until = Mode.HALF_SPEED, self.turn + 1
        elif result is MoraleResult.ACT_AS_ORDERED and u.mode in (Mode.NO_ADVANCE, Mode.HALF_SPEED):
            u.mode = Mode.OBEY

    def set_rout(self, u: UnitState, why: str) -> None:
        if u.routing or not u.alive:
            return
        u.mode, u.charging, u.target = Mode.ROUTING, False, None
        u.routed_turn = self.turn
        u.unit = dc_replace(u.unit, disordered=True)
        self.log("rout", u.id, reason=why)
        if u.unit.arm is Arm.ARTILLERY:
            self.destroy(u, "routing battery abandons its guns")

    def morale(
        self, u: UnitState, column: MoraleColumn, reason: str, extra: dict[str, int] | None = None
    ) -> MoraleResult:
        """THE MORALE TEST CHART for ``u`` with the factors its situation gives."""
        friends = self.within_150yd(u, u.side)
        enemies = self.within_150yd(u, self.enemy_of(u.side))
        friends_on, enemies_on = _lines(friends), _lines(enemies)
        _, cover = self.terrain_at(u.x, u.y)
        shooters = [self.units[s] for s in u.under_fire_by if s in self.units]
        lost = u.unit.figures_lost
        factors = {
            # each unit within 150 yds is Halted / Advancing or Routing / Falling Back, never
            # both (docs/rules-interpretations.md, "Morale factors: one line a unit")
            "friend_halted_advancing": friends_on[0],
            "friend_routing": friends_on[1],
            "enemy_halted_advancing": enemies_on[0],
            "enemy_routing": enemies_on[1],
            # "No other friendly units are in sight": in sight, not merely alive
            "no_friends_in_sight": int(
                not any(self.sees(u, f) for f in self.alive(u.side) if f is not u)
            ),
            "impetuous": int(u.unit.spec.impetuous),
            "soft_cover": int(cover is Cover.SOFT),
            "hard_cover": int(cover is Cover.HARD),
            "charging": int(u.charging or u.charged_this_turn),
            # a rout or a fall back moves the unit, but not forward: no "Advancing" for it
            "advancing": int(
                u.moving_turn == self.turn and not u.charged_this_turn and not _going_back(u)
            ),
            "firing": int(u.fired_turn >= self.turn - 1),
            "under_fire_formed": int(
                u.under_fire_turn >= self.turn - 1
                and any(
                    s.unit.arm is not Arm.ARTILLERY and s.unit.order is not Order.SKIRMISH
                    for s in shooters
                )
            ),
            "under_fire_skirmishers": int(
                u.under_fire_turn >= self.turn - 1
                and any(s.unit.order is Order.SKIRMISH for s in shooters)
            ),
            "under_fire_artillery": int(
                u.under_fire_turn >= self.turn - 1
                and any(s.unit.arm is Arm.ARTILLERY for s in shooters)
            ),
            "falling_back_good_order": int(u.mode is Mode.FALL_BACK and not u.fall_back_disordered),
            "falling_back_disorder": int(u.mode is Mode.FALL_BACK and u.fall_back_disordered),
            "routing": int(u.routing),
            "disordered": int(u.unit.disordered and not u.routing),
            "artillery_wagons_skirmish_loose": int(
                u.unit.arm is Arm.ARTILLERY or u.unit.order is not Order.CLOSE
            ),
            "per_10pct_lost": strength_lost_steps(lost, u.unit.figures, 10),
            "downslope": self._downslope(u, enemies),
            "commander_seen": int(bool(self.commanders_near(u))),
            "contingent_commander_lost": int(self.contingent_lost(u)[0]),
            "inspirational": int(self.inspired(u)),
            "inspirational_lost": int(u.saw_inspirational_lost),
            "insecure_flank": len(self.insecure_flanks(u)),
        }
        factors.update(extra or {})
        modifier = morale_modifier(u.unit.spec.troop_class, factors, u.commander)
        shown = {k: v for k, v in factors.items() if v and k in _SHOWN_FACTORS}
        if u.commander is not None:
            shown["commander_with"] = 1
        test = morale_test(self.dice, column, modifier, purpose=f"{u.id} {reason}")
        self.log(
            "morale",
            u.id,
            reason=reason,
            column=column.value,
            face=test.face,
            modifier=modifier,
            total=test.total,
            result=test.result.value,
            factors=shown,
        )
        return test.result

    # phase 16
    def phase_control(self) -> None:
        """Phase 16, THE CONTROL TEST CHART: a melee winner whose foe breaks (reasons 1-2),
        a unit retaking a failed test (6), and the impetuous sights of reasons 3-5
        (:meth:`impetuous_cause`); a unit failing one of those charges impetuously at the
        enemy that caused it, in phase 3 of the next turn (docs/rules-interpretations.md,
        "Control tests: the impetuous sights")."""
        for u in list(self.alive()):
            reasons = [r for r in u.control_reasons if r.startswith("won melee")]
            u.control_reasons = [r for r in u.control_reasons if not r.startswith("won melee")]
            if u.mode is Mode.PURSUING:
                reasons.append("retake a failed control test")
            if u.routing:
                continue
            # Artillery, skirmishers (and hedgehogs) take no Control Test
            if u.unit.arm is Arm.ARTILLERY or u.unit.order is Order.SKIRMISH:
                continue
            cause: UnitState | None = None
            if reasons:
                target = self.units.get(u.target or "")
                if target is None or not target.alive:
                    u.mode = Mode.OBEY if u.mode is Mode.PURSUING else u.mode
                    continue
                if not (target.routing or target.mode is Mode.FALL_BACK):
                    continue  # the foe stands: the melee goes on, no follow-up to control
                cause = target
            else:
                sighted = self.impetuous_cause(u)
                if sighted is None:
                    continue
                reason, cause = sighted
                reasons = [reason]
            enemies = self.within_150yd(u, self.enemy_of(u.side))
            friends = self.within_150yd(u, u.side)
            friends_on, enemies_on = _lines(friends), _lines(enemies)
            near = self.commanders_near(u)
            _, cover = self.terrain_at(u.x, u.y)
            in_melee = reasons[0].startswith("won melee") or reasons[0].startswith("retake")
            moved_on = u.moving_turn == self.turn and not _going_back(u)
            factors = {
                "per_20pct_lost": strength_lost_steps(u.unit.figures_lost, u.unit.figures, 20),
                "irregular": int(u.unit.spec.irregular),
                "pushing_forward": int(in_melee),
                "disordered": int(u.unit.disordered),
                "hard_cover": int(cover is Cover.HARD),
                "soft_cover": int(cover is Cover.SOFT),
                "shot_by_cause": int(cause.id in u.shot_at_by),
                "shot_by_others": int(bool(u.shot_at_by - {cause.id})),
                "advancing": int(moved_on and not in_melee),
                "falling_back": int(_going_back(u)),
                "friend_halted_advancing": friends_on[0],
                "enemy_halted_advancing": enemies_on[0],
                "friend_routing": friends_on[1],
                "enemy_routing": enemies_on[1],
                "commander_with": int(u.commander is not None),
                "commander_near": int(u.commander is None and bool(near)),
                "inspirational": int(self.inspired(u)),
                "inspirational_lost": int(u.saw_inspirational_lost),
                "insecure_flank": len(self.insecure_flanks(u)),
                "downslope": self._downslope(u, enemies),
            }
            lost, chief = self.contingent_lost(u)
            # "If killed, the Commander Figure value is: Cautious -1, Bold -2, Rash -2,
            # Exceptional -3": the +2 line's value when the contingent commander is dead
            killed = 0
            if lost and chief is not None and not chief.alive and chief.kind is not None:
                killed = COMMANDER_KILLED_VALUE[chief.kind]
            else:
                factors["contingent_commander_lost"] = int(lost)
            present = u.commander or (near[0].kind if near else None)
            modifier = killed + control_modifier(
                u.unit.spec.troop_class, u.unit.arm is Arm.CAVALRY, factors, present
            )
            shown = {k: v for k, v in factors.items() if v and k in _SHOWN_FACTORS}
            if u.commander is not None:
                shown["commander_with"] = 1
            if killed:
                shown["contingent_commander_killed"] = killed
            test = control_test(self.dice, modifier, purpose=f"{u.id} control")
            self.log(
                "control",
                u.id,
                reason=reasons[0],
                face=test.face,
                modifier=modifier,
                total=test.total,
                passed=test.passed,
                factors=shown,
            )
            if test.passed:
                if u.mode is Mode.PURSUING:
                    u.mode = Mode.OBEY
            else:
                # "must Follow-Up ... Alternatively ... begin an Impetuous Charge / Pursuit
                # towards the enemy unit causing them to test"
                u.mode, u.target = Mode.PURSUING, cause.id

    def _downslope(self, u: UnitState, enemies: list[UnitState]) -> int:
        """THE MORALE / CONTROL TEST CHART "Unit is downslope of enemy within 150yds": an
        enemy within 150 yds stands more than a metre higher."""
        z = self.elevation(u.x, u.y)
        return int(any(self.elevation(e.x, e.y) > z + 1.0 for e in enemies))

    def impetuous_cause(self, u: UnitState) -> tuple[str, UnitState] | None:
        """THE CONTROL TEST reasons 3-5 for ``u`` this turn, and the enemy causing the test
        (the first in unit order), among enemies within its charge reach (march rate plus
        bonus) and not in contact with it: 3, close-combat cavalry shot at by that enemy this
        turn; 4, D or E class (or Irregular) troops seeing that enemy break into a rout this
        turn; 5, formed A class cavalry seeing that enemy close-combat cavalry. Reason 7
        (mercenaries near loot) and 8 (campaign hatreds) are not played: a scenario cannot yet
        say whose settlement or baggage is loot, or who hates whom."""
        if any(
            self.in_contact(u, e) for e in self.nearby.near(u, CONTACT_M, self.enemy_of(u.side))
        ):
            return None
        reach = self.allowance(u, bonus=True)
        enemies = [
            e
            for e in self.nearby.near(u, reach, self.enemy_of(u.side))
            if e.alive and self.gap(u, e) <= reach
        ]
        if not enemies:
            return None
        spec = u.unit.spec
        cavalry = u.unit.arm is Arm.CAVALRY and u.unit.order is not Order.SKIRMISH
        if cavalry:
            for e in enemies:
                if e.id in u.shot_at_by:
                    return "close-combat cavalry shot at within charge reach", e
        if spec.troop_class in (TroopClass.D, TroopClass.E) or spec.irregular:
            for e in enemies:
                if e.routed_turn == self.turn and self.sees(u, e):
                    return "saw an enemy break into rout within charge reach", e
        if (
            cavalry
            and spec.troop_class is TroopClass.A
            and u.unit.order is Order.CLOSE
            and not u.unit.disordered
        ):
            for e in enemies:
                close_cavalry = e.unit.arm is Arm.CAVALRY and e.unit.order is not Order.SKIRMISH
                if close_cavalry and not e.routing and self.sees(u, e):
                    return "A class cavalry saw enemy cavalry within charge reach", e
        return None


def deploy_unit(
    unit: Unit, side: str, xy: tuple[float, float], facing_deg: float, **kw: Any
) -> UnitState:
    """A :class:`UnitState` at a battlefield point, facing a bearing in degrees."""
    return UnitState(unit, side, float(xy[0]), float(xy[1]), math.radians(facing_deg), **kw)


def check_invariants(battle: MedievalBattle, before: dict[str, int]) -> dict[str, int]:
    """The per-phase invariants: figures only decrease; no unit moved beyond its allowance for
    the phase (the TERRAIN CHART fractions never exceed 1); routing units never charge.
    Returns the figures now, for the next phase's check."""
    now: dict[str, int] = {}
    for u in battle.units.values():
        now[u.id] = u.unit.figures_left
        if u.id in before and now[u.id] > before[u.id]:
            raise AssertionError(f"{u.id}: figures rose from {before[u.id]} to {now[u.id]}")
        moved = battle.moved_m.get(u.id, 0.0)
        allowed = battle.allowance_m.get(u.id, 0.0)
        # one move a turn at most: march rate plus bonus, plus a d10 cm when routing
        chart_max = battle.m(u.unit.march_rate_cm() + u.unit.bonus_cm() + 10)
        if moved > allowed + 1e-6 or allowed > chart_max + 1e-6:
            raise AssertionError(
                f"{u.id}: moved {moved:.1f} m of {allowed:.1f} m allowed (chart max "
                f"{chart_max:.1f} m)"
            )
        if u.routing and u.charging:
            raise AssertionError(f"{u.id}: a routing unit declared a charge")
    return now


def _going_back(u: UnitState) -> bool:
    """Routing or falling back: the charts' "Routing / Falling Back" line, not "Halted /
    Advancing"."""
    return u.routing or u.mode is Mode.FALL_BACK


def _lines(units: list[UnitState]) -> tuple[int, int]:
    """How many of ``units`` stand on the charts' "Halted / Advancing" line and how many on
    "Routing / Falling Back": each unit on exactly one."""
    back = sum(1 for v in units if _going_back(v))
    return len(units) - back, back
