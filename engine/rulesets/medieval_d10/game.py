"""A medieval-d10 battle: units of figures fought game turn by game turn on a built battlefield.

The game turn is the GAME TURN SEQUENCE CHART's own phase list (:data:`PHASES`, the book's
numbers 1-13, 15, 16, each played by its module's function of the game); every event of the
log names its phase. :class:`MedievalBattle` is the game itself: its units and figures, the
ground, the questions every phase asks (gaps, contact, sight, flanks), the log and the turn
loop. Distances are ground metres on the battlefield; the book's chart centimetres become
metres through the scenario's figure scale (:mod:`.scale`). Every die goes through the one
:class:`~engine.dice.Dice`.

The phases, by concept: :mod:`.initiative` (1), :mod:`.weather` (2), :mod:`.compulsory` (3),
:mod:`.charges` (4-9), :mod:`.morale` (10, 15 and THE MORALE TEST CHART), :mod:`.normal`
(11-12, with :mod:`.fire`), :mod:`.melee` (13), :mod:`.control` (16); moves over the ground are
:mod:`.moves`', Commander and Inspirational Figures :mod:`.commanders`', the units' state
:mod:`.state`'s. The units stand on the core's formations: a unit's place, figures and morale
are its formation's, written as the phases change them (:meth:`MedievalBattle.mode_changed`
for the morale), never copied back after a phase.

What the automatic commanders do (the book leaves it to players): a unit ordered to ``attack``
advances on the nearest enemy from its ``from_turn`` and declares a charge when the enemy is
within charge reach; a unit ordered to ``hold`` stays, shoots and fights where it stands; units
with missiles halt to shoot at an enemy within long range. Readings of the rules are in
docs/rules-interpretations.md ("medieval-d10").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from engine.dice import Dice
from engine.log import Event
from engine.rulesets.medieval_d10 import (
    charges,
    compulsory,
    control,
    initiative,
    melee,
    morale,
    normal,
    weather,
)
from engine.rulesets.medieval_d10.charts import (
    GAME_TURN_SEQUENCE,
    CommanderKind,
    Phase,
    TerrainColumn,
)
from engine.rulesets.medieval_d10.nearby import UnitTable
from engine.rulesets.medieval_d10.scale import GroundScale
from engine.rulesets.medieval_d10.state import CONTACT_M, FigureState, Mode, UnitState
from engine.rulesets.medieval_d10.terrain import (
    Cover,
    Terrain,
    TerrainTable,
    load_terrain_table,
)
from engine.rulesets.medieval_d10.units import Arm, Formation, Order
from engine.rulesets.medieval_d10.weather import WEATHER_STATES, WIND_POINTS, WIND_STRENGTHS
from engine.special_rules import SpecialRules
from engine.state import Morale

__all__ = [
    "PHASES",
    "MedievalBattle",
    "check_invariants",
    "phase_name",
]

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
#: the sectors of a unit's flanks and rear (degrees off its facing): beyond 45 deg is a flank,
#: beyond 135 deg the rear ("Each Insecure unit flank or rear"; docs/rules-interpretations.md)
FLANK_DEG, REAR_DEG = 45.0, 135.0


#: the core's Morale of a unit by its mode (any other mode: steady)
_MORALE = {
    Mode.DESTROYED: Morale.DESTROYED,
    Mode.ROUTING: Morale.ROUTING,
    Mode.FALL_BACK: Morale.RETREATING,
}


def _never(uid: str) -> bool:
    """No unit is held (a battle with no readiness states)."""
    return False


#: The GAME TURN SEQUENCE CHART: each book phase, in the book's order, and the function of the
#: game that plays it. The log names each phase by its number and the book's name.
PHASES: dict[Phase, Callable[[MedievalBattle], None]] = {
    Phase.INITIATIVE: initiative.phase_initiative,
    Phase.WEATHER: weather.phase_weather,
    Phase.COMPULSORY_MOVEMENT: compulsory.phase_compulsory,
    Phase.A_DECLARE_CHARGES: charges.phase_declare_a,
    Phase.B_DECLARE_CHARGES: charges.phase_declare_b,
    Phase.B_DECLARE_REACTIONS: charges.phase_react_b,
    Phase.A_DECLARE_REACTIONS: charges.phase_react_a,
    Phase.A_CHARGE_MOVEMENT: charges.phase_charge_a,
    Phase.B_CHARGE_MOVEMENT: charges.phase_charge_b,
    Phase.MORALE_SEEING_ROUT: morale.phase_morale_seeing,
    Phase.A_NORMAL_MOVEMENT: normal.phase_normal_a,
    Phase.B_NORMAL_MOVEMENT: normal.phase_normal_b,
    Phase.MELEE: melee.phase_melee,
    Phase.MORALE: morale.phase_morale,
    Phase.CONTROL: control.phase_control,
}
_PHASE_NAME = {row.phase: f"{int(row.phase)} {row.name}" for row in GAME_TURN_SEQUENCE}


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
        #: :func:`~.fire.fire`, fog in :meth:`sees`; their events, for the core's log
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
        self._size_cache: dict[
            tuple[Arm, int, Formation, Order, int | None], tuple[float, float]
        ] = {}
        #: units whose last normal move went around forbidden ground, or was stopped by it
        #: with no way around: the event is logged as that begins, not every turn it lasts
        self.around: dict[str, str] = {}
        #: where each side's army stands as the battle opens (the centre of its units): a
        #: settlement nearer the enemy's than one's own is the enemy's (CONTROL TEST reason 7)
        self.home: dict[str, tuple[float, float]] = {
            s: (
                float(np.mean([u.x for u in units if u.side == s])),
                float(np.mean([u.y for u in units if u.side == s])),
            )
            for s in self.sides
        }
        #: the units near a unit, by culling in arrays (kept current by the units' writes)
        self.nearby = UnitTable(
            list(self.units.values()), self.sides, lambda u: self.size(u)[1] / 2
        )
        #: the phases played so far (a unit's rally lasts to the end of the next one)
        self.serial = 0
        #: the core's morale of each unit whose mode changed this phase, as the phase began
        self._morale_before: dict[str, Morale] = {}
        #: units rallied from a rout (mode no longer routing): the serial of the phase
        self.rallied: dict[str, int] = {}
        #: told of every unit or lone figure placed (the core's clock of moves: the ruleset)
        self.on_place: Callable[[], None] | None = None
        for u in self.units.values():
            # (past the unit's __setattr__: not watched)
            u.__dict__["_on_mode"] = self.mode_changed
            u.__dict__["_on_place"] = self.placed

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

    def fallen(self) -> set[str]:
        """The Commander and Inspirational Figures killed so far (their ids)."""
        return {f.id for f in self.figures.values() if not f.alive}

    def enemy_of(self, side: str) -> str:
        return self.side_b if side == self.side_a else self.side_a

    def _figures(self, side: str) -> int:
        return sum(u.unit.figures_left for u in self.units.values() if u.side == side)

    def size(self, u: UnitState) -> tuple[float, float]:
        """Frontage and depth (ground metres) of a unit in its formation."""
        unit = u.unit
        key = (unit.arm, unit.figures_left, unit.formation, unit.order, u.line_ranks)
        hit = self._size_cache.get(key)
        if hit is not None:
            return hit
        w_cm, d_cm = FIGURE_CM[unit.arm]
        n = max(1, unit.figures_left)  # a gun model is one figure
        if unit.arm is Arm.ARTILLERY:
            files, ranks = n, 1
        elif unit.formation is Formation.COLUMN:
            files = min(COLUMN_FILES, n)
            ranks = math.ceil(n / files)
        else:
            # the scenario's depth where it deploys one (the book leaves it to the player:
            # "Pike troops may deploy up to 4 figure-ranks deep"), else the order's
            ranks = min(u.line_ranks or LINE_RANKS[unit.order], n)
            files = math.ceil(n / ranks)
        hit = self._size_cache[key] = (self.m(files * w_cm), self.m(ranks * d_cm))
        return hit

    def ranks(self, u: UnitState) -> int:
        _, d = self.size(u)
        return max(1, round(d / self.m(FIGURE_CM[u.unit.arm][1])))

    def files(self, u: UnitState) -> int:
        """Figures in the unit's front rank (its frontage in figure widths)."""
        w, _ = self.size(u)
        return max(1, round(w / self.m(FIGURE_CM[u.unit.arm][0])))

    def gap(self, a: UnitState, b: UnitState) -> float:
        """Ground between two units (centre distance less half their depths)."""
        return math.dist((a.x, a.y), (b.x, b.y)) - (self.size(a)[1] + self.size(b)[1]) / 2

    def gap_at(self, a: UnitState, b: UnitState, x: float, y: float) -> float:
        """:meth:`gap` with ``a`` standing at (x, y) (a point of a move being swept)."""
        return math.dist((x, y), (b.x, b.y)) - (self.size(a)[1] + self.size(b)[1]) / 2

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

    def sight_of_pairs(self, pairs: list[tuple[UnitState, UnitState]]) -> list[bool]:
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

    def sight_of_grid(
        self, ours: list[UnitState], theirs: list[UnitState], rows: np.ndarray, cols: np.ndarray
    ) -> np.ndarray:
        """:meth:`sight_of_pairs` of the pairs ``(ours[rows[k]], theirs[cols[k]])``, their ends
        taken from two coordinate arrays rather than a list of pairs (the first look of a
        large battle asks of every pair of enemy units)."""
        many = getattr(self.bf, "line_of_sight_many", None)
        if rows.size and many is not None and self.special.fog_m is None:
            src = np.asarray([(u.x, u.y) for u in ours], float)[rows]
            dst = np.asarray([(e.x, e.y) for e in theirs], float)[cols]
            try:
                return np.asarray(many(src, dst), dtype=bool)
            except (ValueError, KeyError, IndexError):
                pass  # some end off the battlefield: ask pair by pair
        pairs = [(ours[i], theirs[j]) for i, j in zip(rows.tolist(), cols.tolist(), strict=True)]
        return np.asarray(self.sight_of_pairs(pairs), dtype=bool)

    def sector(self, u: UnitState, x: float, y: float) -> str:
        """Where a point lies from ``u``: ``front``, ``left``, ``right`` or ``rear`` (beyond
        :data:`FLANK_DEG` off its facing a flank, beyond :data:`REAR_DEG` the rear)."""
        dx, dy = x - u.x, y - u.y
        sx, sy = u.forward()
        along = dx * sx + dy * sy
        across = dx * sy - dy * sx
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
        sx, sy = u.forward()
        if where == "rear":
            px, py = u.x - sx * (d / 2 + step), u.y - sy * (d / 2 + step)
        else:
            side = 1.0 if where == "right" else -1.0
            px = u.x + side * sy * (w / 2 + step)
            py = u.y - side * sx * (w / 2 + step)
        terrain, _ = self.terrain_at(px, py)
        return terrain in (Terrain.IMPASSABLE, Terrain.MARSH)

    def allowance(self, u: UnitState, *, bonus: bool = False) -> float:
        """Ground metres of the unit's march rate (plus the charge / rout / pursue bonus)."""
        cm = u.unit.march_rate_cm() + (u.unit.bonus_cm() if bonus else 0)
        return self.m(cm)

    def destroy(self, u: UnitState, why: str) -> None:
        if u.mode is not Mode.DESTROYED:
            u.mode = Mode.DESTROYED
            self.log("destroyed", u.id, reason=why, figures_left=u.unit.figures_left)

    def phases(self) -> Iterator[Phase]:
        """Play the battle phase by phase (yielding after each, for checks), to the end."""
        while self.result is None:
            self.begin_turn()
            for phase in PHASES:
                self.play(phase)
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
            u.beaten_by = None
            u.shot_at_by = set()
            u.reactions.clear()

    def play(self, phase: Phase) -> None:
        """Play one phase of the current turn (its function in :data:`PHASES`); a unit that
        rallied in an earlier phase is steady again as this one ends (:meth:`mode_changed`)."""
        self.phase = phase
        self.serial += 1
        self._morale_before.clear()
        PHASES[phase](self)
        for uid, serial in list(self.rallied.items()):
            if serial < self.serial:
                del self.rallied[uid]
                self.mode_changed(self.units[uid])

    def placed(self) -> None:
        """A unit or a lone figure was placed (its core formation's pose written)."""
        if self.on_place is not None:
            self.on_place()

    def mode_changed(self, u: UnitState) -> None:
        """The core's ``Morale`` of ``u`` (on its formation) as its mode now makes it, written
        at once: routing, falling back (retreating), destroyed or with no figures left, else
        steady. A unit rallied from a rout (routing as the phase began, steady now) is
        retreating to the end of the next phase, disordered on the way back; a destroyed one
        stays destroyed."""
        f = u.formation
        before = self._morale_before.setdefault(u.id, f.morale)
        target = _MORALE.get(u.mode, Morale.STEADY)
        if u.unit.figures_left <= 0:
            target = Morale.DESTROYED
        if before is Morale.ROUTING and target is Morale.STEADY:
            target = Morale.RETREATING
            self.rallied[u.id] = self.serial
        if before is Morale.DESTROYED:
            target = Morale.DESTROYED
        if f.morale is not target:  # (a write ticks the core's clock: only a change)
            f.morale = target

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
