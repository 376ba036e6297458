"""Rulesets assembled from modules: which book each part of a game comes from.

A rulebook seed may be a whole game (2mm Earth) or one chapter of one (the Dark Age formations
and movement chapter; War & Conquest's morale and command). A composed ruleset names, for each
:class:`Part` of a game, the :class:`Module` that plays it and the book that module implements;
a part a seed lacks must come from a named complete game, so nothing is filled in silently.

>>> c = Composition("2mm-earth-v0.9+wc-morale", {
...     Part.TURN_SEQUENCE: TWO_MM_EARTH_V09, Part.MOVEMENT_AND_FORMATIONS: TWO_MM_EARTH_V09,
...     Part.COMBAT: TWO_MM_EARTH_V09, Part.MORALE_AND_COMMAND: WC_MORALE})
>>> c.books()["morale and command"]
'War & Conquest (resolution, morale and command tests)'
>>> c.filled_from_complete_game()
['turn sequence', 'movement and formations', 'combat']
>>> Composition("x", {Part.COMBAT: WC_MORALE})
Traceback (most recent call last):
...
scenario_builder.errors.RulesetError: x: module wc-morale plays morale and command, not combat
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from scenario_builder.errors import RulesetError

__all__ = [
    "DARK_AGE_MOVEMENT",
    "TWO_MM_EARTH_V09",
    "WC_MORALE",
    "Composition",
    "Module",
    "Part",
]


class Part(enum.Enum):
    """The parts of a game a composed ruleset must fill."""

    TURN_SEQUENCE = "turn sequence"
    MOVEMENT_AND_FORMATIONS = "movement and formations"
    COMBAT = "combat"
    MORALE_AND_COMMAND = "morale and command"


@dataclass(frozen=True)
class Module:
    """A module: what it plays, the book it implements (title and seed file), whether that book
    is a complete game, and the code that implements it."""

    name: str
    parts: frozenset[Part]
    book: str
    seed: str
    complete_game: bool
    code: str

    def __post_init__(self) -> None:
        if not self.parts:
            raise RulesetError(f"module {self.name} plays no part")


TWO_MM_EARTH_V09 = Module(
    "2mm-earth-v0.9",
    frozenset(Part),
    "Battle for 2mm Earth v0.9",
    "000_0c8039cfa3bb8dc6.txt",
    complete_game=True,
    code="engine.rulesets.two_mm_earth",
)
WC_MORALE = Module(
    "wc-morale",
    frozenset({Part.MORALE_AND_COMMAND}),
    "War & Conquest (resolution, morale and command tests)",
    "004_3e419fecf92d7f8f.txt",
    complete_game=False,
    code="engine.rulesets.war_and_conquest",
)
DARK_AGE_MOVEMENT = Module(
    "dark-age-movement",
    frozenset({Part.MOVEMENT_AND_FORMATIONS}),
    "Dark Age ruleset, chapter 5: formations and movement",
    "003_e8e36df29227b52b.txt",
    complete_game=False,
    code="engine.rulesets.dark_age",
)


@dataclass(frozen=True)
class Composition:
    """Every :class:`Part` filled by a module that plays it.

    >>> Composition("y", {Part.COMBAT: TWO_MM_EARTH_V09})
    Traceback (most recent call last):
    ...
    scenario_builder.errors.RulesetError: y: no module for turn sequence, movement and \
formations, morale and command; a part a seed lacks must come from a named complete game
    """

    name: str
    modules: Mapping[Part, Module] = field(default_factory=dict)
    #: rules a seed refers to but lacks, inside a part it plays, taken from a named complete
    #: game: what -> (the module that supplies it, which of its rules)
    supplements: Mapping[str, tuple[Module, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for part, module in self.modules.items():
            if part not in module.parts:
                raise RulesetError(
                    f"{self.name}: module {module.name} plays "
                    f"{', '.join(sorted(p.value for p in module.parts))}, not {part.value}"
                )
        missing = [p.value for p in Part if p not in self.modules]
        if missing:
            raise RulesetError(
                f"{self.name}: no module for {', '.join(missing)}; a part a seed lacks must "
                "come from a named complete game"
            )
        for what, (module, _rule) in self.supplements.items():
            if not module.complete_game:
                raise RulesetError(
                    f"{self.name}: {what} must come from a named complete game, not {module.name}"
                )
        object.__setattr__(self, "modules", MappingProxyType(dict(self.modules)))
        object.__setattr__(self, "supplements", MappingProxyType(dict(self.supplements)))

    def books(self) -> dict[str, str]:
        """Part -> book, in the order of :class:`Part` (what ``scenario-builder rulesets``
        prints)."""
        return {p.value: self.modules[p].book for p in Part}

    def filled_from_complete_game(self) -> list[str]:
        """The parts played by a complete game's module (the chapters a seed lacks, or the
        parts the composition keeps from its base game)."""
        return [p.value for p in Part if self.modules[p].complete_game]

    def describe(self) -> list[dict[str, str]]:
        """One row per part, then one per supplement (its book names the rule taken)."""
        rows = [
            {
                "part": p.value,
                "module": self.modules[p].name,
                "book": self.modules[p].book,
                "seed": self.modules[p].seed,
                "code": self.modules[p].code,
            }
            for p in Part
        ]
        return rows + [
            {
                "part": what,
                "module": module.name,
                "book": f"{module.book}: {rule}",
                "seed": module.seed,
                "code": module.code,
            }
            for what, (module, rule) in self.supplements.items()
        ]
