"""*Battle for 2mm Earth* (v0.9 and v0.7): the rules of one family, registered on import.

Everything here is 2mm Earth's own: its charts (7.2, 7.3, 9.3), dice procedures (2.2-2.3,
10.5), morale (10.x, 11.x), shooting (8.x), melee (3.x, 12.x), damage (2.4), formations,
wings and brigades (4.x, 5.1), sieges (8.3), messengers (9.2) and the bound's phases (1.1).
"""

from engine.rulesets.two_mm_earth.rulesets import (
    MORALE_TRIGGERS_V09,
    MoraleSituation,
    MoraleTrigger,
    TwoMmEarth,
    TwoMmEarthV07,
    TwoMmEarthV09,
)

__all__ = [
    "MORALE_TRIGGERS_V09",
    "MoraleSituation",
    "MoraleTrigger",
    "TwoMmEarth",
    "TwoMmEarthV07",
    "TwoMmEarthV09",
]
