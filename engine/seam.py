"""The ruleset seam: the types every ruleset and the core share, apart from the registry of
shipped rulebooks (:mod:`engine.rulesets`, which imports every ruleset folder).

A ruleset is a :class:`Ruleset` subclass: its :class:`Phase` table, its :class:`Scales`, its
terrain table, unit model, orders and hooks (each documented on the class). :func:`register`
adds one to the registry by name; :func:`check_playable` refuses a scenario with a mechanism
the ruleset has no procedure for. The core's modules import these from here, so they need no
ruleset folder loaded; ``engine.rulesets`` re-exports them with the registry's lookups
(:func:`~engine.rulesets.get_ruleset`), and finds plug-ins.

>>> import engine.seam as seam
>>> seam.Phase("end", print).name
'end'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import numpy as np

from engine.movement import MoveRules
from engine.odds_options import OddsOption, OddsTable
from engine.orders import ORDER_WORDS
from engine.sight import SightRules
from engine.special_rules import SpecialRuleName, unplayable_rules
from engine.state import Morale
from engine.terrain import Ground, TerrainTable, ruleset_ground
from scenario_builder.errors import RulesetError

if TYPE_CHECKING:
    from engine.context import BoundContext
    from engine.dice import Dice
    from engine.idle import IdleView
    from engine.log import Event
    from engine.orders import Commander, Delivery, ScriptedOrders
    from engine.scenario import Scenario
    from engine.state import BattleState, Formation, UnitProfile

__all__ = [
    "Phase",
    "Ruleset",
    "Scales",
    "check_playable",
    "register",
    "unregister",
]

#: the bound context a phase runs on (contravariant: a phase for any context runs on a subclass)
C = TypeVar("C", bound="BoundContext", contravariant=True)


@dataclass(frozen=True, slots=True)
class Phase(Generic[C]):
    """One step of a ruleset's turn or bound: a name (logged on every event of the phase) and
    the function that plays it on the bound's context, of the type the ruleset's
    ``new_context`` makes (``Phase[TwoMmContext]``; ``Phase[Any]`` where a table mixes them)."""

    name: str
    run: Callable[[C], None]


@dataclass(frozen=True)
class Scales:
    """A ruleset's distances and scales.

    ``ground_m_per_mm``: metres of ground per millimetre of table, per figure scale the book
    offers (2mm Earth: 1 mm = 1 m at 2 mm). ``base_w_m``/``base_d_m``: one base's (or figure
    block's) frontage and depth on the ground. ``loose_gap_m``: gap between bases of a loose
    formation. ``rules_m``: the book's other named distances (triggers, hearing, minimum move),
    for ``scenario-builder rulesets`` and the ruleset's own code.
    """

    ground_m_per_mm: Mapping[str, float]
    base_w_m: float
    base_d_m: float
    loose_gap_m: float = 0.0
    rules_m: Mapping[str, float] = field(default_factory=dict)


class Ruleset:
    """Base of every ruleset: what the engine asks of a rulebook.

    A subclass sets the class attributes below and implements the hooks; :func:`register`
    makes it findable by name. The battle loop (:mod:`engine.battle`) calls
    :meth:`new_context` once, then each bound :meth:`start_bound` and every :attr:`phases` entry
    in order. See docs/architecture.md, "The ruleset seam".
    """

    #: registry name (``family-vVERSION``) and aliases
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = ""
    family: ClassVar[str] = ""
    version: ClassVar[str] = ""
    #: the die every roll of the book uses (d6, d10, ...)
    die_sides: ClassVar[int] = 6
    #: the turn or bound sequence, run in order by the battle loop
    phases: ClassVar[tuple[Phase[Any], ...]] = ()
    scales: ClassVar[Scales]
    #: the terrain classes (per role) and the CSV table mapping features to them
    terrain: ClassVar[TerrainTable]
    #: 2mm Earth 9.1 read through this ruleset's classes: besides terrain that blocks sight
    #: (the table's ``blocks_sight``), the classes (role -> names) a messenger's string counts
    #: triple through, as 9.1's "Impractical" and "Overhead" do. Read by the messenger routing
    #: graph (2mm Earth's delivery, ``scenario-builder route --ruleset``); docs/
    #: rules-interpretations.md, "9.1 under other rulesets", gives each ruleset's reading.
    route_triple: ClassVar[Mapping[str, frozenset[str]]] = {}
    #: slope classes read from the DEM (not the code table): (lowest degrees, class name) in
    #: rising order, e.g. medieval-d10's gentle and steep slopes; empty: the ruleset has none.
    #: The maps draw them (``Ground.meta["slope_bands"]``) beside the table's classes.
    slope_bands: ClassVar[tuple[tuple[float, str], ...]] = ()
    #: the book's charts for each terrain role (role -> (word, section)), as the maps' legends
    #: head them: "Movement (7.3)" in v0.9, "Movement (8.3)" in v0.7, "Terrain (TERRAIN
    #: CHART)" in medieval-d10 (``Ground.meta["chart_sections"]``); empty: the role's name
    chart_sections: ClassVar[Mapping[str, tuple[str, str]]] = {}
    #: the book's name for each morale state the engine tracks (states it does not use: absent)
    morale_states: ClassVar[Mapping[Morale, str]] = {}
    #: the order words a formation can be given; the first is what a formation starts with
    order_kinds: ClassVar[tuple[str, ...]] = ()
    #: one base is one figure at the book's own scale (medieval-d10): a formation's ``figures``
    #: and ``figure_frontage``, when given, deploy in place of its ``bases`` and ``frontage``
    #: (``FormationSpec.deployed``; docs/scenarios.md, "Figures")
    counts_figures: ClassVar[bool] = False
    #: the book's own event classes, beside the core's (engine.log.EVENT_TYPES); the maps
    #: read a log's events back through :meth:`event_types` (a tuple, not a hook: it changes
    #: no battle, only how its log is read)
    events: ClassVar[tuple[type[Event], ...]] = ()
    #: built by the subclass's ``__init__`` (so overrides of its hooks are what the core calls)
    move_rules: MoveRules
    sight_rules: SightRules
    #: how long a bound lasts in minutes, as read from the book (None: the book gives no basis;
    #: a scenario with a ``start_time`` then cannot follow the sun, engine.light)
    bound_minutes: ClassVar[float | None] = None
    #: modules of the ruleset's own folder its hooks import on first use (kept lazy so the CLI
    #: starts quickly); a process about to fight many battles imports them up front through
    #: :mod:`engine.rulesets.preload`
    lazy_modules: ClassVar[tuple[str, ...]] = ()
    #: how the book names the core's ``panic_test`` event's test, with its section, for the
    #: playback's words ("panic test 10.5"; v0.7: "rout test 5.2")
    morale_test_name: ClassVar[str] = "morale test"
    #: the questions ``scenario-builder odds`` may ask this book, by the name of the option
    #: that asks it (``attack``, ``panic``, ``wc_mv`` ...): :meth:`odds_report` answers them
    odds_questions: ClassVar[tuple[str, ...]] = ()
    #: ``odds`` options only this book reads (name -> value when not given). A book with its
    #: own options answers every ``odds --ruleset NAME`` question itself; under any other
    #: ruleset they are refused.
    odds_options: ClassVar[Mapping[str, Any]] = {}
    #: the ``odds`` options :attr:`odds_questions` read, with their help and bounds: the
    #: command builds its options from every registered book's, so a plug-in brings its own
    odds_flags: ClassVar[tuple[OddsOption, ...]] = ()
    #: the scenario special rules (engine.special_rules) this ruleset plays at its own seams;
    #: a scenario naming another is refused at load (``check_playable``, docs/special-rules.md)
    special_rules: ClassVar[frozenset[SpecialRuleName]] = frozenset()
    #: why a rule it does not play is refused, where the book has a reason (the load error says
    #: it); a rule not listed is refused with the rules it does play
    special_rules_refused: ClassVar[Mapping[SpecialRuleName, str]] = {}

    def __repr__(self) -> str:
        return f"<Ruleset {self.name}>"

    # -- ground ------------------------------------------------------------------------------
    def classify_slope(
        self, layers: dict[str, np.ndarray], slope: np.ndarray
    ) -> dict[str, np.ndarray]:
        """Reclassify the table's layers by slope (degrees); the default keeps them."""
        return layers

    def ground(self, battlefield: Ground) -> Ground:
        """The battlefield as this ruleset reads it (its classes in ``move``/``cover``/
        ``blocks_sight``), built once per battlefield."""
        info = {
            "ruleset": self.name,
            "slope_bands": [[deg, n] for deg, n in self.slope_bands],
            "chart_sections": {role: list(h) for role, h in self.chart_sections.items()},
        }
        return ruleset_ground(battlefield, type(self), self.terrain, self.classify_slope, info)

    def terrain_classes(self) -> dict[str, list[str]]:
        return self.terrain.class_names()

    # -- units, deployment, orders -----------------------------------------------------------
    def load_army(self, name_or_path: str | Path) -> Any:
        """The troop list (unit model and schema) a scenario side names."""
        raise NotImplementedError(f"{self.name}: no troop lists")

    def troop_list_schema(self) -> dict[str, Any]:
        """The JSON Schema of this ruleset's troop list files (``scenario-builder schema
        --kind troops``)."""
        raise RulesetError(None, f"{self.name} has no troop list files")

    def unit_speed_m(self, profile: UnitProfile, move_class: int) -> float | None:
        """How far a base of ``profile`` moves in one phase in ``move_class`` (None: cannot)."""
        raise NotImplementedError

    def sees_over(self, observer: str, blocker: str) -> bool:
        """Whether troops of the ``observer`` unit type see over those of ``blocker``'s."""
        return False

    def sight_limit_m(self, weather: str, time: str, local: bool) -> float | None:
        """How far troops see in this weather and light (None: no limit beyond the ground)."""
        return None

    def prepare(self, state: BattleState, scenario: Scenario) -> None:
        """After deployment, before bound 1: set what the book says troops start with."""

    def unplayable(self, scenario: Scenario) -> list[tuple[tuple[str | int, ...], str]]:
        """The scenario's mechanisms this ruleset cannot play: (the field's place, why) each.
        The battle refuses a scenario with any (``check_playable``), so none is silently
        ignored. The default refuses ``victory.pursuit_bounds`` for a book with no pursuit
        after the break (one that keeps the default :meth:`pursuit_over`), and any order word
        the book does not give (:attr:`order_kinds`: a scenario is checked against every
        registered book's words when it loads, and against its own book's here)."""
        out: list[tuple[tuple[str | int, ...], str]] = []
        if scenario.victory.pursuit_bounds and type(self).pursuit_over is Ruleset.pursuit_over:
            why = "has no pursuit after the break (its battle ends when an army breaks); expected 0"
            out.append((("victory", "pursuit_bounds"), why))
        if self.order_kinds:
            words = ", ".join(self.order_kinds)
            for loc, word in scenario.order_words():
                if word not in self.order_kinds:
                    out.append((loc, f"has no {word} order (its orders: {words})"))
        return out

    def delivery(self, battlefield: Ground, scenario: Scenario) -> Delivery:
        """How orders reach formations (the default: at once)."""
        from engine.orders import InstantDelivery

        return InstantDelivery()

    def commander(self, scenario: Scenario, side: str, battlefield: Ground) -> Commander:
        """Who gives a side's orders when the caller names no one: the scenario's orders."""
        from engine.orders import StandingOrders

        return StandingOrders.from_scenario(scenario, side, battlefield.to_xy)

    def automatic_commanders(self, scenario: Scenario, battlefield: Ground) -> dict[str, Commander]:
        """The sides' automatic generals (``scenario-builder run`` and ``check_ruleset`` fight
        with them); the default: each side's scenario orders (:meth:`commander`)."""
        return {s.id: self.commander(scenario, s.id, battlefield) for s in scenario.sides}

    # -- odds: asked by ``scenario-builder odds``, not the battle -------------------------------
    def odds_report(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        """The answer (JSON values: exact odds as fractions and floats) to the question the
        ``odds`` options ``opts`` ask (by option name, :mod:`engine.odds_options`);
        one of :attr:`odds_questions`."""
        raise RulesetError(None, f"ruleset {self.name} answers no odds questions")

    def odds_table(self, report: Mapping[str, Any]) -> OddsTable | None:
        """How ``odds`` prints ``report`` (one of :meth:`odds_report`'s) as a table; ``None``
        prints the report's JSON."""
        return None

    # -- scripted orders: asked by scenario_builder.battle (``run --orders``), not the battle --
    def orders_script(
        self, source: str | Path | ScriptedOrders, scenario: Scenario, side: str | None = None
    ) -> ScriptedOrders:
        """An orders file (or a script already read) as this book's orders, checked against
        the scenario's formations and sides by name (no ground needed, so a bad file fails
        before any is built). ``side``: only that side follows it. The default: the book has
        no scripted orders."""
        from scenario_builder.errors import ScenarioFileError

        where = source if isinstance(source, (str, Path)) else source.source
        raise ScenarioFileError(where, f"{self.name} has no scripted orders (--orders)")

    def scripted_commanders(
        self,
        scenario: Scenario,
        script: ScriptedOrders,
        battlefield: Ground,
        side: str | None = None,
    ) -> dict[str, Commander]:
        """The commanders following ``script`` (:meth:`orders_script`) for ``side`` or every
        side it orders, its positions read on ``battlefield``."""
        from scenario_builder.errors import ScenarioFileError

        raise ScenarioFileError(script.source, f"{self.name} has no scripted orders (--orders)")

    # -- the bound ---------------------------------------------------------------------------
    def new_context(self, **parts: Any) -> BoundContext:
        """The bound context the phases work on (a subclass may carry its own notes)."""
        from engine.context import BoundContext

        return BoundContext(**parts)

    def start_bound(self, ctx: BoundContext) -> None:
        """Before the first phase of every bound (the loop has already advanced the count)."""

    # -- after the break (pursuit and aftermath) -------------------------------------
    def begin_aftermath(self, ctx: BoundContext) -> list[Any]:
        """An army broke (``ctx.aftermath`` names the broken sides): what the book makes its
        troops and the winner's do now; returns events. The default: nothing."""
        return []

    def pursuit_over(self, ctx: BoundContext) -> bool:
        """Whether the pursuit has nothing more to do (the routers have left the field or been
        caught). The default, for a book with no pursuit: over at once, the battle stops at the
        break."""
        return True

    def casualties(self, ctx: BoundContext) -> dict[str, dict[str, int]]:
        """Each formation's lost bases by kind (killed, wounded, captured, dispersed), as far
        as the book tells them apart (engine.casualties; docs/rules-interpretations.md,
        "Killed, wounded, captured and dispersed"); formations that lost none are left out.
        The default: every dead base killed, save those special rule surrender captured
        (``ctx.special.captured``), those the book dispersed (``ctx.dispersed``) and the guns
        special rule crews_flee abandoned (their crews fled: dispersed; the guns lost as
        pieces); the living bases of a unit gone from the table dispersed."""
        from engine.casualties import dispersed, lost_bases

        return lost_bases(ctx.state, captured=ctx.special.captured, dispersed=dispersed(ctx))

    def idle_view(self, ctx: BoundContext) -> IdleView | None:
        """The book's own reading for the idle watcher (engine.idle.IdleView: who means to
        move or strike, who acted, the causes it knows), for a book whose units and events
        are not the core's; None (the default): the watcher reads the core's formations'
        orders and its ``moved``, ``shot`` and ``melee`` events."""
        return None

    def formation_record(self, ctx: BoundContext, formation: Formation) -> dict[str, Any]:
        """What the book adds to a formation's entry in each bound's snapshot (the default:
        nothing; ``dark-age`` records its formation type and DPs for the playback)."""
        return {}

    def event_types(self) -> dict[str, type[Event]]:
        """Each event ``type`` a log of this ruleset holds -> its class (the core's and
        :attr:`events`), for reading a log back: ``cls.from_dict(d).describe()``."""
        from engine.log import EVENT_TYPES
        from engine.special_rules import special_rule_events

        return {**EVENT_TYPES, **special_rule_events(), **{c.type: c for c in self.events}}

    def roll(self, dice: Dice, n: int, purpose: str = "") -> Any:
        """``n`` of the book's dice."""
        return dice.roll(n, purpose, sides=self.die_sides)

    def describe(self) -> dict[str, Any]:
        """What ``scenario-builder rulesets`` shows."""
        return {
            "name": self.name,
            "title": self.title,
            "family": self.family,
            "version": self.version,
            "aliases": list(self.aliases),
            "die": f"d{self.die_sides}",
            "phases": [p.name for p in self.phases],
            "terrain_classes": self.terrain_classes(),
            "terrain_table": str(self.terrain.path),
            "route_triple": {role: sorted(names) for role, names in self.route_triple.items()},
            "slope_bands": [[deg, name] for deg, name in self.slope_bands],
            "chart_sections": {role: list(h) for role, h in self.chart_sections.items()},
            "morale_states": {str(k): v for k, v in self.morale_states.items()},
            "orders": list(self.order_kinds),
            "special_rules": sorted(str(n) for n in self.special_rules),
            "scales": {
                "ground_m_per_mm": dict(self.scales.ground_m_per_mm),
                "base_m": [self.scales.base_w_m, self.scales.base_d_m],
                "rules_m": dict(self.scales.rules_m),
            },
        }


R = TypeVar("R", bound="type[Ruleset]")

_REGISTRY: dict[str, type[Ruleset]] = {}
_ALIASES: dict[str, str] = {}
_INSTANCES: dict[str, Ruleset] = {}


def check_playable(scenario: Scenario, ruleset: Ruleset) -> None:
    """One line naming the scenario file, its line and the first field ``ruleset`` cannot
    play (``Ruleset.unplayable``); nothing when it plays them all."""
    cls = type(ruleset)
    bad = unplayable_rules(
        list(scenario.special_rules), cls.special_rules, cls.special_rules_refused
    )
    bad += ruleset.unplayable(scenario)
    if not bad:
        return
    from scenario_builder.errors import ScenarioFileError

    loc, why = bad[0]
    line = scenario.line_of(loc)
    where = f"line {line}: " if line else ""
    field_name = ".".join(str(x) for x in loc)
    raise ScenarioFileError(
        scenario.path or scenario.id, f"{where}{field_name}: {ruleset.name} {why}"
    )


def register(cls: R) -> R:
    """Class decorator: add a ruleset to the registry under its name and aliases."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    for key in (cls.name, *cls.aliases):
        if key in _REGISTRY or key in _ALIASES:
            raise ValueError(f"ruleset name {key!r} registered twice")
    if not cls.phases:
        raise ValueError(f"{cls.__name__} declares no phases")
    _REGISTRY[cls.name] = cls
    ORDER_WORDS.update(cls.order_kinds)
    for alias in cls.aliases:
        _ALIASES[alias] = cls.name
    return cls


def unregister(name: str) -> None:
    """Remove a ruleset (tests that register a ruleset of their own clean up with this)."""
    cls = _REGISTRY.pop(name)
    for alias in cls.aliases:
        _ALIASES.pop(alias, None)
    _INSTANCES.pop(name, None)
    ORDER_WORDS.clear()  # its words go too, unless another ruleset uses them
    for other in _REGISTRY.values():
        ORDER_WORDS.update(other.order_kinds)
