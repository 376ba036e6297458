"""``scenario-builder odds --dark-age-move TROOP``: a Dark Age move roll (5.9) for a troop,
grade and formation, normal or fast, in the open or difficult terrain (5.13), exact over every
face (:mod:`engine.rulesets.dark_age.odds`). The ruleset's :meth:`odds_report` answers with it.
"""

from __future__ import annotations

from typing import Any

from engine.odds_options import OddsOption, OddsOptions, OptionKind, fail, frac

__all__ = ["ODDS_FLAGS", "move_report"]

#: ``odds --dark-age-move TROOP`` (the 5.9 move roll) and what it is rolled for
ODDS_FLAGS: tuple[OddsOption, ...] = (
    OddsOption("da_troop", ("--dark-age-move",), "Dark Age move roll (5.9).", metavar="TROOP"),
    OddsOption("grade", ("--grade",), "Dark Age grade A|B|C.", default="B", show_default=True),
    OddsOption(
        "da_formation",
        ("--formation",),
        "Dark Age formation: unformed|shieldwall|column|cuneus|single_model.",
        default="shieldwall",
        show_default=True,
    ),
    OddsOption(
        "fast", ("--fast",), "Dark Age fast move (charge, evade, rout...).", OptionKind.FLAG
    ),
    OddsOption(
        "difficult", ("--difficult",), "Dark Age move in difficult terrain (5.13).", OptionKind.FLAG
    ),
)


def move_report(opts: OddsOptions) -> dict[str, Any]:
    from engine.rulesets.dark_age.formations import Formation, Grade, Troop
    from engine.rulesets.dark_age.movement import JAVELIN_THROW_M, MoveKind
    from engine.rulesets.dark_age.odds import move_distribution

    names = {t.name.lower(): t for t in Troop}
    troop = names.get(opts["da_troop"].lower())
    if troop is None:
        raise fail(f"expected --dark-age-move one of {', '.join(names)}, got {opts['da_troop']!r}")
    try:
        grade = Grade(opts["grade"].upper())
        form = Formation[opts["da_formation"].upper()]
    except (ValueError, KeyError):
        raise fail(
            f"expected --grade A|B|C and --formation one of "
            f"{', '.join(f.name.lower() for f in Formation)}, got {opts['grade']!r}, "
            f"{opts['da_formation']!r}"
        ) from None
    kind = MoveKind.FAST if opts["fast"] else MoveKind.NORMAL
    d = move_distribution(troop, grade, form, kind, difficult=opts["difficult"])
    return {
        "mode": "dark-age-move",
        "troop": troop.name.lower(),
        "grade": grade.value,
        "formation": form.name.lower(),
        "kind": kind.value,
        "difficult": opts["difficult"],
        "javelin_throw_m": JAVELIN_THROW_M,
        "allowance_jt": {str(k): frac(v) for k, v in d.allowance.items()},
        "mean_jt": frac(d.mean_jt),
        "dp_chance": frac(d.dp_chance),
    }
