"""``2mm-earth-v0.9+wc-morale``: *Battle for 2mm Earth* v0.9 with War & Conquest's morale and
command in place of its own army morale, pursuit and rallying (10.x, 11.1-11.2).

The bound is 2mm Earth's up to melee damage; then W&C's Resolution phase (morale tests, then
pursuit and flee roll-offs) and End phase (rally, last chance to stand, dispersal). W&C's inches
are ground metres at 2mm Earth's scale (1 mm = 1 m: 1" = 25.4 m).

>>> from engine.rulesets import get_ruleset
>>> rs = get_ruleset("2mm-earth-v0.9+wc-morale")
>>> [p.name for p in rs.phases][-3:]
['melee_damage', 'resolution', 'end']
>>> rs.describe()["composition"][3]["book"]
'War & Conquest (resolution, morale and command tests)'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from engine.context import BoundContext
from engine.log import Event
from engine.odds_options import OddsOption
from engine.rulesets import Phase, register
from engine.rulesets.compose import TWO_MM_EARTH_V09, WC_MORALE, Composition, Part
from engine.rulesets.two_mm_earth import phases as two_mm
from engine.rulesets.two_mm_earth.context import TwoMmContext
from engine.rulesets.two_mm_earth.rulesets import TwoMmEarthMoves
from engine.rulesets.war_and_conquest import battle as wc
from engine.rulesets.war_and_conquest import odds_report
from engine.rulesets.war_and_conquest.morale import TWO_MM_EARTH, TableScale
from engine.special_rules import SpecialRuleName
from engine.state import Morale

__all__ = ["TwoMmEarthWCMorale", "wc_phases"]


def wc_phases(scale: TableScale) -> tuple[Phase[TwoMmContext], ...]:
    """2mm Earth's bound to melee damage, then W&C's Resolution and End phases at ``scale``.

    The orders phase first ends the disorder of units that rallied (or that friends fled
    through) last turn ("disordered until the start of their next round of play"), makes the
    first turn's Strategy Roll (later ones are End Phase 4's), and takes chart 9.3's order rolls
    as W&C Command Tests. The melee notes who fought whom, for the Resolution phase's combat
    results (:func:`.battle.record_fought`). The host's move phase moves fleeing troops by
    W&C's flee move (through friends, :func:`.battle.flee_move`)."""

    def orders(ctx: TwoMmContext) -> None:
        wc.notes(ctx, scale)  # W&C's notes, and its flee move in the host's move phase
        ctx.emit(wc.start_round(ctx, "orders"))
        if wc.notes(ctx, scale).order_bound != ctx.state.bound:  # the first turn's roll
            ctx.emit(wc.strategy_roll(ctx, ctx.state.bound, "orders"))
        # chart 9.3's order rolls taken as W&C Command Tests
        two_mm.phase_orders(ctx, receive=wc.receive_order(ctx, scale))

    def melee(ctx: TwoMmContext) -> None:
        wc.record_fought(ctx)  # the combat results are judged from who fought whom
        two_mm.phase_melee(ctx)

    def resolution(ctx: TwoMmContext) -> None:
        ctx.emit(wc.resolution_phase(ctx, scale, "resolution"))

    def end(ctx: TwoMmContext) -> None:
        ctx.emit(wc.end_phase(ctx, scale, "end"))

    host = [
        Phase("melee", melee) if p.name == "melee" else p
        for p in two_mm.SEQUENCE
        if p.name not in ("orders", "morale", "pursuit", "rally")
    ]
    return (Phase("orders", orders), *host, Phase("resolution", resolution), Phase("end", end))


@register
class TwoMmEarthWCMorale(TwoMmEarthMoves):
    """2mm Earth v0.9 with War & Conquest's morale and command module: 2mm Earth's game and
    speeds (:class:`TwoMmEarthMoves`), none of its morale hooks (W&C's phases read none)."""

    name = "2mm-earth-v0.9+wc-morale"
    aliases = ("2mm-earth+wc-morale",)
    title = "Battle for 2mm Earth v0.9 + War & Conquest morale and command"
    family = "2mm-earth"
    version = "0.9+wc-morale"
    phases = wc_phases(TWO_MM_EARTH)
    #: W&C's own events (worded and drawn by themselves); the rest are the core's
    events: ClassVar[tuple[type[Event], ...]] = (wc.WCTest, wc.StrategyRoll)
    #: shock_of_charge in W&C's own Resolution morale test, surrender after its flee moves
    #: and the host's (war_and_conquest.battle, docs/special-rules.md)
    special_rules = TwoMmEarthMoves.special_rules | {
        SpecialRuleName.SHOCK_OF_CHARGE,
        SpecialRuleName.SURRENDER,
    }
    morale_states: ClassVar[Any] = {
        Morale.STEADY: "in good order",
        Morale.RETREATING: "rallied, disordered until its next round",
        Morale.ROUTING: "fleeing",
        Morale.DESTROYED: "destroyed or dispersed",
    }
    composition: ClassVar[Composition] = Composition(
        "2mm-earth-v0.9+wc-morale",
        {
            Part.TURN_SEQUENCE: TWO_MM_EARTH_V09,
            Part.MOVEMENT_AND_FORMATIONS: TWO_MM_EARTH_V09,
            Part.COMBAT: TWO_MM_EARTH_V09,
            Part.MORALE_AND_COMMAND: WC_MORALE,
        },
    )

    #: ``odds --wc-morale MV`` (the morale and command tests) and ``odds --flee-pursuit``
    odds_questions: ClassVar[tuple[str, ...]] = ("wc_mv", "flee_pursuit")
    odds_flags: ClassVar[tuple[OddsOption, ...]] = odds_report.ODDS_FLAGS

    def odds_report(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        from engine.rulesets.war_and_conquest.odds_report import wc_report

        return wc_report(opts)

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["composition"] = self.composition.describe()
        out["scales"]["wc_inch_m"] = TWO_MM_EARTH.ground_m_per_inch
        return out

    def start_bound(self, ctx: BoundContext) -> None:
        two_mm.start_bound(ctx)  # type: ignore[arg-type]
