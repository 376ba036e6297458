"""The command layer every ruleset shares: a side's plan read into per-formation intents
(:mod:`engine.command.plan`), the intents themselves (:mod:`engine.command.intent`) and the
enemy questions a commander asks (:mod:`engine.command.enemies`). A ruleset turns intents into
its own orders (2mm Earth: ``two_mm_earth.commanders``; medieval-d10: its turn's orders)."""

from engine.command.enemies import Enemies, gap
from engine.command.intent import Intent, IntentKind, IntentOrigin
from engine.command.plan import PlanReader

__all__ = ["Enemies", "Intent", "IntentKind", "IntentOrigin", "PlanReader", "gap"]
