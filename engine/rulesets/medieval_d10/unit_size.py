"""The smallest unit the book's charts are written for (docs/rules-interpretations.md, "The
smallest unit").

THE MORALE TEST CHART takes "-2" for "Each full 10% of original unit figure-strength lost" and
THE CONTROL TEST CHART "-1" for each full 20 %: both count a unit's losses in steps of its
figures. A unit of 10 figures or more loses at most one 10 % step a figure; below 10 figures
one figure is more than a full 10 % (a 5-figure unit pays -4 for its first figure lost), so the
charts' steps assume units of at least 10 figures - as do the book's own examples (the FIRING
and MELEE CHARTs' "one d10 for every five figures", Part-Dice's "16 fighting figures",
Automatic Kills for "at least 15 of its figures" and two at 30). Artillery are counted by gun
model ("one d10 per artillery gun model"), not in figures, and are left out.

A smaller unit is still played as written (a scenario may mean a small unit); loading one
warns, so a scenario at another figure scale is seen, never silently played at it.

>>> SMALLEST_UNIT_FIGURES
10
"""

from __future__ import annotations

import warnings
from typing import Any

from engine.rulesets.medieval_d10.units import Arm
from scenario_builder.errors import ScenarioWarning

__all__ = ["SMALLEST_UNIT_FIGURES", "SmallUnitWarning", "small_units", "warn_small_units"]

#: below this a figure lost is more than a full 10 % of the unit (THE MORALE TEST CHART)
SMALLEST_UNIT_FIGURES = 10


class SmallUnitWarning(ScenarioWarning):
    """A medieval-d10 unit of fewer figures than the book's charts are written for."""


def small_units(scenario: Any, side: Any, army: Any) -> list[tuple[str, int]]:
    """(formation id, figures) of ``side``'s units of foot or horse with fewer than
    :data:`SMALLEST_UNIT_FIGURES` figures as deployed (its ``figures`` when given)."""
    out = []
    for fs in side.formations:
        if army.profile(fs.profile).spec.arm is Arm.ARTILLERY:
            continue  # counted by gun model
        n, _ = fs.deployed(True)
        if n < SMALLEST_UNIT_FIGURES:
            out.append((fs.id, n))
    return out


def warn_small_units(scenario: Any, side: Any, army: Any) -> None:
    """One :class:`SmallUnitWarning` line for ``side`` when it has units smaller than the
    book's smallest."""
    small = small_units(scenario, side, army)
    if not small:
        return
    listed = ", ".join(f"{fid} {n}" for fid, n in small)
    warnings.warn(
        SmallUnitWarning(
            f"{scenario.path or scenario.id}: side {side.id}: {len(small)} unit(s) of fewer "
            f"than {SMALLEST_UNIT_FIGURES} figures ({listed}), the smallest the book implies "
            f"(MORALE TEST CHART: -2 for each full 10 % lost is then more than -2 a figure); "
            f"give them figures at the book's scale (docs/scenarios.md, 'Figures')"
        ),
        stacklevel=2,
    )
