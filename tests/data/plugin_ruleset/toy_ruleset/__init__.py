"""A toy ruleset: 2mm Earth v0.9 under another name, to show a rulebook living in a package of
its own (docs/rulesets.md). A real one would subclass ``engine.rulesets.Ruleset`` (or a
shipped game) and change its phases, charts and hooks."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, ClassVar

from engine.odds_options import OddsOption, OptionKind, frac
from engine.rulesets.two_mm_earth.rulesets import TwoMmEarthV09

__all__ = ["ToyRuleset"]


class ToyRuleset(TwoMmEarthV09):
    """2mm Earth v0.9, installed as a plug-in."""

    name = "toy-2mm-plugin"
    aliases = ()
    title = "Toy plug-in ruleset (2mm Earth v0.9)"
    # a question of its own for ``scenario-builder odds``, with its option: the command
    # builds its options from every book's, so the plug-in's appears there too
    odds_questions: ClassVar[tuple[str, ...]] = (*TwoMmEarthV09.odds_questions, "toy_need")
    odds_flags: ClassVar[tuple[OddsOption, ...]] = (
        *TwoMmEarthV09.odds_flags,
        OddsOption(
            "toy_need", ("--toy-need",), "toy: P(d6 >= N), 1..6.", OptionKind.INT, bounds=(1, 6)
        ),
    )

    def odds_report(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        if opts["toy_need"] is None:
            return super().odds_report(opts)
        p = Fraction(7 - opts["toy_need"], 6)
        return {"mode": "toy-need", "need": opts["toy_need"], "p": float(p), "fraction": frac(p)}
