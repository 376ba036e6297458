"""``scenario-builder odds`` for War & Conquest's morale and command: ``--wc-morale MV`` (a
morale or command test against a modified MV, exact over every face) and ``--flee-pursuit``
(the flee/pursuit roll-off, :mod:`engine.rulesets.war_and_conquest.odds`). The composed
ruleset's :meth:`odds_report` answers with these.
"""

from __future__ import annotations

from typing import Any

from engine.odds_options import OddsOption, OddsOptions, OptionKind, frac

__all__ = ["ODDS_FLAGS", "wc_report"]

#: ``odds --wc-morale MV`` (the morale and command tests) and ``odds --flee-pursuit``
ODDS_FLAGS: tuple[OddsOption, ...] = (
    OddsOption(
        "wc_mv",
        ("--wc-morale",),
        "War & Conquest morale/command test against this (modified) MV, -2..14.",
        OptionKind.INT,
        metavar="MV",
        bounds=(-2, 14),
    ),
    OddsOption(
        "flee_pursuit",
        ("--flee-pursuit",),
        "W&C: a fleeing unit caught (<= pursuer).",
        OptionKind.FLAG,
    ),
)


def wc_report(opts: OddsOptions) -> dict[str, Any]:
    """``--wc-morale MV`` or ``--flee-pursuit``, whichever ``opts`` asks."""
    if opts["wc_mv"] is not None:
        from engine.rulesets.war_and_conquest.morale import DiceMethod, Discipline
        from engine.rulesets.war_and_conquest.odds import command_pass_chance, morale_pass_chance

        mv = opts["wc_mv"]
        rows = {}
        methods = (
            (DiceMethod.TWO_D6, "2d6"),
            (DiceMethod.THREE_D6_KEEP_TWO_LOWEST, "3d6 keep two lowest"),
        )
        for method, label in methods:
            p = morale_pass_chance(mv, method)
            hero = morale_pass_chance(mv, method, combat=True)
            drilled = command_pass_chance(mv, method, Discipline.DRILLED)
            rows[label] = {
                "pass": frac(p),
                "p": float(p),
                "combat_with_hero_of_the_day": frac(hero),
                "drilled_command_test": frac(drilled),
            }
        return {"mode": "wc-morale", "mv": mv, "tests": rows}
    from engine.rulesets.war_and_conquest.odds import flee_destroyed_chance

    p = flee_destroyed_chance()
    return {"mode": "flee-pursuit", "dice": "2d6 v 2d6", "destroyed": frac(p), "p": float(p)}
