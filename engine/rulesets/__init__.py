"""Rulesets as registered, versioned classes found by name (python-chess variants style).

>>> get_ruleset("2mm-earth").name
'2mm-earth-v0.9'
>>> available_rulesets()
['2mm-earth-v0.7', '2mm-earth-v0.9', '2mm-earth-v0.9+wc-morale', 'dark-age', 'medieval-d10']
>>> try:
...     get_ruleset("nonesuch")
... except RulesetError as exc:
...     print(exc)
unknown ruleset 'nonesuch'; expected one of 2mm-earth-v0.7, 2mm-earth-v0.9, \
2mm-earth-v0.9+wc-morale, dark-age, medieval-d10

A ruleset owns its game (docs/architecture.md, "The ruleset seam"): its phases, die, scales,
terrain classes (through its own code table over the battlefield's feature layer), unit model,
morale states, orders and their delivery, and its sight rules. The engine's core (state,
geometry, dice, log, sight and movement mechanics, the battle loop, scenario loading) asks the
ruleset for all of them and never imports a ruleset's folder. Rulesets hold no state;
:func:`get_ruleset` returns one shared instance per class.

Change log (a scenario names its ruleset, so old files keep replaying the same way):

- ``2mm-earth-v0.9`` (default; aliases ``2mm-earth``, ``2mm-earth-0.9``): *Battle for 2mm Earth*
  v0.9. Panic test 10.5 (two dice, keep the lower, -L unless routing; lower than R nothing,
  equal retreat, higher rout); triggers 10.2; charts 7.2 / 7.3; orders 9.3; messengers 9.2.
- ``2mm-earth-v0.7`` (alias ``2mm-earth-0.7``): *Battle for 2mm Earth* v0.7 as its own book
  (``two_mm_earth/v07.py``): its bound adds a 9.1 army-morale phase before the moves are
  planned (one die on the actual lowest R, -2, equal or one more flees, for each friend first
  seen fleeing or routing); the rout test 5.2 (one die against the lowest R limited to 3..5,
  +1 per friend seen fleeing, +2 per friend routing, +1 per side in enemy contact, +2 rear,
  -L; more routs, equal flees); 5.1 fleeing (by choice, or forced by more than half killed in
  a bound; a blocked flee routs if forced, tests if by choice); 5.3 routers destroyed at once
  on touching an enemy or impractical ground; 5.5 a rout stops only when a Character joins.
  No 10.2 table (its own ``MORALE_TRIGGERS_V07``), no 9.3 order chart, no messengers (orders
  are the player's plans, obeyed the bound they are made), no automatic pursuit. v0.7's
  "flee" is the engine's "retreat". Its charts (8.2 / 8.3) are v0.9's 7.2 / 7.3, shared.
- ``2mm-earth-v0.9+wc-morale`` (alias ``2mm-earth+wc-morale``): composed
  (:mod:`engine.rulesets.compose`): v0.9's bound, movement and combat; War & Conquest's morale
  and command (Resolution and End phases: 2d6 or 3d6 keep the two lowest against MV, Hero of the
  Day, flee/pursuit roll-off, rally at -1 per enemy within 10", last chance, the General's 10"
  zone) in place of 10.x / 11.x. Inches at 25.4 m.
- ``dark-age`` (alias ``dark-age-v0.1``): composed: the Dark Age formations and movement chapter
  (rolled moves in 25 m javelin throws, DPs, its terrain table), v0.9's bound and combat,
  War & Conquest's morale and command.
- ``medieval-d10`` (alias ``medieval``): the medieval d10 quick reference
  (``engine/rulesets/medieval_d10/``): units of figures, a d10 per five figures against armour
  grade, its 15-phase game turn (the book's phases 1-13, 15, 16), morale and control tests with
  their result tables, its own terrain table and troop lists (``data/troops/medieval/``).
"""

from __future__ import annotations

from engine.seam import (
    _ALIASES,
    _INSTANCES,
    _REGISTRY,
    Phase,
    Ruleset,
    Scales,
    check_playable,
    register,
    unregister,
)
from scenario_builder.errors import RulesetError

__all__ = [
    "DEFAULT_RULESET",
    "PLUGIN_GROUP",
    "Phase",
    "Ruleset",
    "Scales",
    "available_rulesets",
    "check_playable",
    "get_ruleset",
    "load_plugins",
    "odds_rulesets",
    "register",
    "unregister",
]

DEFAULT_RULESET = "2mm-earth-v0.9"

#: the entry-point group a rulebook packaged on its own registers under (docs/rulesets.md)
PLUGIN_GROUP = "scenario_builder.rulesets"
_plugins_loaded = False


def load_plugins() -> list[str]:
    """Load the rulesets installed packages offer in :data:`PLUGIN_GROUP` (once; the shipped
    ones are registered on import). An entry point names a module that registers its classes
    with :func:`register`, or a Ruleset class, registered here. One that fails to load is
    left out with a one-line warning naming it, so a broken plug-in never stops the tool.
    Returns the warnings (for tests)."""
    global _plugins_loaded
    if _plugins_loaded:
        return []
    _plugins_loaded = True
    import warnings
    from importlib.metadata import entry_points

    said: list[str] = []
    for ep in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        try:
            obj = ep.load()
            if isinstance(obj, type) and issubclass(obj, Ruleset) and obj.name not in _REGISTRY:
                register(obj)
        except Exception as exc:  # a third party's code: any failure leaves it out
            msg = (
                f"ruleset plug-in {ep.name!r} ({ep.value}) not loaded: {type(exc).__name__}: {exc}"
            )
            said.append(msg)
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
    return said


def available_rulesets() -> list[str]:
    """Canonical names of every registered ruleset (plug-ins included), sorted."""
    load_plugins()
    return sorted(_REGISTRY)


def odds_rulesets() -> list[Ruleset]:
    """Every registered ruleset that answers ``odds`` questions (:attr:`Ruleset.odds_questions`),
    by name."""
    return [get_ruleset(n) for n in available_rulesets() if _REGISTRY[n].odds_questions]


def get_ruleset(name: str | None = None) -> Ruleset:
    """The ruleset called ``name`` (or an alias); ``None`` is the default, v0.9."""
    key = DEFAULT_RULESET if name is None else _ALIASES.get(name, name)
    if key not in _REGISTRY:
        load_plugins()
        key = _ALIASES.get(key, key)
    cls = _REGISTRY.get(key)
    if cls is None:
        raise RulesetError(
            None, f"unknown ruleset {name!r}; expected one of {', '.join(available_rulesets())}"
        )
    if key not in _INSTANCES:
        _INSTANCES[key] = cls()
    return _INSTANCES[key]


# the shipped rulesets register themselves on import (after the registry above exists)
from engine.rulesets import medieval_d10 as _medieval_d10  # noqa: E402, F401
from engine.rulesets import two_mm_earth as _two_mm_earth  # noqa: E402, F401
from engine.rulesets.dark_age import rulesets as _dark_age_rulesets  # noqa: E402, F401
from engine.rulesets.war_and_conquest import rulesets as _wc_rulesets  # noqa: E402, F401
