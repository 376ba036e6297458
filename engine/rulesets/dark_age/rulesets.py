"""``dark-age``: the Dark Age formations and movement chapter, composed with War & Conquest's
morale and command, and with *Battle for 2mm Earth* v0.9 for what neither seed has.

The Dark Age seed is chapter 5 only (its turn, combat and morale chapters are referred to but
absent), so the composition is, part by part (``scenario-builder rulesets`` prints it):

- turn sequence: 2mm Earth's bound (1.1), with W&C's Resolution and End phases in place of
  2mm Earth's 10.x / 11.x;
- movement and formations: the Dark Age chapter (rolled moves in javelin throws of 25 m, DPs,
  its terrain table ``data/codes/dark-age.csv``); the engine's mechanics sweep the move;
- combat: 2mm Earth's shooting and melee (2.x, 3.x, 8.x), with its cover and sight (the Dark Age
  table carries 2mm Earth's cover and sight columns);
- morale and command: War & Conquest, its inches at 25.4 m (the engine's 1 mm = 1 m table).

DPs are counted and shown; what they do is in the chapter's absent combat and morale chapters,
so their effects come from the composition's combat game, 2mm Earth v0.9 (:data:`DP_EFFECTS`:
11.1's -1 Resilience until a rally), printed as a supplement of the composition
(docs/rules-interpretations.md).

>>> from engine.rulesets import get_ruleset
>>> rs = get_ruleset("dark-age")
>>> [c["module"] for c in rs.describe()["composition"]]
['2mm-earth-v0.9', 'dark-age-movement', '2mm-earth-v0.9', 'wc-morale', '2mm-earth-v0.9']
>>> rs.describe()["composition"][-1]["part"]
'disorder point effects'
>>> rs.terrain_classes()["move"][:3]
['open', 'light_cover', 'road']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from engine.context import BoundContext
from engine.log import Event
from engine.movement import MoveRules
from engine.odds_options import OddsOption
from engine.rulesets import Phase, register
from engine.rulesets.compose import (
    DARK_AGE_MOVEMENT,
    TWO_MM_EARTH_V09,
    WC_MORALE,
    Composition,
    Part,
)
from engine.rulesets.dark_age import battle as da
from engine.rulesets.dark_age import odds_report
from engine.rulesets.dark_age.aim import AimKept, facing_kept, keep_aim
from engine.rulesets.dark_age.command import (
    CommandFormationBroken,
    CommandFormationFormed,
    break_up,
    form_at_deployment,
)
from engine.rulesets.dark_age.manoeuvres import (
    ManoeuvreRefused,
    OrderedManoeuvre,
    expand_after_gaps,
    manoeuvres,
    ordered_this_bound,
)
from engine.rulesets.dark_age.mounts import check_dismount_profiles
from engine.rulesets.dark_age.movement import JAVELIN_THROW_M, DisorderPoints, MoveRoll
from engine.rulesets.dark_age.ranks import ClosedRanks, close_ranks
from engine.rulesets.dark_age.skirmish import SkirmishFallBack, fall_back_before
from engine.rulesets.dark_age.terrain import STEEP_SLOPE_DEG, DarkAgeTerrain, steep_slopes
from engine.rulesets.two_mm_earth import phases as two_mm
from engine.rulesets.two_mm_earth.charts import CoverClass
from engine.rulesets.two_mm_earth.context import TwoMmContext
from engine.rulesets.two_mm_earth.rulesets import RULES_M, TwoMmEarthGame
from engine.rulesets.war_and_conquest.morale import TableScale
from engine.rulesets.war_and_conquest.rulesets import TwoMmEarthWCMorale, wc_phases
from engine.special_rules import SpecialRuleName
from engine.state import Morale
from engine.terrain import TerrainTable
from scenario_builder.paths import data_dir

if TYPE_CHECKING:
    from engine.scenario import Scenario
    from engine.state import BattleState

__all__ = ["DARK_AGE_TABLE", "DarkAge", "DarkAgeContext"]

#: W&C's inches on the engine's table (bases 40 x 20 m at 1 mm = 1 m, as in 2mm Earth)
DARK_AGE_TABLE = TableScale(
    25.4, "the engine's table, 1 mm = 1 m as in 2mm Earth; one inch is about one javelin throw"
)


@dataclass(slots=True)
class DarkAgeContext(TwoMmContext):
    """2mm Earth's notes plus the chapter's: this bound's move rolls, and each formation's DPs
    (kept for the whole battle)."""

    move_rolls: dict[str, tuple[Any, Any, MoveRoll]] = field(default_factory=dict)
    dps: dict[str, DisorderPoints] = field(default_factory=dict)
    start_facing: dict[str, float] = field(default_factory=dict)
    bow_range_m: float | None = None  # 5.8's bow range, from the troop lists (battle.py)
    #: 5.21 this bound: (the whole roll, what is left of it after turning about), metres
    about_faced: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: 5.17, 5.23, 5.26 ordered wheels, side-steps and inclines this bound: the move, metres
    manoeuvre_allowance: dict[str, float] = field(default_factory=dict)
    #: 5.28 units narrowed to pass a gap: the frontage they expand back to, the bound they began
    gap_passing: dict[str, tuple[int, int]] = field(default_factory=dict)
    rules: MoveRules | None = None
    #: 5.5 the scenario's command formations (:mod:`.command`), broken ones kept, flagged
    command_formations: list[Any] = field(default_factory=list)
    command_formations_logged: bool = False
    #: 5.12 this bound: metres each skirmishing unit fell back before formed enemy
    skirmish_m: dict[str, float] = field(default_factory=dict)
    #: 5.17 this bound: how far each unit of a Battle Line that wheeled as one body went in
    #: the wheel (:mod:`.line_moves`)
    wheeled_m: dict[str, float] = field(default_factory=dict)
    #: 5.25 each dismounted unit's horses and horse-holders (:mod:`.mounts`)
    horses: dict[str, Any] = field(default_factory=dict)
    #: 5.15 each formed unit's target of its last move (:mod:`.aim`)
    aims: dict[str, str] = field(default_factory=dict)

    @property
    def move_rules(self) -> MoveRules:
        """The bound's rolled allowances (:func:`.battle.move_rules_for`)."""
        if self.rules is None:
            self.rules = da.move_rules_for(self, RULES_M["min_move"], RULES_M["max_turn_deg"])
        return self.rules


def _moving(ctx: Any) -> set[str]:
    """Formations that will move this bound: a move plan, and no enemy touching them already
    (2mm Earth 3.2: a formation in contact stays to fight)."""
    return {
        fid
        for fid, plan in ctx.plans.items()
        if plan.kind != "none"
        and not ctx.state.formations[fid].removed
        and not two_mm._touching_enemy(ctx, ctx.state.formations[fid])
    }


def _execute_moves(ctx: Any) -> None:
    ctx.start_facing = {f.id: f.facing for f in ctx.state.active()}
    if not ctx.command_formations_logged:  # 5.5: as deployed
        ctx.command_formations_logged = True
        ctx.emit(
            [
                CommandFormationFormed("execute_moves", cf.id, cf.kind.value, cf.units)
                for cf in ctx.command_formations
            ]
        )
    # 5.5: one whose units fought, fled or were pushed out of shape since breaks up
    ctx.emit(break_up(ctx, da.chapter_view, "execute_moves"))
    # 5.2-5.3: formed units that stand close up the gaps the last melee left in their ranks
    ctx.emit(close_ranks(ctx, lambda f: da.chapter_view(f)[2], _moving(ctx)))
    # 5.15, 5.17: formed units keep their aim while the enemy stays within the deviation
    ordered = ordered_this_bound(ctx)
    ctx.emit(keep_aim(ctx, ctx.aims, da.chapter_view, ordered, "execute_moves"))
    ctx.emit(da.range_halts(ctx))  # 5.8: march phase halts at bow range, tactical at javelin
    ctx.wheeled_m = {}
    ctx.emit(da.roll_moves(ctx))  # 5.9: a command formation's units roll once
    # 5.18, 5.22, 5.23: the scenario's and the commander's manoeuvres, at their cost
    ctx.about_faced = {}
    ctx.manoeuvre_allowance = {}
    ctx.emit(manoeuvres(ctx, "execute_moves"))
    ctx.emit(da.about_faces(ctx, "execute_moves"))  # 5.21: a way behind the unit
    n = len(ctx.events)
    ctx.skirmish_m = {}
    # 5.12: as each formed unit's move ends, skirmishers it came close to fall back
    two_mm.phase_execute_moves(
        ctx,
        after_move=lambda c, f, plan, res: fall_back_before(c, f, plan, res, da.chapter_view),
        aim_anew=facing_kept(da.chapter_view, ordered),
    )
    # 5.27: moves that went through friends cost DPs (the engine let them pass: may_pass)
    ctx.emit(
        da.interpenetrations(ctx, [e for e in ctx.events[n:] if e.type == "moved"], "execute_moves")
    )
    for fid, (full_m, _left) in ctx.about_faced.items():  # 5.21: turning about is in the roll
        ctx.allowances[fid] = max(ctx.allowances.get(fid, 0.0), full_m)
    for fid, full_m in ctx.manoeuvre_allowance.items():  # 5.17, 5.23, 5.26: in the move
        ctx.allowances[fid] = max(ctx.allowances.get(fid, 0.0), full_m)
    for fid, wheel_m in ctx.wheeled_m.items():  # 5.17: the line's wheel was its move too
        f = ctx.state.formations[fid]
        f.moved_m = max(f.moved_m, wheel_m)
    for fid, back_m in ctx.skirmish_m.items():  # 5.12: a move besides the unit's own
        ctx.allowances[fid] = ctx.allowances.get(fid, 0.0) + back_m
    ctx.emit(expand_after_gaps(ctx, "execute_moves"))  # 5.28: back to its frontage
    ctx.emit(da.charge_dps(ctx, "execute_moves"))
    # 5.5: a command formation that moved or fought out of shape breaks up
    ctx.emit(break_up(ctx, da.chapter_view, "execute_moves"))


def _rallies_clear_dps(end: Any) -> Any:
    """W&C's End phase, then every unit that rallied in it (fleeing -> rallied) loses its DPs:
    the chapter's DPs are removed by rallying (4.8, absent; :class:`DPRemoval`), as 2mm Earth's
    11.1 penalty lasts "until they rally"."""

    def run(ctx: Any) -> None:
        fleeing = {f.id for f in ctx.state.active() if f.morale is Morale.ROUTING}
        end(ctx)
        ctx.emit(da.rallied_clear_dps(ctx, fleeing, "end"))

    return run


def _phases() -> tuple[Phase, ...]:
    out = []
    for p in wc_phases(DARK_AGE_TABLE):
        if p.name == "execute_moves":
            p = Phase("execute_moves", _execute_moves)
        elif p.name == "end":
            p = Phase("end", _rallies_clear_dps(p.run))
        out.append(p)
    return tuple(out)


#: What DPs do. The chapter counts them; their effects are in its absent chapters (5.5 refers to
#: 4.5 and 7.13 for DPs taken when charged, 5.19 to rallying, 4.8). They come from the
#: composition's combat game, 2mm Earth v0.9, whose nearest rule is 11.1's penalty for troops
#: that have lost their order: "all retreating troops take a -1 Resilience loss, until they
#: rally" (the W&C module already reads W&C's "disordered" as 2mm Earth's retreating state).
DP_EFFECTS = (
    "11.1 -1 Resilience 'until they rally': a steady unit carrying DPs is struck and shot at "
    "as retreating troops are; a rally (W&C End phase) clears its DPs"
)
#: 2mm Earth 11.1: the R a unit carrying DPs loses (not added to a retreating or routing
#: unit's own -1 / -2)
DISORDERED_R = -1


@register
class DarkAge(TwoMmEarthGame):
    """Dark Age formations and movement + W&C morale + 2mm Earth turn and combat.

    Built on :class:`TwoMmEarthGame` (2mm Earth's bound, combat, orders and sight): neither 2mm
    Earth's speeds nor its morale hooks, since the chapter moves and W&C tests here."""

    name = "dark-age"
    aliases = ("dark-age-v0.1",)
    title = "Dark Age formations and movement + War & Conquest morale + 2mm Earth combat"
    #: the chapter's terrain (5.13, 5.14, 5.20); cover is 2mm Earth's chart 7.2
    chart_sections: ClassVar[Mapping[str, tuple[str, str]]] = {
        "move": ("Terrain", "5.13, 5.14, 5.20"),
        "cover": ("Cover", "7.2"),
    }
    #: the chapter's events and W&C's (each worded and drawn by itself); the rest are the
    #: core's. A "manoeuvre" reads back as the ordered one, whose ``by`` may be empty.
    events: ClassVar[tuple[type[Event], ...]] = (
        *TwoMmEarthWCMorale.events,
        da.Disorder,
        da.RangeHalt,
        da.CommandMoveRoll,
        da.Interpenetration,
        da.DisorderCleared,
        OrderedManoeuvre,
        ManoeuvreRefused,
        CommandFormationFormed,
        CommandFormationBroken,
        ClosedRanks,
        SkirmishFallBack,
        AimKept,
    )
    family = "dark-age"
    version = "0.1"
    phases = _phases()
    #: shock_of_charge in W&C's Resolution morale test, surrender after its flee moves
    special_rules = TwoMmEarthGame.special_rules | {
        SpecialRuleName.SHOCK_OF_CHARGE,
        SpecialRuleName.SURRENDER,
    }
    morale_states = TwoMmEarthWCMorale.morale_states
    terrain = TerrainTable(
        data_dir() / "codes" / "dark-age.csv", {"move": DarkAgeTerrain, "cover": CoverClass}
    )
    #: 5.13's steep hill slopes from the DEM (:func:`.terrain.steep_slopes`), drawn by the maps
    slope_bands = ((STEEP_SLOPE_DEG, "steep_slope"),)
    #: 2mm Earth 9.1 (the composition's messengers) through the chapter's terrain: a rider may
    #: not enter difficult ground (steep slopes among it) or soft sand off a road (5.13) nor
    #: impassable ground (5.14), and a major
    #: obstacle (5.20: rivers, fortifications) costs him half his move and 2 DPs: all three
    #: stand for 9.1's Impractical; Overhead is 2mm Earth's own cover column
    route_triple: ClassVar[Mapping[str, frozenset[str]]] = {
        "move": frozenset({"difficult", "major_obstacle", "impassable", "soft_sand"}),
        "cover": frozenset({"overhead"}),
    }
    composition: ClassVar[Composition] = Composition(
        "dark-age",
        {
            Part.TURN_SEQUENCE: TWO_MM_EARTH_V09,
            Part.MOVEMENT_AND_FORMATIONS: DARK_AGE_MOVEMENT,
            Part.COMBAT: TWO_MM_EARTH_V09,
            Part.MORALE_AND_COMMAND: WC_MORALE,
        },
        supplements={"disorder point effects": (TWO_MM_EARTH_V09, DP_EFFECTS)},
    )

    #: ``odds --dark-age-move TROOP`` (the 5.9 move roll)
    odds_questions: ClassVar[tuple[str, ...]] = ("da_troop",)
    odds_flags: ClassVar[tuple[OddsOption, ...]] = odds_report.ODDS_FLAGS

    def odds_report(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        from engine.rulesets.dark_age.odds_report import move_report

        return move_report(opts)

    def classify_slope(
        self, layers: dict[str, np.ndarray], slope: np.ndarray
    ) -> dict[str, np.ndarray]:
        """5.13: steep hill slopes are difficult terrain (:func:`.terrain.steep_slopes`)."""
        return {**layers, "move": steep_slopes(layers["move"], slope)}

    def resilience_modifier(self, ctx: Any, target: Any) -> int:
        """DP effects (:data:`DP_EFFECTS`): -1 R for a steady unit carrying DPs."""
        dp = getattr(ctx, "dps", {}).get(target.id)
        if dp is None or dp.total <= 0 or target.morale is not Morale.STEADY:
            return 0
        return DISORDERED_R

    def _move_rules(self) -> MoveRules:
        """Moves are rolled each bound: the bound's rules come from :class:`DarkAgeContext`."""

        def unrolled(f: Any) -> Any:
            raise RuntimeError(f"dark-age: {f.id} moved outside a DarkAgeContext's bound")

        return MoveRules(unrolled, RULES_M["min_move"], RULES_M["max_turn_deg"])

    #: no silent hooks (engine.testing.check_hooks): another answer changes the log's snapshots
    hook_checks: ClassVar[dict[str, Any]] = {
        **TwoMmEarthGame.hook_checks,
        "formation_record": lambda v: {**v, "dps": v["dps"] + 1},
    }

    def formation_record(self, ctx: BoundContext, formation: Any) -> dict[str, Any]:
        """Each formation's chapter formation (5.1-5.4: shieldwall, column, cuneus, unformed,
        single model) and its DPs so far (5.11-5.28), for the playback."""
        dps = getattr(ctx, "dps", {}).get(formation.id)
        if formation.removed:
            return {"formation_type": None, "dps": dps.total if dps is not None else 0}
        return {
            "formation_type": da.chapter_view(formation)[2].value,
            "dps": dps.total if dps is not None else 0,
        }

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["composition"] = self.composition.describe()
        out["scales"]["wc_inch_m"] = DARK_AGE_TABLE.ground_m_per_inch
        out["scales"]["javelin_throw_m"] = JAVELIN_THROW_M
        return out

    def new_context(self, **parts: Any) -> BoundContext:
        from engine.movement import update_contacts

        # walls are the chapter's major obstacles (5.20), not 2mm Earth's 8.3 sieges
        ctx = DarkAgeContext(**parts, has_walls=False)
        ctx.base_pairs = update_contacts(ctx.state)
        if ctx.scenario is not None:  # 5.5: formed at deployment (checked in prepare)
            ctx.command_formations = form_at_deployment(ctx.state, ctx.scenario, da.chapter_view)
        return ctx

    def prepare(self, state: BattleState, scenario: Scenario) -> None:
        """2mm Earth's deployment checks, then 5.5: the scenario's command formations must
        stand as one (units of one side in base contact, in the formation's shape); a broken
        one is a ScenarioFileError naming the file and line."""
        super().prepare(state, scenario)
        form_at_deployment(state, scenario, da.chapter_view)
        check_dismount_profiles(scenario, self)

    def start_bound(self, ctx: BoundContext) -> None:
        two_mm.start_bound(ctx)  # type: ignore[arg-type]
        ctx.rules = None  # type: ignore[attr-defined]
