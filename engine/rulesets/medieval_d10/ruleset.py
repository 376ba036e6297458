"""``medieval-d10`` on the ruleset seam: the registered class, its unit model in the core's
terms, and the game turn as its own phase list.

The core deploys a scenario's formations as bases (here one base is one figure, sized by
:attr:`MedievalD10.scales`); the game itself runs in :class:`~.game.MedievalBattle`, built on the
first phase over the deployed state, and after every phase the ruleset emits the phase's events,
each naming its phase (:func:`_emit`). Troop lists are this ruleset's own
(``data/troops/medieval/<army>.yaml``).

One state model: the game plays on the core's formations, and nothing is copied back. A game
unit (:class:`~.state.UnitState`) holds its core ``Formation`` and reads and writes there what
the core keeps: its centre and facing (the core's bearing in degrees, ``% 360``; a move sweeps
its 5 m steps locally and sets the pose once where it ends, :mod:`.moves`), its figures (its
living bases: a figure lost marks a base dead at once, rear ranks first, a fallen Commander or
Inspirational Figure's base first) and its morale (the core's ``Morale``, written as its
:class:`~.state.Mode` changes: :meth:`~.game.MedievalBattle.mode_changed`). What only this book
asks (the Mode, charge and reaction flags, fire counters, the turn's REASONS TO TAKE A MORALE
TEST, contingent, the unit's formation, order and disorder) is the unit's own, beside the
formation. A lone Inspirational Figure stands on its one-base core formation and, once it
joins a unit, goes with it; a figure's death is the core ``Character``'s. So the command layer
(plans, triggers, objectives), reinforcements, idle reports and the log's snapshots read the
game's units as they stand, and a reinforcement's arrival (the core placing its formation on
the table edge) is where the unit stands.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from engine.command import Enemies, Intent, IntentKind, IntentOrigin, PlanReader
from engine.context import BoundContext
from engine.idle import MOVED_M, IdleCause, IdleView
from engine.log import Replanned
from engine.movement import MoveRules
from engine.odds_options import OddsOption, OddsTable
from engine.reinforcements import Arrivals
from engine.rulesets import Phase, Ruleset, Scales, register
from engine.rulesets.medieval_d10.charts import COMMANDER_MORALE_VALUE, CommanderKind
from engine.rulesets.medieval_d10.charts import Phase as BookPhase
from engine.rulesets.medieval_d10.commanders import assign_contingents
from engine.rulesets.medieval_d10.events import EVENTS, MedievalEvent, from_record
from engine.rulesets.medieval_d10.game import PHASES, MedievalBattle, phase_name
from engine.rulesets.medieval_d10.odds_report import MEDIEVAL_ONLY
from engine.rulesets.medieval_d10.odds_report import ODDS_FLAGS as MEDIEVAL_FLAGS
from engine.rulesets.medieval_d10.scale import FIGURE_SCALES, FigureScale, ground_scale
from engine.rulesets.medieval_d10.state import (
    ARMY_CONTINGENT,
    FIGURE_M,
    Command,
    FigureState,
    Mode,
    UnitState,
)
from engine.rulesets.medieval_d10.terrain import (
    GENTLE_MIN_DEG,
    STEEP_MIN_DEG,
    CoverCode,
    TerrainCode,
    march_fraction,
)
from engine.rulesets.medieval_d10.unit_size import warn_small_units
from engine.rulesets.medieval_d10.units import Arm, MedievalProfile, TroopList, Unit, UnitSpec
from engine.scenario import FormationSpec, Plan
from engine.sight import SightRules
from engine.special_rules import SpecialRuleName
from engine.state import Formation, Morale, SideState
from engine.terrain import TerrainTable
from engine.yamlio import line_for, read_yaml, validate
from scenario_builder.errors import ScenarioFileError
from scenario_builder.paths import data_dir
from scenario_builder.suggest import did_you_mean

__all__ = ["MedievalArmy", "MedievalContext", "MedievalD10", "MedievalEvent", "MedievalProfile"]

#: the figure scale a battle is fought at (the charts are 25 mm distances; scale.py)
FIGURE_SCALE = FigureScale.MM25

_WEATHER = {"rain": "light_rain", "clear": "dry", "bright": "dry", "fog": "dry"}


#: the figure a commander stands as in his unit's front rank
_COMMANDER_SPEC = UnitSpec.model_validate(
    {
        "id": "commander",
        "name": "Commander figure",
        "arm": "infantry",
        "weight": "heavy",
        "class": "A",
        "melee": "sword",
    }
)


@dataclass(frozen=True)
class MedievalCharacter:
    """A Commander figure or an Inspirational Figure (Commander and Inspirational Figures):
    ``kind`` is None for an Inspirational Figure ("not simultaneously allowed to be a
    Commander figure"); ``contingent`` is the commander's contingent (None: the army's)."""

    id: str
    name: str
    kind: CommanderKind | None
    general: bool
    profile: str = "commander"
    contingent: str | None = None

    @property
    def inspirational(self) -> bool:
        return self.kind is None

    @property
    def leadership(self) -> int:
        return 0 if self.kind is None else COMMANDER_MORALE_VALUE[self.kind]


@dataclass(frozen=True)
class MedievalArmy:
    """A medieval troop list shaped as the core asks (profiles, characters, general)."""

    troops: TroopList
    profiles: list[MedievalProfile] = field(default_factory=list)
    characters: list[MedievalCharacter] = field(default_factory=list)
    #: the troop list's file and its fields' lines (for errors that name them)
    path: Path | None = None
    lines: dict[Any, int] = field(default_factory=dict)
    #: the scenarios' sides already warned of small units (checked at load and again as the
    #: game is built: one warning line a side)
    warned: set[tuple[str, str]] = field(default_factory=set, compare=False, repr=False)

    def check_side(self, scenario: Any, side: Any) -> None:
        """ "Commander and Inspirational Figures": an Inspirational Figure the troop list stands
        with a formation must find that formation in the scenario's side (unless the scenario
        places the figure itself); otherwise a one-line error naming the troop list's file,
        line and the nearest formation ids (never silently left off the field). A Commander
        figure the scenario places alone (at a position) is a one-line error naming the
        scenario's file and line."""
        fids = [f.id for f in side.formations]
        placed = {c.id for c in side.characters}
        for i, insp in enumerate(self.troops.inspirational):
            if insp.formation is None or insp.id in placed or insp.formation in fids:
                continue
            line = line_for(self.lines, ("inspirational", i, "formation")) if self.lines else None
            hint = did_you_mean(insp.formation, fids)
            where = f"line {line}: " if line else ""
            raise ScenarioFileError(
                self.path or self.troops.army,
                f"{where}inspirational.{i}.formation: {insp.id} stands with "
                f"{insp.formation!r}, not a formation of side {side.id} in scenario "
                f"{scenario.id}" + (f"; {hint}" if hint else ""),
            )
        # "Commander and Inspirational Figures": a Commander figure is played with a unit (its
        # front rank, the control test's "Commander with Unit", its contingent's "Battle"); the
        # book prints no move, sight or death for one alone, so one placed at a position is a
        # one-line error naming the scenario's line, never silently left off the field
        # (docs/rules-interpretations.md, "Inspirational Figures alone")
        si = scenario.sides.index(side)
        for ci, cp in enumerate(side.characters):
            ch = next((c for c in self.characters if c.id == cp.id), None)
            if cp.formation is not None or ch is None or ch.kind is None:
                continue
            loc = ("sides", si, "characters", ci, "position")
            line = scenario.line_of(loc)
            where = f"line {line}: " if line else ""
            some = ", ".join(fids[:4]) + (", ..." if len(fids) > 4 else "")
            raise ScenarioFileError(
                scenario.path or scenario.id,
                f"{where}{'.'.join(map(str, loc))}: {cp.id} is a Commander figure, which "
                f"medieval-d10 plays with a unit; give it formation: <a formation of side "
                f"{side.id}: {some}> instead of a position",
            )
        key = (str(scenario.path or scenario.id), side.id)
        if key not in self.warned:
            self.warned.add(key)
            warn_small_units(scenario, side, self)

    @classmethod
    def from_list(
        cls, troops: TroopList, path: Path | None = None, lines: dict[Any, int] | None = None
    ) -> MedievalArmy:
        profiles = [MedievalProfile(s) for s in troops.profiles]
        profiles.append(MedievalProfile(_COMMANDER_SPEC))
        chars = [
            MedievalCharacter(
                c.id, c.name or c.id, c.kind, c.contingent is None, contingent=c.contingent
            )
            for c in troops.commanders
        ]
        chars += [
            MedievalCharacter(i.id, i.name or i.id, None, False) for i in troops.inspirational
        ]
        return cls(troops, profiles, chars, path, dict(lines or {}))

    @property
    def army(self) -> str:
        return self.troops.army

    @property
    def locality(self) -> str:
        return ""

    @property
    def general(self) -> MedievalCharacter | None:
        return next((c for c in self.characters if c.general), None)

    def profile(self, pid: str) -> MedievalProfile:
        for p in self.profiles:
            if p.id == pid:
                return p
        raise KeyError(f"army {self.army}: no profile {pid!r}")

    def character(self, cid: str) -> MedievalCharacter:
        for c in self.characters:
            if c.id == cid:
                return c
        raise KeyError(f"army {self.army}: no character {cid!r}")


@dataclass(slots=True)
class MedievalContext(BoundContext):
    """The bound context with the medieval game running in it."""

    game: MedievalBattle | None = None
    emitted: int = 0
    #: each side's plan as read so far (engine.command), and the intent each unit last got
    readers: dict[str, PlanReader] = field(default_factory=dict)
    issued: dict[str, Intent] = field(default_factory=dict)
    #: units stopped with no way round forbidden ground (its ``blocked`` event's turn), until
    #: they move again
    stopped: dict[str, int] = field(default_factory=dict)


def _phase(book_phase: BookPhase) -> Phase:
    def run(ctx: MedievalContext) -> None:
        game = _game(ctx)
        game.play(book_phase)
        _emit(ctx, game)

    return Phase(phase_name(book_phase), run)


@dataclass(slots=True)
class _Orders:
    """A unit's orders as the scenario deploys it: its word, the turn it acts from, the place
    it goes for first and the enemy it is sent at."""

    word: Command = Command.HOLD
    start: int = 1
    goal: tuple[float, float] | None = None
    aim: str | None = None


def _orders(ctx: MedievalContext) -> dict[str, _Orders]:
    """Each formation's deployment order (``attack``/``advance``: attack; else hold) with its
    target place or enemy. The plan (triggers, formation plans, objectives) is the command
    layer's, read each turn (:func:`_command`)."""
    out: dict[str, _Orders] = {}
    sc = ctx.scenario
    if sc is None:
        return out
    to_xy = ctx.bf.to_xy
    for side in sc.sides:
        for fs in side.formations:
            # the scenario's 9.1 words in this game's terms: an advance is an attack here
            word = Command.ATTACK if fs.order in ("attack", "advance") else Command.HOLD
            goal = fs.target.resolve(to_xy) if fs.target is not None else None
            aim = fs.target_formation if word is Command.ATTACK else None
            out[fs.id] = _Orders(word, 1, goal if word is Command.ATTACK else None, aim)
    return out


def _command(ctx: MedievalContext, game: MedievalBattle) -> None:
    """Each side's plan as the turn begins, read by the core's command layer
    (:class:`engine.command.PlanReader`, the reading 2mm Earth's General shares): the triggers
    that fire, the formation plans (waypoints, steps) and the objectives, each intent turned
    into this game's orders (:func:`_apply`). The General's word needs no messenger here: the
    book has none (9.2's ages are 2mm Earth's)."""
    sc = ctx.scenario
    if sc is None:
        return
    state, bound, to_xy = ctx.state, ctx.state.bound, ctx.bf.to_xy
    _answer_idle(ctx, game)
    for side in sc.sides:
        reader = ctx.readers.get(side.id)
        if reader is None:
            plan = sc.plan_of(side.id) or Plan()
            reader = ctx.readers[side.id] = PlanReader(side.id, plan, to_xy)
        reader.begin(state, to_xy)
        mine = [f for f in state.active(side.id) if f.morale is Morale.STEADY]
        enemies = Enemies(state, side.id)

        def current(f: Formation) -> Intent:
            u = game.units.get(f.id)  # (none for an Inspirational Figure standing alone)
            if u is None:
                return Intent(IntentKind.HOLD, f.id, origin=IntentOrigin.BRIEFING)
            return ctx.issued.get(f.id) or _intent_of(u)

        reading = reader.read(state, bound, enemies, mine, current)
        for i in (*reading.triggered, *reading.planned.values()):
            _apply(ctx, game, i)
        for oi in reading.objectives.values():
            if oi is not None:
                _apply(ctx, game, oi)


def _answer_idle(ctx: MedievalContext, game: MedievalBattle) -> None:
    """The commander's answer to each new idle report (engine.idle, this book's reading in
    :meth:`MedievalD10.idle_view`), logged as ``replanned``: a unit sent for a place it has no
    way to (ground the chart forbids all round) gives the place up and goes at the nearest
    enemy by whatever way there is. Held by its test, or with nothing to do, it waits."""
    watch = ctx.idle
    if watch is None:
        return
    for uid, rep in watch.reports.items():
        u = game.units.get(uid)
        if u is None:
            continue
        if rep.cause is not IdleCause.TERRAIN or u.order != Command.ATTACK or u.goal is None:
            continue
        u.goal = None
        ctx.emit(
            Replanned(
                # read as the turn begins: logged with the turn's first phase, as its orders
                phase_name(next(iter(PHASES))),
                uid,
                str(rep.cause),
                "attack the nearest enemy",
                "its place cannot be reached: it goes at the nearest enemy",
            )
        )


def _apply(ctx: MedievalContext, game: MedievalBattle, i: Intent) -> None:
    """An intent as this game's orders, when it differs from the last one given: an attack or
    an advance is ``attack`` (from this turn, going for its place first, at its enemy), a march
    is ``march`` (to the place, no charge on the way, then hold), a hold is ``hold``."""
    u = game.units.get(i.formation)
    if u is None or not u.alive or ctx.issued.get(i.formation) == i:
        return
    ctx.issued[i.formation] = i
    if i.kind is IntentKind.HOLD:
        u.order, u.goal, u.aim = Command.HOLD, None, None
    elif i.kind is IntentKind.MARCH and i.point is not None:
        u.order, u.goal, u.aim = Command.MARCH, i.point, None
    elif i.kind in (IntentKind.ATTACK, IntentKind.ADVANCE, IntentKind.MARCH):
        u.order, u.from_turn = Command.ATTACK, min(u.from_turn, game.turn)
        u.goal, u.aim = i.point, i.target
    # a retreat is refused with the scenario (MedievalD10.unplayable): the book has no order


def _intent_of(u: UnitState) -> Intent:
    """The unit's deployment order as an intent (what it was told before any plan spoke)."""
    if u.order == Command.ATTACK:
        return Intent(IntentKind.ATTACK, u.id, u.goal, u.aim, IntentOrigin.BRIEFING)
    if u.order == Command.MARCH:
        return Intent(IntentKind.MARCH, u.id, u.goal, origin=IntentOrigin.BRIEFING)
    return Intent(IntentKind.HOLD, u.id, origin=IntentOrigin.BRIEFING)


def _game(ctx: MedievalContext) -> MedievalBattle:
    if ctx.game is not None:
        return ctx.game
    sc = ctx.scenario
    if sc is None:
        raise ValueError("medieval-d10 needs the scenario (troop lists) in the context")
    orders = _orders(ctx)
    # reinforcements not yet on the table (engine.reinforcements): their units wait off it
    arrivals = next((h for h in ctx.on_bound_start if isinstance(h, Arrivals)), None)
    waiting = {fid: w.formation for fid, w in arrivals.waiting.items()} if arrivals else {}
    units: list[UnitState] = []
    commanders: dict[str, CommanderKind] = {}
    with_unit: dict[str, CommanderKind] = {}
    figures: list[FigureState] = []
    for side in sc.sides:
        army: MedievalArmy = sc.army(side.id, ctx.ruleset)
        army.check_side(sc, side)
        general = side.general or (army.general.id if army.general else None)
        if general is not None:
            kind = army.character(general).kind
            if kind is not None:
                commanders[side.id] = kind
        # seniority: the army commander, then the troop list's order ("the most senior")
        order = [c.id for c in army.characters]
        placed = sorted(
            (cp for cp in side.characters if cp.formation is not None),
            key=lambda cp: (cp.id != general, order.index(cp.id)),
        )
        for rank, cp in enumerate(placed):
            ch = army.character(cp.id)
            assert cp.formation is not None
            if ch.kind is not None and cp.formation not in with_unit:
                with_unit[cp.formation] = ch.kind
            figures.append(
                FigureState(
                    ch.id,
                    side.id,
                    cp.formation,
                    ch.kind,
                    contingent=(ch.contingent or ARMY_CONTINGENT) if ch.kind else None,
                    seniority=rank,
                    general=ch.id == general,
                    character=ctx.state.characters.get(ch.id),
                )
            )
        # Inspirational Figures the scenario places alone on the field: they walk to join the
        # formation their troop list names (else the nearest friendly unit)
        fids_all = {fs.id for fs in side.formations}
        for cp in side.characters:
            ch = army.character(cp.id)
            if cp.formation is not None or ch.kind is not None:
                continue
            lone = ctx.state.formations[cp.id]  # the core's one-base formation for it
            insp = next(i for i in army.troops.inspirational if i.id == cp.id)
            join = insp.formation if insp.formation in fids_all else None
            figures.append(
                FigureState(
                    ch.id,
                    side.id,
                    None,
                    None,
                    join=join,
                    lone=lone,
                    character=ctx.state.characters.get(ch.id),
                )
            )
        # Inspirational Figures the troop list stands with a formation (unless placed above)
        named = {f.id for f in figures}
        fids = {fs.id for fs in side.formations}
        for insp in army.troops.inspirational:
            if insp.id not in named and insp.formation in fids:
                assert insp.formation is not None
                figures.append(FigureState(insp.id, side.id, insp.formation, None))
        for fs in side.formations:
            f = ctx.state.formations.get(fs.id) or waiting.get(fs.id)
            assert f is not None, fs.id
            spec = army.profile(fs.profile).spec
            spec = spec.model_copy(
                update={"id": fs.id, "name": fs.name or spec.name, "figures": f.start_bases}
            )
            o = orders.get(fs.id, _Orders())
            units.append(
                UnitState(
                    Unit.from_spec(spec),
                    side.id,
                    f,  # the core's formation: its pose, figures and morale are the unit's
                    order=o.word,
                    # the depth the scenario deploys its figures in, where it gives them
                    # (else its order's: a formation of bases is not laid out in figures)
                    line_ranks=_line_ranks(fs),
                    from_turn=o.start,
                    goal=o.goal,
                    aim=o.aim,
                    commander=with_unit.get(fs.id),
                    offstage=fs.id in waiting,
                )
            )
    for side in sc.sides:
        commanders.setdefault(side.id, CommanderKind.CAUTIOUS)
    home = {s.id: _home_bearing(ctx.state.sides[s.id], units) for s in sc.sides}
    assign_contingents(units, figures)
    ctx.game = MedievalBattle(
        ctx.bf,
        units,
        commanders,
        ctx.dice,
        ground_scale(FIGURE_SCALE),
        weather=_WEATHER.get(sc.weather, "dry"),
        max_turns=sc.max_bounds,
        header={"home_bearing": home},
        figures=figures,
    )
    state = ctx.state

    def moved() -> None:  # a unit placed: the core's clock of moves (caches keyed on places)
        state.version += 1

    ctx.game.on_place = moved
    if ctx.readiness is not None:  # engine.readiness: who may not move or shoot yet
        ctx.game.held = ctx.readiness.holds
    ctx.game.special = ctx.special  # the scenario's special rules (engine.special_rules)
    ctx.special.engaged = ctx.game.engaged  # its contacts are the game's, not the core's
    ctx.game.turn = ctx.state.bound - 1
    ctx.game.begin_turn()
    _command(ctx, ctx.game)
    return ctx.game


def _line_ranks(fs: FormationSpec) -> int | None:
    """Figure-ranks of a formation the scenario gives ``figures`` and ``figure_frontage``
    (docs/scenarios.md, "Figures"); None otherwise, or in Loose Formation (one rank)."""
    if fs.figures is None or fs.figure_frontage is None or fs.loose:
        return None
    return math.ceil(fs.figures / fs.figure_frontage)


def _home_bearing(side: SideState, units: list[UnitState]) -> float:
    """Bearing home: the side's edge, or toward its home point from its army's centre (9.1's
    retreat direction, shared with 2mm Earth through :meth:`SideState.home_bearing`)."""
    own = [u for u in units if u.side == side.id]
    cx = sum(u.x for u in own) / len(own) if own else 0.0
    cy = sum(u.y for u in own) / len(own) if own else 0.0
    return side.home_bearing(cx, cy)


def _emit(ctx: MedievalContext, game: MedievalBattle) -> None:
    """The phase's events into the core's log, each naming its phase (the state needs no
    writing back: the game plays on the core's formations)."""
    phase = ctx.state.phase
    for e in game.events[ctx.emitted :]:
        ctx.emit(from_record(phase, e))
    ctx.emitted = len(game.events)
    ctx.emit(game.special_events)  # special rules' events (engine.special_rules), typed already
    game.special_events = []


def _speed(f: Formation) -> Callable[[int], float | None]:
    """Chart march rate on the ground (flat, no slope) for the core's movement queries."""
    profile = f.profile
    spec = getattr(profile, "spec", _COMMANDER_SPEC)
    if spec.figures is None:
        spec = spec.model_copy(update={"figures": max(1, f.n_alive)})
    unit = Unit.from_spec(spec)
    rate = ground_scale(FIGURE_SCALE).ground_m(unit.march_rate_cm())

    def speed(move_class: int) -> float | None:
        frac = march_fraction(
            unit.terrain_column(), TerrainCode(move_class).terrain, cavalry=unit.arm is Arm.CAVALRY
        )
        return None if frac is None else rate * float(frac)

    return speed


@register
class MedievalD10(Ruleset):
    """The medieval d10 quick reference (``/work/shared/rules/002_ab38124a85c18dc4.txt``)."""

    name = "medieval-d10"
    aliases = ("medieval",)
    title = "Medieval d10 (quick reference)"
    family = "medieval-d10"
    version = "1"
    die_sides = 10
    phases = tuple(_phase(p) for p in PHASES)
    chart_sections: ClassVar[Mapping[str, tuple[str, str]]] = {
        "move": ("Terrain", "TERRAIN CHART"),
        "cover": ("Cover", "FIRING CHART"),
    }
    #: played in its firing (limited_missile_supply) and its own sight (fog), the game's
    #: ``special`` (docs/special-rules.md)
    special_rules = frozenset({SpecialRuleName.LIMITED_MISSILE_SUPPLY, SpecialRuleName.FOG})
    #: "one d10 for every five figures": a base is one figure (a scenario's ``figures``)
    counts_figures = True
    special_rules_refused: ClassVar[Any] = {
        # REASONS TO TAKE A MORALE TEST 3 and the MORALE TEST RESULT's "Receiving a Charge"
        # column (with D/E class troops' -1/-2): the book already tests every charged unit
        SpecialRuleName.SHOCK_OF_CHARGE: "already tests every unit receiving a charge "
        "(REASONS TO TAKE A MORALE TEST 3)",
        SpecialRuleName.SURRENDER: "its rout is the book's own (MORALE TEST RESULT); no seam "
        "for surrender there yet",
        # its artillery leave their guns by the book: a routing battery, or one falling back
        # in disorder on 1-5 of a d10 (MORALE TEST RESULT, Artillery)
        SpecialRuleName.CREWS_FLEE: "its batteries abandon their guns by the book (MORALE "
        "TEST RESULT, Artillery); its units are its own, not the core's",
        SpecialRuleName.EXHAUSTION: "its units and march rates are its own (MOVEMENT CHART); "
        "no seam for exhaustion there yet",
    }
    scales = Scales(
        ground_m_per_mm={s.value: FIGURE_SCALES[s].metres_per_table_cm / 10.0 for s in FigureScale},
        base_w_m=FIGURE_M,
        base_d_m=FIGURE_M,
        rules_m={
            "150yds": ground_scale(FIGURE_SCALE).ground_m(30.0),
            "gentle_slope_deg": GENTLE_MIN_DEG,
            "steep_slope_deg": STEEP_MIN_DEG,
        },
    )
    terrain = TerrainTable(
        data_dir() / "codes" / "medieval-d10.csv", {"move": TerrainCode, "cover": CoverCode}
    )
    #: ``route`` (2mm Earth 9.1's triple cost) read through the TERRAIN CHART: marsh is "only on
    #: track, road or through a gap" for every mounted column and impassable ground is entered
    #: by no one, as 9.1's Impractical; woods and built-up areas block sight (the table's
    #: ``blocks_sight``); the book has no overhead cover (docs/rules-interpretations.md)
    route_triple: ClassVar[Mapping[str, frozenset[str]]] = {
        "move": frozenset({"marsh", "impassable"})
    }
    #: TERRAIN CHART "Gentle hill slopes" / "Steep hill slopes" from the DEM (terrain.py)
    slope_bands = ((GENTLE_MIN_DEG, "gentle_slope"), (STEEP_MIN_DEG, "steep_slope"))
    morale_states: ClassVar[Mapping[Morale, str]] = {
        Morale.STEADY: "act as ordered (or half speed / no advance)",
        Morale.RETREATING: "falling back (or rallied)",
        Morale.ROUTING: "routing",
        Morale.DESTROYED: "destroyed or left the field",
    }
    order_kinds = ("attack", "hold", "advance")
    events = EVENTS
    #: check_hooks: a formation record counting one figure more is seen in the log
    hook_checks: ClassVar[Mapping[str, Callable[[Any], Any]]] = {
        "formation_record": lambda v: {**v, "figures": v["figures"] + 1},
    }

    #: its own ``odds`` questions and options (:mod:`engine.rulesets.medieval_d10.odds_report`)
    odds_questions: ClassVar[tuple[str, ...]] = ("attack", "morale", "control", "initiative")
    odds_options: ClassVar[Mapping[str, Any]] = MEDIEVAL_ONLY
    odds_flags: ClassVar[tuple[OddsOption, ...]] = MEDIEVAL_FLAGS

    def __init__(self) -> None:
        self.move_rules = MoveRules(speed_m=_speed, min_move_m=0.0, max_turn_deg=180.0)
        self.sight_rules = SightRules(
            sees_over=lambda o, b: False, sight_limit_m=lambda w, t, loc: None
        )

    def load_army(self, name_or_path: str | Path) -> MedievalArmy:
        """A medieval troop list: a path, or a name under ``data/troops/medieval/``."""
        p = Path(name_or_path)
        if p.suffix not in (".yaml", ".yml"):
            p = data_dir() / "troops" / "medieval" / f"{name_or_path}.yaml"
        data, lines = read_yaml(p)
        return MedievalArmy.from_list(validate(TroopList, data, p, lines), p, lines)

    def troop_list_schema(self) -> dict[str, Any]:
        return TroopList.model_json_schema()

    def odds_report(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        from engine.rulesets.medieval_d10.odds_report import medieval_odds

        return medieval_odds(opts)

    def odds_table(self, report: Mapping[str, Any]) -> OddsTable:
        from engine.rulesets.medieval_d10.odds_report import odds_table

        return odds_table(dict(report))

    def new_context(self, **parts: Any) -> MedievalContext:
        return MedievalContext(**parts)

    def unplayable(self, scenario: Any) -> list[tuple[tuple[str | int, ...], str]]:
        """The scenario mechanisms this book has no procedure for (docs/rules-interpretations.md,
        "Scenario mechanisms by ruleset"): refused with the field, never silently ignored."""
        # pursuit_bounds: the battle ends at the break (the charts' own PURSUING mode is the
        # pursuit), refused by the default for a book with no pursuit after the break
        out = super().unplayable(scenario)
        if scenario.weather_changes:
            out.append(
                (("weather_changes", 0), "rolls its own weather and wind each turn (phase 2)")
            )
        for si, side in enumerate(scenario.sides):
            # readiness is played (engine.readiness: no charge, move or shot until roused), but
            # no messenger carries an order to rouse troops here
            if side.readiness is not None and side.readiness.until.order:
                loc: tuple[str | int, ...] = ("sides", si, "readiness", "until", "order")
                out.append((loc, "sends no messengers: no order rouses troops"))
            if side.age is not None:
                out.append((("sides", si, "age"), "sends no messengers (9.2's ages)"))
            for fi, fs in enumerate(side.formations):
                if fs.readiness is not None and fs.readiness.until.order:
                    loc = ("sides", si, "formations", fi, "readiness", "until", "order")
                    out.append((loc, "sends no messengers: no order rouses troops"))
            plan = scenario.plan_of(side.id)
            if plan is None:
                continue
            at: tuple[str | int, ...] = ("sides", si, "plan")
            for pi, fp in enumerate(plan.formations):
                # waypoints and steps are played (engine.command); these have no procedure here
                fat: tuple[str | int, ...] = (*at, "formations", pi)
                if fp.hold_fire is not None:
                    why = "fires by its own rule each turn (FIRING): no hold fire"
                    out.append(((*fat, "hold_fire"), f"{fp.formation}: {why}"))
                if fp.feint is not None:
                    out.append(((*fat, "feint"), f"{fp.formation}: has no retreat order"))
            # the plan's order words: checked against order_kinds by Ruleset.unplayable
        return out

    def idle_view(self, ctx: BoundContext) -> IdleView | None:
        """The idle watcher's reading of the game's own units: a unit means to act when it is
        ordered to attack from this turn on with an enemy on the field, or to march to a place;
        it acted when it moved more than a metre, shot, fought, limbered, re-formed or stands in
        contact with an enemy this turn; one held by its last test ("no advance") is shaken,
        and one that found no way round ground the chart forbids is stopped by terrain."""
        if not isinstance(ctx, MedievalContext) or ctx.game is None:
            return None
        game = ctx.game
        turn = game.turn
        acted = {uid for uid, m in game.moved_m.items() if m > MOVED_M}
        for e in reversed(game.events):
            if e.get("turn") != turn:
                break
            kind = e["type"]
            if kind == "melee":
                acted.update((e["a"], e["b"]))
            elif kind in ("fire", "limber", "unlimber", "reformed", "manhandle"):
                acted.add(e["unit"])
            elif kind == "blocked":  # logged once, as the stop begins: kept until it moves
                ctx.stopped[e["unit"]] = turn
        for uid in acted:
            if ctx.stopped.get(uid, turn) < turn:
                del ctx.stopped[uid]
        blocked = set(ctx.stopped)
        intents: dict[str, str] = {}
        causes: dict[str, tuple[IdleCause, str]] = {}
        for u in game.alive():
            if u.routing or u.mode not in (Mode.OBEY, Mode.HALF_SPEED, Mode.NO_ADVANCE):
                continue  # falling back, routing, pursuing: its test moves it, not its order
            enemy = game.nearest_enemy(u)
            if enemy is None:
                continue
            if game.in_contact(u, enemy):
                acted.add(u.id)
                continue
            if u.order == Command.ATTACK and turn >= u.from_turn:
                intents[u.id] = "attack"
            elif u.order == Command.MARCH and u.goal is not None:
                intents[u.id] = "march"
            else:
                continue
            if u.mode is Mode.NO_ADVANCE:
                causes[u.id] = (IdleCause.SHAKEN, "held by its last test (no advance)")
            elif u.id in blocked:
                causes[u.id] = (IdleCause.TERRAIN, "no way round the ground the chart forbids")
        return IdleView(intents, frozenset(acted), causes)

    def formation_record(self, ctx: BoundContext, formation: Formation) -> dict[str, Any]:
        """A unit's figures left and lost, whether it is disordered and what its last test
        made it do (Mode: MORALE TEST RESULT's "half speed advance", "no advance" ...), for
        the playback; before the game starts (the deployment), its bases are its figures."""
        game = ctx.game if isinstance(ctx, MedievalContext) else None
        u = game.units.get(formation.id) if game is not None else None
        if u is None:
            lost = len(formation.bases) - formation.n_alive
            return {"figures": formation.n_alive, "figures_lost": lost, "disordered": False}
        return {
            "figures": u.unit.figures_left,
            "figures_lost": u.unit.figures_lost,
            "disordered": u.unit.disordered,
            "mode": u.mode.value,
        }

    def start_bound(self, ctx: BoundContext) -> None:
        assert isinstance(ctx, MedievalContext)
        if ctx.game is not None:
            for u in ctx.game.units.values():  # arrived as this bound began (before this)
                if u.offstage and u.id in ctx.state.formations:
                    # the core placed its formation on the table edge: the unit stands there
                    u.offstage = False
            ctx.game.begin_turn()
            _command(ctx, ctx.game)
