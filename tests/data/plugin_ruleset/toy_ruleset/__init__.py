"""A toy ruleset: 2mm Earth v0.9 under another name, to show a rulebook living in a package of
its own (docs/rulesets.md). A real one would subclass ``engine.rulesets.Ruleset`` (or a
shipped game) and change its phases, charts and hooks."""

from __future__ import annotations

from engine.rulesets.two_mm_earth.rulesets import TwoMmEarthV09

__all__ = ["ToyRuleset"]


class ToyRuleset(TwoMmEarthV09):
    """2mm Earth v0.9, installed as a plug-in."""

    name = "toy-2mm-plugin"
    aliases = ()
    title = "Toy plug-in ruleset (2mm Earth v0.9)"
