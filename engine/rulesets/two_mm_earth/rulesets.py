"""The 2mm Earth rulesets v0.9 and v0.7 (see :mod:`engine.rulesets` for the change log).

>>> get_ruleset("2mm-earth").name
'2mm-earth-v0.9'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from engine.context import BoundContext
from engine.dice import Dice
from engine.movement import MoveRules, update_contacts
from engine.odds_options import OddsOption, OddsTable, fail
from engine.orders import Commander, Delivery, InstantDelivery, ScriptedOrders
from engine.rulesets import Phase, Ruleset, Scales, get_ruleset, register  # noqa: F401
from engine.rulesets.two_mm_earth import charts, morale, odds_report, phases, sieges, v07
from engine.rulesets.two_mm_earth.charts import CoverClass, MoveClass, Temperament, UnitType
from engine.rulesets.two_mm_earth.context import TwoMmContext
from engine.rulesets.two_mm_earth.profiles import Army, Flag, load_army
from engine.rulesets.two_mm_earth.resolution import (
    AttackResult,
    PanicResult,
    panic_test,
    rally_test,
    rally_test_v07,
    roll_attack,
    rout_test_v07,
    shooting_modifier,
)
from engine.rulesets.two_mm_earth.triggers import (
    MORALE_TRIGGERS_V07,
    MORALE_TRIGGERS_V09,
    MoraleSituation,
    MoraleTrigger,
)
from engine.scenario import Scenario
from engine.sight import SightRules
from engine.special_rules import SpecialRuleName
from engine.state import BaseStatus, BattleState, Formation, Morale, UnitProfile
from engine.terrain import Ground, TerrainTable
from scenario_builder.paths import data_dir

if TYPE_CHECKING:
    from engine.rulesets.two_mm_earth.scripted import OrdersScript

__all__ = [
    "MORALE_TRIGGERS_V09",
    "MoraleSituation",
    "MoraleTrigger",
    "TwoMmEarth",
    "TwoMmEarthGame",
    "TwoMmEarthMoves",
    "TwoMmEarthV07",
    "TwoMmEarthV09",
]

#: 2mm Earth's distances (metres on the ground), named for ``scenario-builder rulesets``
RULES_M: dict[str, float] = {
    "min_move": 25.0,  # 6.1
    "max_turn_deg": 90.0,  # 6.1
    "hearing": 75.0,  # 6.2
    "friend_see_through": 100.0,  # 6.2
    "character_see_through": 200.0,  # 6.2
    "skirmish_screen": 100.0,  # 6.2
    "rout_seen_near": 100.0,  # 10.2 "within 0-100m"
    "rout_seen_far": 250.0,  # 10.2 "within 100-250m"
    "retreat_while_enemy_within": 150.0,  # 10.3 / 11.2 (docs/rules-interpretations.md)
}

#: "2mm (1/900 scale, 1 metre is 1mm) ... or 6mm with 1-for-10 (1/300 scale, 1 metre is 3mm)";
#: a base is 40 x 20 mm at 2mm; Loose Formation bases stand 10 m apart (4.1)
SCALES = Scales(
    ground_m_per_mm={"2mm": 1.0, "6mm": 1.0 / 3.0},
    base_w_m=40.0,
    base_d_m=20.0,
    loose_gap_m=10.0,
    rules_m=RULES_M,
)

#: the keywords ``Formation.build`` takes for a 2mm Earth base
BASE_SIZE: dict[str, float] = {
    "base_w": SCALES.base_w_m,
    "base_d": SCALES.base_d_m,
    "loose_gap": SCALES.loose_gap_m,
}


class TwoMmEarthGame(Ruleset):
    """2mm Earth's bound, combat, orders and sight, without its movement speeds (6.1, 7.3) and
    its army morale (10.x, 11.x). The family is built in layers, one per part of the game, so a
    composed ruleset (:mod:`engine.rulesets.compose`) carries only the 2mm Earth hooks it plays
    and none that nothing would read: :class:`TwoMmEarthMoves` adds the speeds,
    :class:`TwoMmEarth` the morale (``2mm-earth-v0.9+wc-morale`` builds on the first two,
    ``dark-age`` on this one)."""

    family = "2mm-earth"
    die_sides = 6
    phases = phases.SEQUENCE
    #: played in its shooting phases (limited_missile_supply), through the core's sight (fog)
    #: and on the core's formations as a bound begins (crews_flee): every layer and
    #: composition of the family (docs/special-rules.md)
    special_rules = frozenset(
        {SpecialRuleName.LIMITED_MISSILE_SUPPLY, SpecialRuleName.FOG, SpecialRuleName.CREWS_FLEE}
    )
    scales = SCALES
    terrain = TerrainTable(
        data_dir() / "codes" / "2mm-earth.csv", {"move": MoveClass, "cover": CoverClass}
    )
    #: 7.3 Movement and 7.2 Cover charts (v0.9's numbers; v0.7 prints them as 8.3 and 8.2)
    chart_sections: ClassVar[Mapping[str, tuple[str, str]]] = {
        "move": ("Movement", "7.3"),
        "cover": ("Cover", "7.2"),
    }
    #: 9.1: "through terrain that blocks line of sight or is Impractical or Overhead"
    route_triple: ClassVar[Mapping[str, frozenset[str]]] = {
        "move": frozenset({"impractical"}),
        "cover": frozenset({"overhead"}),
    }
    morale_states: ClassVar[Mapping[Morale, str]] = {
        Morale.STEADY: "steady",
        Morale.RETREATING: "retreating",  # 10.3
        Morale.ROUTING: "routing",  # 10.4
        Morale.DESTROYED: "destroyed",
    }
    order_kinds = tuple(o.value for o in charts.Order)
    #: engine.testing.check_hooks: each hook's usual answer -> a different one (the battle
    #: must change when the hook answers so: proof that something reads it)
    hook_checks: ClassVar[dict[str, Callable[[Any], Any]]] = {
        "cover_modifier": lambda v: v + 2,
        # always a die (a cell that needs none ignores it): "never" would leave a cell that
        # needs one without it, an error rather than a changed battle
        "order_needs_roll": lambda v: True,
        "order_outcome": lambda v: "hold",
        "sight_limit_m": lambda v: 60.0,
        "sees_over": lambda v: not v,
        "roll_attack": lambda r: dataclasses.replace(r, hits=0),
        "shooting_modifier": lambda v: v - 3,
        "resilience_modifier": lambda v: v - 2,
        "messenger_rate_m": lambda rates: {k: v / 10.0 for k, v in rates.items()},
    }
    messenger_rate_m: ClassVar[dict[str, float]] = charts.MESSENGER_RATE_M
    #: The book gives no bound duration; its moves are real metres (1 mm = 1 m at 1:900) per
    #: bound, so the duration follows from them: 7.3 formed foot 100 m a bound is the quick
    #: march of drill books (about 110-120 paces of 0.75-0.8 m a minute), cavalry 300 m a
    #: trot-canter (about 18 km/h), 9.2 a mounted messenger 500 m a gallop (30 km/h). One
    #: minute a bound (docs/rules-interpretations.md, "Bound duration").
    bound_minutes: ClassVar[float | None] = 1.0
    lazy_modules: ClassVar[tuple[str, ...]] = (
        "engine.rulesets.two_mm_earth.commanders",
        "engine.rulesets.two_mm_earth.messengers",
        "engine.rulesets.two_mm_earth.scripted",
    )

    def __init__(self) -> None:
        # built once per instance so an override of speed_m / sees_over / sight_limit_m in a
        # subclass is what movement and sight call
        self.move_rules = self._move_rules()
        own_sees_over = type(self).sees_over is TwoMmEarthGame.sees_over
        self.sight_rules = SightRules(
            # the chart itself unless a subclass answers otherwise (one call less per blocker)
            sees_over=charts.sees_over if own_sees_over else self.sees_over,
            sight_limit_m=self.sight_limit_m,
            hearing_m=RULES_M["hearing"],
            friend_see_through_m=RULES_M["friend_see_through"],
            character_see_through_m=RULES_M["character_see_through"],
            skirmish_screen_m=RULES_M["skirmish_screen"],
        )

    def _move_rules(self) -> MoveRules:
        """The movement rules; a layer that owns the speeds builds them."""
        raise NotImplementedError(f"{self.name or type(self).__name__}: no movement speeds")

    # units, deployment, orders ---------------------------------------------------------------
    def load_army(self, name_or_path: str | Path) -> Army:
        """A 2mm Earth troop list (data/troops/*.yaml; schema in data/troops/README.md)."""
        return load_army(name_or_path)

    def troop_list_schema(self) -> dict[str, Any]:
        return Army.model_json_schema()

    def orders_script(
        self, source: str | Path | ScriptedOrders, scenario: Scenario, side: str | None = None
    ) -> OrdersScript:
        """A 2mm Earth orders file (:mod:`engine.rulesets.two_mm_earth.scripted`: bound ->
        orders in 9.1's words, wing orders 4.2)."""
        from engine.rulesets.two_mm_earth.scripted import OrdersScript, scripted_sides
        from scenario_builder.errors import ScenarioFileError

        if isinstance(source, OrdersScript):
            script = source
        elif isinstance(source, (str, Path)):
            script = OrdersScript.load(source)
        else:
            raise ScenarioFileError(source.source, f"expected a {self.family} orders file")
        scripted_sides(scenario, script, side)  # the checks, on names only
        return script

    def scripted_commanders(
        self,
        scenario: Scenario,
        script: ScriptedOrders,
        battlefield: Ground,
        side: str | None = None,
    ) -> dict[str, Commander]:
        from engine.rulesets.two_mm_earth.scripted import OrdersScript, scripted_commanders
        from scenario_builder.errors import ScenarioFileError

        if not isinstance(script, OrdersScript):
            raise ScenarioFileError(script.source, f"expected a {self.family} orders file")
        script.place(battlefield)
        return dict(scripted_commanders(scenario, script, battlefield.to_xy, side))

    def sees_over(self, observer: str, blocker: str) -> bool:
        """6.2."""
        return charts.sees_over(observer, blocker)

    def prepare(self, state: BattleState, scenario: Scenario) -> None:
        """11.3: Random troops start Rash. 4.1: only skirmishers may deploy ``loose``. 5.1:
        "you can deploy Brigades by placing your formations in a single group with the
        appropriate character": a formation with ``brigade: <id>`` merges into that formation
        (its bases form the rear ranks) under the rules of a merge in play
        (:func:`formations.merge_problem`); a broken rule is a ScenarioFileError."""
        from engine.deploy import check_overlaps
        from engine.rulesets.two_mm_earth.formations import merge_formations, merge_problem
        from scenario_builder.errors import ScenarioFileError

        source = str(scenario.path or scenario.id)
        for f in state.formations.values():
            if f.temperament == Temperament.RANDOM:
                f.random_troops = True
                f.temperament = Temperament.RASH
            troops = [b for b in f.bases if not b.character] or f.bases
            if f.loose and not all(b.profile.has(Flag.SKIRMISHER) for b in troops):
                raise ScenarioFileError(
                    source,
                    f"formation {f.id}: expected a skirmisher "
                    f"profile for loose: true (4.1), got "
                    f"{f.profile.id!r}",
                )
        for side in scenario.sides:
            for fs in side.formations:  # 11.3 Pike & Shot: the outer files of another profile
                if fs.flank_profile is None or not fs.flank_files:
                    continue
                prof = scenario.army(side.id, self).profile(fs.flank_profile)
                width = min(fs.frontage, fs.bases)
                for b in state.formations[fs.id].bases:
                    if not b.character and (
                        b.file < fs.flank_files or b.file >= width - fs.flank_files
                    ):
                        b.profile = prof
        merged = False
        for side in scenario.sides:
            for fs in side.formations:
                if fs.brigade is None:
                    continue
                lead = state.formations.get(fs.brigade)
                if lead is None or lead.side != side.id or lead.id == fs.id:
                    raise ScenarioFileError(
                        source,
                        f"formation {fs.id}: expected brigade to "
                        f"name another formation of {side.id}, got "
                        f"{fs.brigade!r}",
                    )
                why = merge_problem(state, lead.id, fs.id)
                if why is not None:
                    raise ScenarioFileError(source, f"formation {fs.id}: {why}")
                merge_formations(state, lead.id, fs.id, phase="deploy")
                merged = True
        if merged:
            state.formations = {k: f for k, f in state.formations.items() if f.bases}
            check_overlaps(state, source)

    def delivery(self, battlefield: Ground, scenario: Scenario) -> Delivery:
        """9.1-9.2: messengers at the age's rate."""
        from engine.rulesets.two_mm_earth.messengers import MessengerDelivery

        rates = self.messenger_rate_m
        return MessengerDelivery(
            battlefield,
            rates[scenario.age],
            triple=self.route_triple,
            side_rates={sd.id: rates[sd.age] for sd in scenario.sides if sd.age is not None},
        )

    def automatic_commanders(self, scenario: Scenario, battlefield: Ground) -> dict[str, Commander]:
        """Each side's General following the scenario's ``plan`` (commanders.PlanCommander)."""
        from engine.rulesets.two_mm_earth.commanders import plan_commanders

        return {side: c for side, c in plan_commanders(scenario, battlefield.to_xy).items()}

    def new_context(self, **parts: Any) -> BoundContext:
        ctx = TwoMmContext(**parts, has_walls=sieges.has_fortifications(parts["bf"]))
        ctx.base_pairs = update_contacts(ctx.state)  # deployed in contact (3.2)
        return ctx

    def start_bound(self, ctx: BoundContext) -> None:
        phases.start_bound(cast(TwoMmContext, ctx))

    # charts ----------------------------------------------------------------------------------
    def cover_modifier(self, unit_type: UnitType | str, cover_class: int, kind: str) -> int:
        """Chart 7.2: change to R for the target's cover, ``kind`` ``"melee"``/``"ranged"``."""
        return charts.cover_modifier(unit_type, cover_class, kind)

    def order_needs_roll(self, temperament: Temperament | str, order: str) -> bool:
        """Chart 9.3: whether the order asks for a die."""
        return charts.order_needs_roll(temperament, order)

    def order_outcome(self, temperament: Temperament | str, order: str, die: int | None) -> str:
        """Chart 9.3."""
        return charts.order_outcome(temperament, order, die)

    def sight_limit_m(self, weather: str, time: str, local: bool) -> float | None:
        """6.3."""
        return charts.sight_limit_m(weather, time, local)

    # combat ----------------------------------------------------------------------------------
    def roll_attack(
        self, dice: Dice, n_dice: int, resilience: int, modifier: int = 0, purpose: str = ""
    ) -> AttackResult:
        """2.2-2.3 attack dice (same in every 2mm Earth version)."""
        return roll_attack(dice, n_dice, resilience, modifier, purpose)

    def shooting_modifier(self, **kwargs: bool) -> int:
        """1.1 / 8.1 / 8.2 die penalties; see :func:`resolution.shooting_modifier`."""
        return shooting_modifier(**kwargs)

    def resilience_modifier(self, ctx: TwoMmContext, target: Formation) -> int:
        """A change to the R to beat when ``target`` is shot at or struck, beyond its facing
        rank, cover and 11.1 state (:func:`shooting.target_resilience`): none in 2mm Earth; a
        composition may add one (``dark-age``: disorder points)."""
        return 0


def _other_outcome(result: PanicResult) -> PanicResult:
    """A test's result turned round (none <-> rout; retreat -> none), for check_hooks."""
    other = "rout" if result.outcome == "none" else "none"
    return dataclasses.replace(result, outcome=other)


def halved(f: Formation) -> bool:
    """1.1 / 2.4: 50 % or more of the front rank, or of the formation, injured or killed."""
    if f.morale in (Morale.RETREATING, Morale.ROUTING):
        # 11.1: uninjured retreating bases keep their speed, injured ones are slowed; a mixed
        # formation leaves its injured behind as a group of their own before it moves
        # (phases._split_injured), so only an all-injured group is halved
        alive = f.alive_bases
        return bool(alive) and all(b.status is not BaseStatus.OK for b in alive)
    front, whole = f.injured_share()
    return front >= 0.5 or whole >= 0.5


_STATE_R = {"steady": 0, "retreating": -1, "routing": -2}


def _state_modifier(state: str) -> int:
    try:
        return _STATE_R[state]
    except KeyError:
        raise ValueError(f"expected state one of {', '.join(_STATE_R)}, got {state!r}") from None


class TwoMmEarthMoves(TwoMmEarthGame):
    """2mm Earth's game with its movement speeds: 6.1, chart 7.3 (5.1 the slowest base)."""

    #: exhaustion too: its speeds are the ones slowed (TwoMmContext.move_rules), its 2.2
    #: attack dice the ones lowered (docs/special-rules.md)
    special_rules = TwoMmEarthGame.special_rules | {SpecialRuleName.EXHAUSTION}

    hook_checks: ClassVar[dict[str, Callable[[Any], Any]]] = {
        **TwoMmEarthGame.hook_checks,
        "speed_m": lambda v: None if v is None else v / 2.0,
        "unit_speed_m": lambda v: None if v is None else v / 2.0,
        "formation_speed_m": lambda fn: lambda c: None if fn(c) is None else fn(c) / 2.0,
    }

    def _move_rules(self) -> MoveRules:
        return MoveRules(
            speed_m=self.formation_speed_m,
            min_move_m=RULES_M["min_move"],
            max_turn_deg=RULES_M["max_turn_deg"],
        )

    def speed_m(self, unit_type: UnitType | str, move_class: int) -> float | None:
        """Chart 7.3 (None = cannot travel)."""
        return charts.speed_m(unit_type, move_class)

    def unit_speed_m(self, profile: UnitProfile, move_class: int) -> float | None:
        """Chart 7.3 for the profile's unit type, scaled when the list gives its own plain
        speed (data/troops/README.md)."""
        chart = self.speed_m(profile.unit_type, move_class)
        own = getattr(profile, "speed_m", None)
        if chart is None or own is None:
            return chart
        plain = self.speed_m(profile.unit_type, MoveClass.PLAIN) or 1.0
        return chart * own / plain

    def formation_speed_m(self, f: Formation) -> Callable[[int], float | None]:
        """5.1 the slowest base; halved when 50 % or more of the front rank or of the
        formation is injured or dead (1.1, 2.4; 11.1 retreating troops excepted)."""
        # asked for every move: with chart 7.3's own speeds (a pure function of the profile
        # and class) the function depends on the formation's make-up alone (its profiles,
        # injuries, ranks and morale), so one is kept with it (``Formation.kept``) and keeps
        # the speed of each class it is asked for, across moves, until the make-up changes
        pure = (
            type(self).unit_speed_m is TwoMmEarthMoves.unit_speed_m
            and type(self).speed_m is TwoMmEarthMoves.speed_m
        )
        if pure:
            kept = f.kept()
            hit = kept.get("formation_speed_m")
            if hit is not None and hit[0] is self:
                return cast("Callable[[int], float | None]", hit[1])
        profiles = f.profiles
        half = halved(f)

        def worked_out(move_class: int) -> float | None:
            speeds = [self.unit_speed_m(p, move_class) for p in profiles]
            if not speeds or any(s is None for s in speeds):
                return None
            s = float(min(s for s in speeds if s is not None))
            return s / 2.0 if half else s

        if not pure:
            return worked_out
        by_class: dict[int, float | None] = {}

        def speed(move_class: int) -> float | None:
            if move_class in by_class:
                return by_class[move_class]
            out = by_class[move_class] = worked_out(move_class)
            return out

        kept["formation_speed_m"] = (self, speed)
        return speed


class TwoMmEarth(TwoMmEarthMoves):
    """The 2mm Earth family: the game and its own army morale (10.x, 11.x); the versions
    override what differs."""

    #: surrender too: its 10.3 / 11.1 flight (v0.7: 5.1 / 5.3) is the move a cut-off body
    #: fails to make, and its casualties count the captured (docs/special-rules.md)
    special_rules = TwoMmEarthMoves.special_rules | {
        SpecialRuleName.SURRENDER,
        SpecialRuleName.SHOCK_OF_CHARGE,  # its own morale test (10.5; v0.7 5.2)
    }
    #: how many dice one panic test rolls (the odds calculator enumerates them all)
    panic_dice: ClassVar[int] = 2
    #: ``odds --attack`` (2.2-2.3 with chart 7.2, 3.1, 8.1) and ``odds --panic`` (10.5, v0.7 5.2)
    odds_questions: ClassVar[tuple[str, ...]] = ("attack", "panic")
    odds_flags: ClassVar[tuple[OddsOption, ...]] = odds_report.ODDS_FLAGS
    hook_checks: ClassVar[dict[str, Callable[[Any], Any]]] = {
        **TwoMmEarthMoves.hook_checks,
        # every answer changed (a row the version's table leaves blank now routs too), so a
        # battle that consults the table at all tells (v0.7's table answers few of the rows)
        "morale_effect": lambda v: "rout" if v != "rout" else None,
        # 11.1 after the break: 2mm Earth's morale chapter, so a composition with
        # another book's morale does not inherit it (it stops at the break)
        "begin_aftermath": lambda events: [],
        "pursuit_over": lambda v: not v,
        "casualties": lambda c: {f: dict.fromkeys(row, 0) for f, row in c.items()},
        "morale_r_modifier": lambda v: v - 3,
        "panic_test": lambda r: _other_outcome(r),
        "morale_test": lambda r: _other_outcome(r),
    }

    def odds_report(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        from engine.rulesets.two_mm_earth.odds_report import attack_report, panic_report

        if opts["resilience"] is None:
            raise fail("expected --resilience R (1..7), got none")
        return attack_report(opts, self) if opts["attack"] else panic_report(opts, self)

    def odds_table(self, report: Mapping[str, Any]) -> OddsTable:
        table = odds_report.attack_table if report["mode"] == "attack" else odds_report.panic_table
        return table(dict(report))

    # 11.1 after the break (engine.battle runs it for victory.pursuit_bounds)
    def begin_aftermath(self, ctx: BoundContext) -> list[Any]:
        return morale.begin_aftermath(ctx)  # type: ignore[arg-type]

    def pursuit_over(self, ctx: BoundContext) -> bool:
        return morale.pursuit_over(ctx)  # type: ignore[arg-type]

    def casualties(self, ctx: BoundContext) -> dict[str, dict[str, int]]:
        return morale.casualties(ctx)  # type: ignore[arg-type]

    morale_triggers: ClassVar[tuple[MoraleTrigger, ...]] = MORALE_TRIGGERS_V09
    #: whether :meth:`morale_test` reads the friends the tested formation sees fleeing and
    #: routing (``MoraleSituation.seen_fleeing`` / ``seen_routing``); the morale code asks
    #: Sight about every broken friend only for a test that reads them
    morale_reads_seen_friends: ClassVar[bool] = True
    #: the sections a morale change cites in the log: (must rout, test's rout, test or must
    #: retreat)
    morale_cite: ClassVar[tuple[str, str, str]] = ("10.2", "10.5 panic test", "10.2/10.5")
    morale_test_name: ClassVar[str] = "panic test 10.5"

    def morale_effect(
        self, trigger: str, temperament: Temperament | str = "normal", state: str = "steady"
    ) -> str | None:
        """The effect of ``trigger`` (the ruleset's ``morale_triggers``: v0.9's 10.2, v0.7's own
        5.1/5.3/9.1 rows) for troops of ``temperament`` in morale ``state``; None if the
        ruleset's table has no row for it (the trigger does nothing under this ruleset).

        >>> rs = get_ruleset("2mm-earth")
        >>> rs.morale_effect("friendly_rout_0_100m")
        'rout'
        >>> rs.morale_effect("friendly_rout_0_100m", "rash")
        'retreat'
        >>> rs.morale_effect("friendly_rout_100_250m", "reluctant")
        'panic_test'
        """
        general = None
        for row in self.morale_triggers:
            if row.trigger != trigger or (row.states and state not in row.states):
                continue
            if not row.temperaments:
                general = row.effect
            elif str(temperament) in row.temperaments:
                return row.effect
        return general

    # morale ----------------------------------------------------------------------------------
    def panic_test(
        self,
        dice: Dice,
        resilience: int,
        leadership: int = 0,
        modifier: int = 0,
        routing: bool = False,
        purpose: str = "",
        *,
        at_best: str | None = None,
        **situation: Any,
    ) -> PanicResult:
        """The ruleset's panic test; see :func:`resolution.panic_test` for v0.9."""
        raise NotImplementedError

    def morale_test(self, dice: Dice, situation: MoraleSituation, purpose: str = "") -> PanicResult:
        """Run the panic test for a described situation, picking R and modifiers per the rules."""
        raise NotImplementedError


@register
class TwoMmEarthV09(TwoMmEarth):
    """*Battle for 2mm Earth* v0.9, the default."""

    name = "2mm-earth-v0.9"
    version = "0.9"
    aliases = ("2mm-earth", "2mm-earth-0.9")
    title = "Battle for 2mm Earth v0.9"
    panic_dice = 2
    #: 10.5's test has no modifier for friends seen broken (in v0.9 those are 10.2 triggers)
    morale_reads_seen_friends = False

    def morale_r_modifier(self, triggers: tuple[str, ...]) -> int:
        """Sum of the 10.2 "-1R in test" modifiers of the triggers that called the test."""
        return sum(
            row.r_modifier
            for row in self.morale_triggers
            if row.trigger in triggers and row.effect == "panic_test"
        )

    def panic_test(
        self,
        dice: Dice,
        resilience: int,
        leadership: int = 0,
        modifier: int = 0,
        routing: bool = False,
        purpose: str = "",
        *,
        at_best: str | None = None,
        **_ignored: Any,
    ) -> PanicResult:
        """10.5. v0.7-only situation keywords (``seen_fleeing`` ...) are accepted and ignored:
        in v0.9 those situations are triggers (10.2), not roll modifiers."""
        return panic_test(dice, resilience, leadership, modifier, routing, purpose, at_best=at_best)

    def morale_test(self, dice: Dice, situation: MoraleSituation, purpose: str = "") -> PanicResult:
        """10.5: R by context (highest out of combat, ranged when shot, melee in contact), less
        the 10.2 trigger modifiers and 11.1 state (-1 retreating, -2 routing).

        >>> from engine.dice import ScriptedDice
        >>> s = MoraleSituation(4, 3, context="melee", triggers=("enemy_contact_rear",))
        >>> get_ruleset().morale_test(ScriptedDice([3, 5]), s).outcome   # 3 vs R4-1
        'retreat'
        """
        s = situation
        if "character_joined_routing" in s.triggers:
            # 10.4: a character joined the routers; his L counts, R is the higher, -2 routing
            return rally_test(dice, s.melee_r, s.ranged_r, s.leadership, purpose=purpose)
        if s.context == "melee":
            r = s.melee_r
        elif s.context == "shot":
            r = s.ranged_r
        elif s.context == "idle":
            r = max(s.melee_r, s.ranged_r)
        else:
            raise ValueError(f"expected context idle, shot or melee, got {s.context!r}")
        modifier = self.morale_r_modifier(s.triggers) + _state_modifier(s.state)
        return self.panic_test(
            dice, r, s.leadership, modifier, s.state == "routing", purpose, at_best=s.at_best
        )


_V07_ABSENT = frozenset({"order_needs_roll", "order_outcome", "messenger_rate_m"})


@register
class TwoMmEarthV07(TwoMmEarth):
    """*Battle for 2mm Earth* v0.7 as its own book (engine/rulesets/two_mm_earth/v07.py).

    Shared with v0.9 (the family's code): units and charts (2.x-4.x, 6.1, 7.x, 8.x; v0.7's
    7.x/8.x are v0.9's 6.x/7.x), shooting, melee, wings, brigades, sight, movement. Its own:
    the bound (``v07.SEQUENCE_V07``: orders as planned, 9.1 army morale before the moves are
    planned, 5.1's blocked flee, 5.3's routers destroyed on contact at once, no automatic
    pursuit), its morale table (``MORALE_TRIGGERS_V07``: no 10.2 chart), its rout test (5.2,
    one die) and its command model (no 9.2/9.3 chart, no messengers: a plan reaches its
    formation at once and is obeyed; docs/rules-interpretations.md).
    """

    name = "2mm-earth-v0.7"
    version = "0.7"
    #: v0.9's options and the rout test's situation (5.2)
    odds_flags: ClassVar[tuple[OddsOption, ...]] = odds_report.ODDS_FLAGS_V07
    aliases = ("2mm-earth-0.7",)
    title = "Battle for 2mm Earth v0.7"
    phases = v07.SEQUENCE_V07
    panic_dice = 1
    morale_triggers: ClassVar[tuple[MoraleTrigger, ...]] = MORALE_TRIGGERS_V07
    morale_cite: ClassVar[tuple[str, str, str]] = ("5.1", "5.2 rout test", "5.1/5.2")
    morale_test_name: ClassVar[str] = "rout test 5.2"
    #: the same charts under v0.7's numbers (its 8.1 TERRAIN: 8.2 cover, 8.3 movement)
    chart_sections: ClassVar[Mapping[str, tuple[str, str]]] = {
        "move": ("Movement", "8.3"),
        "cover": ("Cover", "8.2"),
    }
    #: the 2mm Earth layers' hooks this book does not have: no 9.3 order chart, no 9.2
    #: messengers (check_hooks proves nothing consults them under v0.7)
    absent_hooks: ClassVar[frozenset[str]] = _V07_ABSENT
    #: no 10.2 "-1R" modifiers (no morale_r_modifier hook)
    hook_checks: ClassVar[dict[str, Callable[[Any], Any]]] = {
        k: v
        for k, v in TwoMmEarth.hook_checks.items()
        if k != "morale_r_modifier" and k not in _V07_ABSENT
    }

    def delivery(self, battlefield: Ground, scenario: Scenario) -> Delivery:
        """v0.7 has no orders chart and no messengers (1.2-1.3: the player plans each
        formation's moves and shots himself): a plan reaches its formation the bound it is
        made."""
        return InstantDelivery()

    def new_context(self, **parts: Any) -> BoundContext:
        ctx = v07.V07Context(**parts, has_walls=sieges.has_fortifications(parts["bf"]))
        ctx.base_pairs = update_contacts(ctx.state)
        return ctx

    morale_states: ClassVar[Mapping[Morale, str]] = {
        Morale.STEADY: "steady",
        Morale.RETREATING: "fleeing",  # 5.1: v0.7's "flee" is the engine's retreat
        Morale.ROUTING: "routing",
        Morale.DESTROYED: "destroyed",
    }

    def panic_test(  # type: ignore[override]
        self,
        dice: Dice,
        resilience: int,
        leadership: int = 0,
        modifier: int = 0,
        routing: bool = False,
        purpose: str = "",
        *,
        other_resilience: int | None = None,
        seen_fleeing: int = 0,
        seen_routing: int = 0,
        contact_sides: int = 0,
        rear_contact: bool = False,
        army_morale: bool = False,
        at_best: str | None = None,
    ) -> PanicResult:
        """5.2 rout test / 9.1 army morale; see :func:`resolution.rout_test_v07`."""
        return rout_test_v07(
            dice,
            resilience,
            leadership,
            modifier,
            routing,
            purpose,
            other_resilience=other_resilience,
            seen_fleeing=seen_fleeing,
            seen_routing=seen_routing,
            contact_sides=contact_sides,
            rear_contact=rear_contact,
            army_morale=army_morale,
            at_best=at_best,
        )

    def morale_test(self, dice: Dice, situation: MoraleSituation, purpose: str = "") -> PanicResult:
        """5.2 / 9.1: the lowest of the two R, 5.3 state loss, the situation's die modifiers.

        >>> from engine.dice import ScriptedDice
        >>> s = MoraleSituation(6, 2, contact_sides=1, leadership=2)
        >>> get_ruleset("2mm-earth-v0.7").morale_test(ScriptedDice([3]), s).outcome  # 3+1-2 < 3
        'none'
        """
        s = situation
        if "character_joined_routing" in s.triggers:
            # 5.5: a character joined the routing unit: the rout test at the routing R
            return rally_test_v07(dice, s.melee_r, s.ranged_r, s.leadership, purpose=purpose)
        return self.panic_test(
            dice,
            s.melee_r,
            s.leadership,
            _state_modifier(s.state),
            s.state == "routing",
            purpose,
            other_resilience=s.ranged_r,
            seen_fleeing=s.seen_fleeing,
            seen_routing=s.seen_routing,
            contact_sides=s.contact_sides,
            rear_contact=s.rear_contact,
            army_morale=s.army_morale,
            at_best=s.at_best,
        )
