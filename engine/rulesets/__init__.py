"""Rulesets as registered, versioned classes found by name (python-chess variants style).

>>> get_ruleset("2mm-earth").name
'2mm-earth-v0.9'
>>> available_rulesets()
['2mm-earth-v0.7', '2mm-earth-v0.9']
>>> try:
...     get_ruleset("nonesuch")
... except RulesetError as exc:
...     print(exc)
unknown ruleset 'nonesuch'; expected one of 2mm-earth-v0.7, 2mm-earth-v0.9

A ruleset bundles what differs between rule versions: the morale tests, the charts, the 10.2
triggers. Rulesets hold no state; :func:`get_ruleset` returns one shared instance per class.

Change log (a scenario names its ruleset, so old files keep replaying the same way):

- ``2mm-earth-v0.9`` (default; aliases ``2mm-earth``, ``2mm-earth-0.9``): *Battle for 2mm Earth*
  v0.9. Panic test 10.5 (two dice, keep the lower, -L unless routing; lower than R nothing,
  equal retreat, higher rout); triggers 10.2; charts 7.2 / 7.3; orders 9.3; messengers 9.2.
- ``2mm-earth-v0.7`` (alias ``2mm-earth-0.7``): v0.7's morale in place of v0.9's - the rout
  test 5.2 (one die against the lowest R limited to 3..5, +1 per friend seen fleeing, +2 per
  friend routing, +1 per side in enemy contact, +2 rear, -L; more routs, equal flees) and army
  morale 9.1 (actual R, -2, equal or one more flees). v0.7's "flee" is the engine's "retreat".
  Its charts (8.2 / 8.3) are the same as v0.9's 7.2 / 7.3; the rest is shared with v0.9.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from scenario_builder.errors import RulesetError

__all__ = ["DEFAULT_RULESET", "Ruleset", "available_rulesets", "get_ruleset", "register"]

DEFAULT_RULESET = "2mm-earth-v0.9"


class Ruleset:
    """Base of every ruleset. Subclasses set :attr:`name` and override what differs."""

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = ""

    def __repr__(self) -> str:
        return f"<Ruleset {self.name}>"


R = TypeVar("R", bound="type[Ruleset]")

_REGISTRY: dict[str, type[Ruleset]] = {}
_ALIASES: dict[str, str] = {}
_INSTANCES: dict[str, Ruleset] = {}


def register(cls: R) -> R:
    """Class decorator: add a ruleset to the registry under its name and aliases."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    for key in (cls.name, *cls.aliases):
        if key in _REGISTRY or key in _ALIASES:
            raise ValueError(f"ruleset name {key!r} registered twice")
    _REGISTRY[cls.name] = cls
    for alias in cls.aliases:
        _ALIASES[alias] = cls.name
    return cls


def available_rulesets() -> list[str]:
    """Canonical names of every registered ruleset, sorted."""
    return sorted(_REGISTRY)


def get_ruleset(name: str | None = None) -> Ruleset:
    """The ruleset called ``name`` (or an alias); ``None`` is the default, v0.9."""
    key = DEFAULT_RULESET if name is None else _ALIASES.get(name, name)
    cls = _REGISTRY.get(key)
    if cls is None:
        raise RulesetError(
            None, f"unknown ruleset {name!r}; expected one of {', '.join(available_rulesets())}"
        )
    if key not in _INSTANCES:
        _INSTANCES[key] = cls()
    return _INSTANCES[key]


# the shipped rulesets register themselves on import (after the registry above exists)
from engine.rulesets import two_mm_earth as _two_mm_earth  # noqa: E402, F401
