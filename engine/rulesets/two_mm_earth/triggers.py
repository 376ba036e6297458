"""10.2 as data (:class:`MoraleTrigger` rows) and the situation a morale test is asked about."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MORALE_TRIGGERS_V07", "MORALE_TRIGGERS_V09", "MoraleSituation", "MoraleTrigger"]


@dataclass(frozen=True, slots=True)
class MoraleTrigger:
    """One row of the 10.2 table: a situation, what it makes a formation do, and how.

    ``effect`` is ``"panic_test"``, ``"retreat"`` or ``"rout"``; ``r_modifier`` applies to R in
    the panic test; ``temperaments`` limits the row to those troops (empty = everyone). A row
    limited to some temperaments replaces, for them, the general row of the same ``trigger``.
    ``at_best`` caps the test's result (11.1: "the best possible result being to continue
    retreat"). ``states`` limits the row to formations in those morale states (``"steady"``,
    ``"retreating"``; empty = any): v0.7 5.3 tests only *fleeing* troops whose character dies.
    A trigger with no row in a ruleset's table does nothing under that ruleset.
    """

    trigger: str
    effect: str
    text: str
    r_modifier: int = 0
    temperaments: tuple[str, ...] = ()
    at_best: str | None = None
    states: tuple[str, ...] = ()


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
    # a reading (docs/rules-interpretations.md, "Readiness"): 10.5 "Some situations
    # will decrease your Resilience for testing purposes, see 10.2"; 10.2's two such rows (front
    # rank killed, enemy on the rear bases) are troops taken where they cannot stand as formed.
    # Troops caught before they have formed for battle (engine.readiness) are the same case. It
    # never calls a test itself: it is added to a test another row called.
    MoraleTrigger(
        "caught_unready",
        "panic_test",
        "(reading of 10.5 / 10.2) caught in camp, asleep, on the march or forming up (-1R in test)",
        -1,
    ),
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


#: v0.7's own morale table: it has no 10.2 chart. Its tests come from 5.1 (must flee; a blocked
#: flee), 5.3 (fleeing troops touched, losing their character, seeing broken friends) and 9.1
#: (seeing a friend flee or rout; v0.7 ruleset's ``army_morale`` phase). Everything else v0.9's
#: table lists (flank/rear contact, front rank killed, losses over the game, friends routing
#: near by) calls no test in v0.7: contact only adds to a rout test's die (5.2). v0.7's "flee"
#: is the engine's retreat; "rout test" its panic test (``TwoMmEarthV07.morale_test``).
MORALE_TRIGGERS_V07: tuple[MoraleTrigger, ...] = (
    MoraleTrigger(
        "killed_over_50pct_bound",
        "retreat",
        "5.1 fleeing MUST be planned if MORE than 50% of their bases have been killed "
        "in a single bound",
    ),
    # more than 75 % is more than 50 % (the engine names the larger share only)
    MoraleTrigger(
        "killed_over_75pct_bound",
        "retreat",
        "5.1 fleeing MUST be planned if MORE than 50% of their bases have been killed "
        "in a single bound",
    ),
    MoraleTrigger(
        "flee_blocked",
        "rout",
        "5.1 Fleeing troops who cannot move away without contacting an enemy base, but "
        "are being forced to flee ... will automatically ROUT",
    ),
    MoraleTrigger(
        "flee_blocked_by_choice",
        "panic_test",
        "5.1 If they were trying to flee as an option, they must take a Rout test",
    ),
    MoraleTrigger(
        "retreating_touched",
        "panic_test",
        "5.3 Fleeing troops who then touch (or are touched by) an enemy base "
        "immediately take a rout test",
        at_best="retreat",
    ),
    MoraleTrigger(
        "character_killed",
        "panic_test",
        "5.3 Fleeing troops whose character is killed immediately take a rout test",
        at_best="retreat",
        states=("retreating",),
    ),
    MoraleTrigger(
        "retreating_sees_broken",
        "panic_test",
        "5.3 Fleeing troops who can see another fleeing (or a routing) friendly unit "
        "must immediately take a rout test",
        at_best="retreat",
    ),
    MoraleTrigger(
        "friendly_seen_broken",
        "panic_test",
        "9.1 Any Formation who can see a friendly formation fleeing/routing take an "
        "ordinary rout test",
        states=("steady",),
    ),
)


@dataclass(frozen=True, slots=True)
class MoraleSituation:
    """Everything a morale test may need, so the engine can ask any ruleset the same way.

    ``context``: ``"idle"`` (not in combat), ``"shot"`` (being shot at) or ``"melee"`` (enemy
    contact). ``triggers`` are the 10.2 trigger names that called the test (their R modifiers
    apply in v0.9). ``state``: ``"steady"``, ``"retreating"`` or ``"routing"``.
    ``seen_fleeing`` / ``seen_routing``: the broken friends the formation sees or hears (v0.7
    5.2 / 9.1); left 0 for a ruleset whose test does not read them
    (``TwoMmEarth.morale_reads_seen_friends``: v0.9).
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
