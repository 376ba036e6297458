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

from dataclasses import dataclass
from typing import ClassVar, TypeVar

from engine import charts
from engine.charts import Temperament, UnitType
from engine.dice import Dice
from engine.resolution import (
    AttackResult,
    PanicResult,
    panic_test,
    rally_test,
    rally_test_v07,
    roll_attack,
    rout_test_v07,
    shooting_modifier,
)
from scenario_builder.errors import RulesetError

__all__ = [
    "MORALE_TRIGGERS_V09",
    "MoraleSituation",
    "MoraleTrigger",
    "Ruleset",
    "TwoMmEarthV07",
    "TwoMmEarthV09",
    "available_rulesets",
    "get_ruleset",
    "register",
]

DEFAULT_RULESET = "2mm-earth-v0.9"


@dataclass(frozen=True, slots=True)
class MoraleTrigger:
    """One row of the 10.2 table: a situation, what it makes a formation do, and how.

    ``effect`` is ``"panic_test"``, ``"retreat"`` or ``"rout"``; ``r_modifier`` applies to R in
    the panic test; ``temperaments`` limits the row to those troops (empty = everyone). A row
    limited to some temperaments replaces, for them, the general row of the same ``trigger``.
    ``at_best`` caps the test's result (11.1: "the best possible result being to continue
    retreat").
    """

    trigger: str
    effect: str
    text: str
    r_modifier: int = 0
    temperaments: tuple[str, ...] = ()
    at_best: str | None = None


_RR = ("rash", "reluctant")

#: 10.2 as data, in the rulebook's column order (panic test, must retreat, must rout), then the
#: 11.1 tests of retreating troops. v0.7 keeps this table (it swaps only the test itself).
MORALE_TRIGGERS_V09: tuple[MoraleTrigger, ...] = (
    MoraleTrigger(
        "front_rank_killed_in_bound",
        "panic_test",
        "Entire front rank killed in single bound (-1R in test)",
        -1,
    ),
    MoraleTrigger("character_killed", "panic_test", "Any character with them gets killed"),
    MoraleTrigger(
        "enemy_contact_flank", "panic_test", "Enemy gets into base contact on flank base"
    ),
    MoraleTrigger(
        "enemy_contact_rear",
        "panic_test",
        "Enemy gets into base contact on rear bases (-1R in test)",
        -1,
    ),
    MoraleTrigger(
        "friendly_rout_100_250m",
        "panic_test",
        "(Rash/Reluctant only) If friendly non-skirmishers rout within 100-250m",
        temperaments=_RR,
    ),
    MoraleTrigger(
        "killed_over_50pct_game", "panic_test", "MORE than 50% of bases killed throughout game"
    ),
    MoraleTrigger(
        "ordered_retreat", "retreat", "If ordered to retreat (Rash units roll die as 50% chance)"
    ),
    MoraleTrigger(
        "friendly_rout_100_250m", "retreat", "If friendly non-skirmishers rout within 100-250m"
    ),
    MoraleTrigger(
        "friendly_rout_0_100m",
        "retreat",
        "(Rash/Reluctant only) If friendly non-skirmishers rout within 0-100m",
        temperaments=_RR,
    ),
    MoraleTrigger(
        "killed_over_75pct_game", "retreat", "MORE than 75% of bases killed throughout game"
    ),
    MoraleTrigger(
        "killed_over_50pct_bound", "retreat", "MORE than 50% of bases killed in a single bound"
    ),
    MoraleTrigger("all_seen_friendlies_retreating", "retreat", "All seen friendlies retreating"),
    MoraleTrigger("friendly_rout_0_100m", "rout", "If friendly non-skirmishers rout within 0-100m"),
    MoraleTrigger(
        "killed_over_75pct_bound", "rout", "MORE than 75% of bases killed in a single bound"
    ),
    MoraleTrigger(
        "all_seen_friendlies_retreating_half_routing",
        "rout",
        "All seen friendlies retreating and 50% or more are routing",
    ),
    MoraleTrigger("push_split", "rout", 'Enemy "push" has separated formation in half (see 12.1)'),
    # 11.1, for formations already retreating
    MoraleTrigger(
        "retreating_touched",
        "panic_test",
        "Retreating troops who then touch (or are touched by) an enemy base",
        at_best="retreat",
    ),
    MoraleTrigger(
        "retreating_sees_broken",
        "panic_test",
        "Retreating troops who can see another retreating (or a routing) friendly unit",
        at_best="retreat",
    ),
)


@dataclass(frozen=True, slots=True)
class MoraleSituation:
    """Everything a morale test may need, so the engine can ask any ruleset the same way.

    ``context``: ``"idle"`` (not in combat), ``"shot"`` (being shot at) or ``"melee"`` (enemy
    contact). ``triggers`` are the 10.2 trigger names that called the test (their R modifiers
    apply in v0.9). ``state``: ``"steady"``, ``"retreating"`` or ``"routing"``.
    """

    melee_r: int
    ranged_r: int
    context: str = "idle"
    leadership: int = 0
    state: str = "steady"
    triggers: tuple[str, ...] = ()
    seen_fleeing: int = 0
    seen_routing: int = 0
    contact_sides: int = 0
    rear_contact: bool = False
    army_morale: bool = False
    at_best: str | None = None


R = TypeVar("R", bound="type[Ruleset]")

_REGISTRY: dict[str, type[Ruleset]] = {}
_ALIASES: dict[str, str] = {}
_INSTANCES: dict[str, Ruleset] = {}


class Ruleset:
    """Base of every ruleset. Subclasses set :attr:`name` and override what differs."""

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = ""
    #: how many dice one panic test rolls (the odds calculator enumerates them all)
    panic_dice: ClassVar[int] = 2
    morale_triggers: ClassVar[tuple[MoraleTrigger, ...]] = MORALE_TRIGGERS_V09
    messenger_rate_m: ClassVar[dict[str, float]] = charts.MESSENGER_RATE_M

    def __repr__(self) -> str:
        return f"<Ruleset {self.name}>"

    # charts ----------------------------------------------------------------------------------
    def speed_m(self, unit_type: UnitType | str, move_class: int) -> float | None:
        """Chart 7.3 (None = cannot travel)."""
        return charts.speed_m(unit_type, move_class)

    def cover_modifier(self, unit_type: UnitType | str, cover_class: int, kind: str) -> int:
        """Chart 7.2: change to R for the target's cover, ``kind`` ``"melee"``/``"ranged"``."""
        return charts.cover_modifier(unit_type, cover_class, kind)

    def order_needs_roll(self, temperament: Temperament | str, order: str) -> bool:
        return charts.order_needs_roll(temperament, order)

    def order_outcome(self, temperament: Temperament | str, order: str, die: int | None) -> str:
        """Chart 9.3."""
        return charts.order_outcome(temperament, order, die)

    def sight_limit_m(self, weather: str, time: str, local: bool) -> float | None:
        """6.3."""
        return charts.sight_limit_m(weather, time, local)

    def morale_effect(self, trigger: str, temperament: Temperament | str = "normal") -> str | None:
        """The 10.2 effect of ``trigger`` for troops of ``temperament``; None if not a trigger.

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
            if row.trigger != trigger:
                continue
            if not row.temperaments:
                general = row.effect
            elif str(temperament) in row.temperaments:
                return row.effect
        return general

    def morale_r_modifier(self, triggers: tuple[str, ...]) -> int:
        """Sum of the 10.2 "-1R in test" modifiers of the triggers that called the test."""
        return sum(
            row.r_modifier
            for row in self.morale_triggers
            if row.trigger in triggers and row.effect == "panic_test"
        )

    # combat ----------------------------------------------------------------------------------
    def roll_attack(
        self, dice: Dice, n_dice: int, resilience: int, modifier: int = 0, purpose: str = ""
    ) -> AttackResult:
        """2.2-2.3 attack dice (same in every 2mm Earth version)."""
        return roll_attack(dice, n_dice, resilience, modifier, purpose)

    def shooting_modifier(self, **kwargs: bool) -> int:
        """1.1 / 8.1 / 8.2 die penalties; see :func:`engine.resolution.shooting_modifier`."""
        return shooting_modifier(**kwargs)  # type: ignore[arg-type]

    # morale ----------------------------------------------------------------------------------
    def rally_test(
        self,
        dice: Dice,
        melee_r: int,
        ranged_r: int,
        leadership: int = 0,
        modifier: int = 0,
        purpose: str = "",
    ) -> PanicResult:
        """A character joins a routing formation: ``"retreat"`` (stops routing) or ``"rout"``."""
        raise NotImplementedError

    def panic_test(
        self,
        dice: Dice,
        resilience: int,
        leadership: int = 0,
        modifier: int = 0,
        routing: bool = False,
        purpose: str = "",
        **situation: object,
    ) -> PanicResult:
        """The ruleset's panic test; see :func:`engine.resolution.panic_test` for v0.9."""
        raise NotImplementedError

    def morale_test(self, dice: Dice, situation: MoraleSituation, purpose: str = "") -> PanicResult:
        """Run the panic test for a described situation, picking R and modifiers per the rules."""
        raise NotImplementedError


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


_STATE_R = {"steady": 0, "retreating": -1, "routing": -2}


def _state_modifier(state: str) -> int:
    try:
        return _STATE_R[state]
    except KeyError:
        raise ValueError(f"expected state one of {', '.join(_STATE_R)}, got {state!r}") from None


@register
class TwoMmEarthV09(Ruleset):
    """*Battle for 2mm Earth* v0.9, the default."""

    name = "2mm-earth-v0.9"
    aliases = ("2mm-earth", "2mm-earth-0.9")
    title = "Battle for 2mm Earth v0.9"
    panic_dice = 2

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
        **_ignored: object,
    ) -> PanicResult:
        """10.5. v0.7-only situation keywords (``seen_fleeing`` ...) are accepted and ignored:
        in v0.9 those situations are triggers (10.2), not roll modifiers."""
        return panic_test(dice, resilience, leadership, modifier, routing, purpose, at_best=at_best)

    def rally_test(
        self,
        dice: Dice,
        melee_r: int,
        ranged_r: int,
        leadership: int = 0,
        modifier: int = 0,
        purpose: str = "",
    ) -> PanicResult:
        """10.4; see :func:`engine.resolution.rally_test`."""
        return rally_test(dice, melee_r, ranged_r, leadership, modifier, purpose)

    def morale_test(self, dice: Dice, situation: MoraleSituation, purpose: str = "") -> PanicResult:
        """10.5: R by context (highest out of combat, ranged when shot, melee in contact), less
        the 10.2 trigger modifiers and 11.1 state (-1 retreating, -2 routing).

        >>> from engine.dice import ScriptedDice
        >>> s = MoraleSituation(4, 3, context="melee", triggers=("enemy_contact_rear",))
        >>> get_ruleset().morale_test(ScriptedDice([3, 5]), s).outcome   # 3 vs R4-1
        'retreat'
        """
        s = situation
        if s.context == "melee":
            r = s.melee_r
        elif s.context == "shot":
            r = s.ranged_r
        elif s.context == "idle":
            r = max(s.melee_r, s.ranged_r)
        else:
            raise ValueError(f"expected context idle, shot or melee, got {s.context!r}")
        modifier = self.morale_r_modifier(s.triggers) + _state_modifier(s.state)
        return panic_test(
            dice, r, s.leadership, modifier, s.state == "routing", purpose, at_best=s.at_best
        )


@register
class TwoMmEarthV07(TwoMmEarthV09):
    """*Battle for 2mm Earth* v0.7's morale (5.2 rout test, 9.1 army morale) on v0.9's rules."""

    name = "2mm-earth-v0.7"
    aliases = ("2mm-earth-0.7",)
    title = "Battle for 2mm Earth v0.7"
    panic_dice = 1

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
        """5.2 rout test / 9.1 army morale; see :func:`engine.resolution.rout_test_v07`."""
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

    def rally_test(
        self,
        dice: Dice,
        melee_r: int,
        ranged_r: int,
        leadership: int = 0,
        modifier: int = 0,
        purpose: str = "",
    ) -> PanicResult:
        """5.5; see :func:`engine.resolution.rally_test_v07`."""
        return rally_test_v07(dice, melee_r, ranged_r, leadership, modifier, purpose)

    def morale_test(self, dice: Dice, situation: MoraleSituation, purpose: str = "") -> PanicResult:
        """5.2 / 9.1: the lowest of the two R, 5.3 state loss, the situation's die modifiers.

        >>> from engine.dice import ScriptedDice
        >>> s = MoraleSituation(6, 2, contact_sides=1, leadership=2)
        >>> get_ruleset("2mm-earth-v0.7").morale_test(ScriptedDice([3]), s).outcome  # 3+1-2 < 3
        'none'
        """
        s = situation
        return rout_test_v07(
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
