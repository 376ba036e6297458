"""The medieval d10 quick reference's charts as data, in the shape the book prints them.

Source: ``/work/shared/rules/002_ab38124a85c18dc4.txt`` (the quick reference sheets "Page 1
Medieval", "Page 2 Medieval", "Page 1 Part Dice", "Page 1 Control", "Page 1 Morale"). Every chart
is kept as its printed text (cells as strings, rows in the book's order) and parsed once into the
lookup structures; the tests compare every parsed cell with the book's value.

- GAME TURN SEQUENCE CHART: :data:`GAME_TURN_SEQUENCE` (phases 1-13, 15, 16: the book has no 14)
- Initiative (under the sequence chart): :data:`INITIATIVE_MODIFIER`
- MOVEMENT CHART: :data:`MOVEMENT_CHART`, :data:`ARTILLERY_MOVEMENT_CHART`
- TERRAIN CHART: :data:`TERRAIN_CHART` (cells parsed to :class:`TerrainCell`)
- Firing Ranges Chart: :data:`FIRING_RANGES`; artillery misfires: :data:`MISFIRE_RESULTS`
- FIRING CHART: :data:`FIRING_CHART` and :data:`FIRING_MODIFIERS`
- MELEE CHART: :data:`MELEE_CHART` and :data:`MELEE_MODIFIERS`
- Automatic Kills, PART-DICE CHART: :data:`AUTOMATIC_KILL_FIGURES`, :data:`PART_DICE_SAVE`
- Commander and Inspirational Figures: :data:`COMMANDER_MORALE_VALUE`,
  :data:`COMMANDER_KILLED_VALUE`
- THE CONTROL TEST CHART: :data:`CONTROL_REASONS`, :data:`CONTROL_FACTORS`, :data:`CONTROL_PASS_MAX`
- THE MORALE TEST CHART: :data:`MORALE_REASONS`, :data:`MORALE_FACTORS`
- MORALE TEST RESULT: :data:`MORALE_RESULT_CHART`, :data:`MORALE_RESULT_TEXT`

>>> MOVEMENT_CHART[MovementRow.HML_CLOSE_INFANTRY]["D"].line.cm
10
>>> firing_score(FiringRow.BOW, RangeBand.SHORT, ArmourGrade.LIGHT)
4
>>> melee_score(MeleeRow.SWORD_SPEAR_PIKE, "D", ArmourGrade.SUPER_HEAVY)
10
>>> morale_result(MoraleColumn.RECEIVING_CHARGE, -5)
<MoraleResult.ROUT_ON_CONTACT: 'rout when enemy makes contact'>
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from fractions import Fraction

__all__ = [
    "ARTILLERY_MOVEMENT_CHART",
    "AUTOMATIC_KILL_FIGURES",
    "COMMANDER_KILLED_VALUE",
    "COMMANDER_MORALE_VALUE",
    "CONTROL_FACTORS",
    "CONTROL_PASS_MAX",
    "CONTROL_REASONS",
    "FIRING_CHART",
    "FIRING_MODIFIERS",
    "FIRING_RANGES",
    "GAME_TURN_SEQUENCE",
    "INITIATIVE_MODIFIER",
    "MELEE_CHART",
    "MELEE_MODIFIERS",
    "MISFIRE_RESULTS",
    "MORALE_FACTORS",
    "MORALE_REASONS",
    "MORALE_RESULT_CHART",
    "MORALE_RESULT_TEXT",
    "MOVEMENT_CHART",
    "PART_DICE_SAVE",
    "SCORE_MAX",
    "SCORE_MIN",
    "TERRAIN_CHART",
    "ArmourGrade",
    "ArtilleryCarriage",
    "CommanderKind",
    "Distance",
    "Factor",
    "FiringRow",
    "GameTurnPhase",
    "MeleeRow",
    "MissileWeapon",
    "MoraleColumn",
    "MoraleResult",
    "MovementCell",
    "MovementRow",
    "Phase",
    "RangeBand",
    "Side",
    "TerrainCell",
    "TerrainColumn",
    "TerrainRow",
    "TroopClass",
    "clamp_score",
    "control_passed",
    "factor_for_face",
    "firing_score",
    "melee_score",
    "morale_band",
    "morale_result",
    "parse_distance",
    "parse_score_row",
    "range_band",
]


class TroopClass(StrEnum):
    """Troop classes: A Guards/Elite, B Household/Veteran, C Trained, D Raw/Militia, E Peasants,
    M Mercenary (FIRING CHART modifiers name them so)."""

    A = "A"
    B = "B"
    C = "C"
    D = "D"
    E = "E"
    M = "M"


class ArmourGrade(StrEnum):
    """Columns of the firing and melee charts: "Target Figures' Armour Protection Grade"."""

    SUPER_HEAVY = "super_heavy"
    EXTRA_HEAVY = "extra_heavy"
    HEAVY = "heavy"
    MEDIUM = "medium"
    LIGHT = "light"


ARMOUR_COLUMNS: tuple[ArmourGrade, ...] = tuple(ArmourGrade)  # the book's column order

#: "Any final modified score greater than 10, counts as 10. Any final modified score less than
#: 2, counts as 2." (FIRING CHART and MELEE CHART)
SCORE_MIN, SCORE_MAX = 2, 10


def clamp_score(score: int) -> int:
    """FIRING / MELEE CHART: a modified kill score is kept within 2..10.

    >>> clamp_score(12), clamp_score(1), clamp_score(7)
    (10, 2, 7)
    """
    return min(SCORE_MAX, max(SCORE_MIN, score))


def parse_score_row(text: str) -> tuple[int, ...]:
    """One printed row of kill scores (the book runs them together: ``"1010987"``); written here
    with spaces, one per armour column.

    >>> parse_score_row("10 10 9 8 7")
    (10, 10, 9, 8, 7)
    """
    cells = tuple(int(x) for x in text.split())
    if len(cells) != len(ARMOUR_COLUMNS):
        raise ValueError(f"expected {len(ARMOUR_COLUMNS)} scores, got {text!r}")
    return cells


# GAME TURN SEQUENCE CHART ----------------------------------------------------------------------


class Side(StrEnum):
    """ "Side to Play" column: both sides, side A or side B (initiative decides who is A)."""

    BOTH = "both"
    A = "A"
    B = "B"


class Phase(IntEnum):
    """The game phases by the book's own numbers. The printed chart numbers them 1-13 then 15,
    16: there is no phase 14 (docs/rules-interpretations.md)."""

    INITIATIVE = 1
    WEATHER = 2
    COMPULSORY_MOVEMENT = 3
    A_DECLARE_CHARGES = 4
    B_DECLARE_CHARGES = 5
    B_DECLARE_REACTIONS = 6
    A_DECLARE_REACTIONS = 7
    A_CHARGE_MOVEMENT = 8
    B_CHARGE_MOVEMENT = 9
    MORALE_SEEING_ROUT = 10
    A_NORMAL_MOVEMENT = 11
    B_NORMAL_MOVEMENT = 12
    MELEE = 13
    MORALE = 15
    CONTROL = 16


@dataclass(frozen=True, slots=True)
class GameTurnPhase:
    """One row of the GAME TURN SEQUENCE CHART: number, side to play, name, action (abridged)."""

    phase: Phase
    side: Side
    name: str
    action: str


GAME_TURN_SEQUENCE: tuple[GameTurnPhase, ...] = (
    GameTurnPhase(
        Phase.INITIATIVE,
        Side.BOTH,
        "Initiative",
        "Each side rolls one d10 and adds their Commander's modifier; the highest "
        "total may choose to be side A or B this Game Turn.",
    ),
    GameTurnPhase(
        Phase.WEATHER,
        Side.A,
        "Weather, Wind Strength and Wind Direction",
        "At the start of every twelfth Game Turn, roll dice to determine any changes.",
    ),
    GameTurnPhase(
        Phase.COMPULSORY_MOVEMENT,
        Side.BOTH,
        "Compulsory Movement",
        "Move all units Pursuing, Routing or Falling-back (from last turn's Morale or "
        "Control Tests) and units Pushed-back or Following-up in an on-going Melee.",
    ),
    GameTurnPhase(
        Phase.A_DECLARE_CHARGES,
        Side.A,
        "Charges to Declare",
        "Morale Tests for units now declaring a Charge or Advance into contact.",
    ),
    GameTurnPhase(
        Phase.B_DECLARE_CHARGES,
        Side.B,
        "Charges and Counter-charges to Declare",
        "Morale Tests for units declaring a Counter-charge, Charge or Advance into contact.",
    ),
    GameTurnPhase(
        Phase.B_DECLARE_REACTIONS,
        Side.B,
        "Declare Reaction-to-Charges",
        "Morale Tests for units that wish to Stand, Evade, or Fire at Side A's "
        "charging units (declared in phase 4).",
    ),
    GameTurnPhase(
        Phase.A_DECLARE_REACTIONS,
        Side.A,
        "Declare Reaction to Charges",
        "Morale Tests for units that wish to Stand, Evade, or Fire at Side B's "
        "charging units (declared in phase 5).",
    ),
    GameTurnPhase(
        Phase.A_CHARGE_MOVEMENT,
        Side.A,
        "Charge & Reaction-to-Charge Movement",
        "Move Side A's chargers and simultaneously move / fire Side B's reacting "
        "units; chargers that suffer casualties from shooting re-test their Morale.",
    ),
    GameTurnPhase(
        Phase.B_CHARGE_MOVEMENT,
        Side.B,
        "Charge & Reaction-to-Charge Movement",
        "Move Side B's chargers and simultaneously move / fire Side A's reacting "
        "units; chargers that suffer casualties from shooting re-test their Morale.",
    ),
    GameTurnPhase(
        Phase.MORALE_SEEING_ROUT,
        Side.BOTH,
        "Morale Tests",
        "Morale Tests for seeing friendly units Routing / Falling-back in Disorder in "
        "phases 3-9 (not units that charged or reacted in phases 4-9).",
    ),
    GameTurnPhase(
        Phase.A_NORMAL_MOVEMENT,
        Side.A,
        "Normal Movement and Firing",
        "Units that have not yet moved: firing, formation changes, movement not "
        "coming into base-to-base contact.",
    ),
    GameTurnPhase(
        Phase.B_NORMAL_MOVEMENT,
        Side.B,
        "Normal Movement and Firing",
        "Units that have not yet moved (including figures shot in phase 11): firing, "
        "formation changes, movement not coming into contact.",
    ),
    GameTurnPhase(
        Phase.MELEE,
        Side.BOTH,
        "Melee Calculations",
        "Hand-to-hand combat results for each group of units in base-to-base contact.",
    ),
    GameTurnPhase(
        Phase.MORALE,
        Side.BOTH,
        "Morale Tests",
        "Morale Tests for any unit that needs one; declare Rout, Fall-back, Follow-up "
        "or Push-back for phase 3 of the next turn.",
    ),
    GameTurnPhase(
        Phase.CONTROL,
        Side.BOTH,
        "Control Tests",
        "Control Tests; failures Pursue or Follow-up in phase 3 of the next turn.",
    ),
)


class CommanderKind(StrEnum):
    """Commander and Inspirational Figures: "Cautious, Bold, Rash or Exceptional"."""

    CAUTIOUS = "cautious"
    BOLD = "bold"
    RASH = "rash"
    EXCEPTIONAL = "exceptional"


#: Initiative: "Cautious Commander +2, Bold Commander +4, Rash Commander +4 and an Exceptional
#: Commander +6".
INITIATIVE_MODIFIER: dict[CommanderKind, int] = {
    CommanderKind.CAUTIOUS: 2,
    CommanderKind.BOLD: 4,
    CommanderKind.RASH: 4,
    CommanderKind.EXCEPTIONAL: 6,
}

#: MORALE TEST CHART: "Commander figure values: Cautious = 1, Bold = 2, Rash = 2, Exceptional = 3"
#: (the "+?" of "A Commander figure is with the testing unit").
COMMANDER_MORALE_VALUE: dict[CommanderKind, int] = {
    CommanderKind.CAUTIOUS: 1,
    CommanderKind.BOLD: 2,
    CommanderKind.RASH: 2,
    CommanderKind.EXCEPTIONAL: 3,
}

#: CONTROL TEST CHART: "If killed, the Commander Figure value is: Cautious -1, Bold -2, Rash -2,
#: Exceptional -3".
COMMANDER_KILLED_VALUE: dict[CommanderKind, int] = {
    CommanderKind.CAUTIOUS: -1,
    CommanderKind.BOLD: -2,
    CommanderKind.RASH: -2,
    CommanderKind.EXCEPTIONAL: -3,
}


# MOVEMENT CHART -------------------------------------------------------------------------------

_DISTANCE = re.compile(r'^\+?\s*(\d+)\s*cm\s*\(\s*(\d+)\s*"\s*\)$')


@dataclass(frozen=True, slots=True)
class Distance:
    """A printed distance, centimetres with the book's inches in brackets: ``16 cm (6")``.

    The book's inch figures are its own rounding (28 cm is printed as 10"), so both are kept.
    """

    cm: int
    inches: int

    def __str__(self) -> str:
        return f'{self.cm} cm ({self.inches}")'


def parse_distance(text: str) -> Distance:
    """Read ``'16 cm (6")'`` or a bonus ``'+ 6 cm (2")'``.

    >>> parse_distance('+ 12 cm (4")')
    Distance(cm=12, inches=4)
    """
    m = _DISTANCE.match(text.strip())
    if m is None:
        raise ValueError(f"expected a distance like '16 cm (6\")', got {text!r}")
    return Distance(int(m.group(1)), int(m.group(2)))


class MovementRow(StrEnum):
    """Troop-type rows of the MOVEMENT CHART."""

    SH_EH_CLOSE_INFANTRY = "Super Heavy or Extra Heavy Infantry (Close-order)"
    HML_CLOSE_INFANTRY = "Heavy, Medium or Light Infantry (Close-order)"
    LOOSE_SKIRMISH_INFANTRY = "Any Skirmish-order Infantry / Any Loose-Order Infantry"
    SH_EH_CAVALRY = "Super Heavy or Extra Heavy Cavalry (Close-Combat Cavalry)"
    HML_CAVALRY = "Heavy, Medium or Light Cavalry (Close-Combat Cavalry)"
    SKIRMISH_CAVALRY = "Any Skirmish-order Cavalry"


# As printed: row, troop classes, line march rate, column march rate, charge / evade / pursue /
# rout / road bonus ("Bonus for each"). The super-heavy cavalry column rate is printed 10 cm (4"),
# below its line rate; kept as printed (docs/rules-interpretations.md).
_MOVEMENT_TEXT: tuple[tuple[MovementRow, str, str, str, str], ...] = (
    (MovementRow.SH_EH_CLOSE_INFANTRY, "A, B, C, or M", '10 cm (4")', '16 cm (6")', '+ 6 cm (2")'),
    (MovementRow.HML_CLOSE_INFANTRY, "A, B, C, or M", '16 cm (6")', '20 cm (8")', '+ 6 cm (2")'),
    (MovementRow.HML_CLOSE_INFANTRY, "D", '10 cm (4")', '16 cm (6")', '+ 6 cm (2")'),
    (
        MovementRow.LOOSE_SKIRMISH_INFANTRY,
        "A, B, C, or M",
        '20 cm (8")',
        '28 cm (10")',
        '+ 6 cm (2")',
    ),
    (MovementRow.LOOSE_SKIRMISH_INFANTRY, "D or E", '16 cm (6")', '20 cm (8")', '+ 6 cm (2")'),
    (MovementRow.SH_EH_CAVALRY, "A, B or M", '28 cm (10")', '10 cm (4")', '+ 12 cm (4")'),
    (MovementRow.HML_CAVALRY, "A, B, C, or M", '32 cm (12")', '40 cm (16")', '+ 12 cm (4")'),
    (MovementRow.HML_CAVALRY, "D", '28 cm (10")', '36 cm (14")', '+ 12 cm (4")'),
    (MovementRow.SKIRMISH_CAVALRY, "A, B, C, or M", '40 cm (16")', '48 cm (20")', '+ 12 cm (4")'),
    (MovementRow.SKIRMISH_CAVALRY, "D or E", '36 cm (14")', '44 cm (18")', '+ 12 cm (4")'),
)


def _classes(text: str) -> tuple[TroopClass, ...]:
    """``"A, B , C, or M"`` -> (A, B, C, M)."""
    return tuple(TroopClass(x) for x in re.findall(r"\b([A-EM])\b", text))


@dataclass(frozen=True, slots=True)
class MovementCell:
    """One MOVEMENT CHART line: march rates in line and in column, and the bonus added for a
    charge, evade, pursuit, rout or a whole turn on a road or track."""

    line: Distance
    column: Distance
    bonus: Distance


#: MOVEMENT CHART: ``MOVEMENT_CHART[row][troop class]``; a class the book does not print for a
#: row (e.g. E-class close-order infantry) is absent.
MOVEMENT_CHART: dict[MovementRow, dict[TroopClass, MovementCell]] = {}
for _row, _cls, _line, _col, _bonus in _MOVEMENT_TEXT:
    for _c in _classes(_cls):
        MOVEMENT_CHART.setdefault(_row, {})[_c] = MovementCell(
            parse_distance(_line), parse_distance(_col), parse_distance(_bonus)
        )


class ArtilleryCarriage(StrEnum):
    """ "Artillery Type" rows of the MOVEMENT CHART."""

    HEAVY = "heavy"
    MEDIUM = "medium"
    LIGHT = "light"
    GALLOPER = "galloper"

    @property
    def printed(self) -> str:
        """The row's name as the book prints it."""
        return _CARRIAGE_PRINTED[self]


_CARRIAGE_PRINTED: dict[ArtilleryCarriage, str] = {
    ArtilleryCarriage.HEAVY: "Heavy Artillery",
    ArtilleryCarriage.MEDIUM: "Medium Artillery",
    ArtilleryCarriage.LIGHT: "Light Artillery (and Multi-barrel guns)",
    ArtilleryCarriage.GALLOPER: 'Light Artillery "Galloper" guns',
}


@dataclass(frozen=True, slots=True)
class ArtilleryMovement:
    """Limbered and manhandled march rates, Game Turns to limber or unlimber, road bonus."""

    limbered: Distance
    manhandled: Distance
    limber_turns: Fraction
    road_bonus: Distance


_ARTILLERY_TEXT: tuple[tuple[ArtilleryCarriage, str, str, str, str], ...] = (
    (ArtilleryCarriage.HEAVY, '10 cm (4")', '6 cm (2")', "1 Game Turn", '+ 6 cm (2")'),
    (ArtilleryCarriage.MEDIUM, '16 cm (6")', '8 cm (3")', "1 Game Turn", '+ 6 cm (2")'),
    (ArtilleryCarriage.LIGHT, '20 cm (8")', '10 cm (4")', "0.5 Game Turn", '+ 6 cm (2")'),
    (ArtilleryCarriage.GALLOPER, '20 cm (8")', '10 cm (4")', "0.5 Game Turn", '+ 12 cm (4")'),
)


def _turns(text: str) -> Fraction:
    return Fraction(text.split()[0])


#: MOVEMENT CHART, artillery part.
ARTILLERY_MOVEMENT_CHART: dict[ArtilleryCarriage, ArtilleryMovement] = {
    row: ArtilleryMovement(parse_distance(a), parse_distance(b), _turns(t), parse_distance(r))
    for row, a, b, t, r in _ARTILLERY_TEXT
}


# TERRAIN CHART --------------------------------------------------------------------------------


class TerrainRow(StrEnum):
    """ "Type of Terrain Feature" rows of the TERRAIN CHART."""

    BUILT_UP_BROKEN_WOOD = "Built Up Area, Broken Ground, Wood"
    ORCHARD_COPSE = "Orchard, Copse"
    STREAM_FORD = "Stream, Ford"
    MARSH = "Marsh"
    WALL_FENCE_HEDGE = "Wall, Fence, Hedge"
    GENTLE_SLOPE = "Ascending Gentle hill slopes"
    STEEP_SLOPE = "Ascending Steep hill slopes"


class TerrainColumn(StrEnum):
    """Troop-type columns of the TERRAIN CHART."""

    CLOSE_LOOSE_INFANTRY = "Close-Order or Loose-Order Infantry"
    CLOSE_CAVALRY = "Close-Order Cavalry"
    SKIRMISH = "Skirmish-Order Infantry or Cavalry"
    LIMBERED_ARTILLERY = "Limbered Artillery (and all wagons)"
    ROAD = "Troops on roads or dry tracks"


_NORMAL_ROAD = "Normal ROAD March Rate"
_TRACK_ONLY = "Only on track"
_TRACK_ROAD_GAP = "Only on track, road or through a gap"

# As printed, columns in TerrainColumn order; footnote marks kept. None is a blank cell. The Wall
# row's one cell spans the four troop columns and its road cell is the "**" note (a gap in a wall
# is flat ground); the Orchard row's road cell is merged with the row above
# (docs/rules-interpretations.md).
_Cells = tuple[str | None, str | None, str | None, str | None, str | None]
_TERRAIN_TEXT: dict[TerrainRow, _Cells] = {
    TerrainRow.BUILT_UP_BROKEN_WOOD: (
        "0.5 M.R. Disordered",
        "0.5 M.R. Disordered",
        "0.5 M.R.*",
        "0.5 M.R.",
        "Normal ROAD March Rate **",
    ),
    TerrainRow.ORCHARD_COPSE: ("0.5 M.R.", "0.5 M.R.", "0,75 M.R.", "0.5 M.R.", None),
    TerrainRow.STREAM_FORD: (
        "0.5 M.R. Disordered",
        "0.5 M.R. Disordered",
        "0.5 M.R.",
        "0.5 M.R.",
        "0.5 M.R.",
    ),
    TerrainRow.MARSH: (
        "Only on track",
        "Only on track, road or through a gap",
        "Infantry: 0.5 M.R.* Cavalry: 0.5 M.R.* and only on track, road or through a gap",
        "Only on track, road or through a gap",
        "Normal ROAD March Rate **",
    ),
    TerrainRow.WALL_FENCE_HEDGE: (
        "0.5 M.R. Disordered",
        "0.5 M.R. Disordered",
        "0.5 M.R. Disordered",
        "0.5 M.R. Disordered",
        "**",
    ),
    TerrainRow.GENTLE_SLOPE: ("0.5 M.R.", "0.5 M.R.", "0.75 M.R.", "0.5 M.R. Up / Down***", None),
    TerrainRow.STEEP_SLOPE: ("0.25 M.R.", "0.25 M.R.", "0.5 M.R.", "0.25 M.R. Up / Down***", None),
}

_FRACTION = re.compile(r"(\d+[.,]\d+)\s*M\.R\.")


@dataclass(frozen=True, slots=True)
class TerrainCell:
    """One parsed TERRAIN CHART cell.

    ``fraction``: the share of the March Rate ("0.5 M.R."; 1 for "Normal ROAD March Rate" and
    for the "**" gap-is-flat cell; None where the troops may only use a track, road or gap).
    ``cavalry_fraction`` differs from ``fraction`` only in the skirmishers' marsh cell.
    ``track_only`` / ``track_road_or_gap``: where the terrain may be entered at all;
    ``downhill``: limbered artillery pays on the way down too ("Up / Down***");
    ``local_skirmishers``: the "*" note (skirmishers local to woods, marsh, built-up areas move at
    0.75 M.R., strangers at 0.5).
    """

    text: str | None
    fraction: Fraction | None
    disordered: bool = False
    track_only: bool = False
    track_road_or_gap: bool = False
    cavalry_fraction: Fraction | None = None
    cavalry_track_road_or_gap: bool = False
    downhill: bool = False
    local_skirmishers: bool = False


def _fraction(text: str) -> Fraction:
    return Fraction(text.replace(",", "."))  # the book prints "0,75" once


def parse_terrain_cell(text: str | None) -> TerrainCell:
    """Read one TERRAIN CHART cell.

    >>> parse_terrain_cell("0.5 M.R. Disordered").fraction
    Fraction(1, 2)
    >>> parse_terrain_cell("0,75 M.R.").fraction
    Fraction(3, 4)
    >>> parse_terrain_cell("Only on track").track_only
    True
    """
    if text is None:
        return TerrainCell(None, None)
    if text.startswith(_NORMAL_ROAD) or text == "**":
        return TerrainCell(text, Fraction(1))
    if text == _TRACK_ONLY:
        return TerrainCell(text, None, track_only=True)
    if text == _TRACK_ROAD_GAP:
        return TerrainCell(text, None, track_road_or_gap=True)
    if text.startswith("Infantry:"):
        inf, cav = text.split("Cavalry:")
        return TerrainCell(
            text,
            _fraction(_FRACTION.search(inf).group(1)),  # type: ignore[union-attr]
            cavalry_fraction=_fraction(_FRACTION.search(cav).group(1)),  # type: ignore[union-attr]
            cavalry_track_road_or_gap=_TRACK_ROAD_GAP[5:] in cav,
            local_skirmishers=True,
        )
    m = _FRACTION.search(text)
    if m is None:
        raise ValueError(f"expected a TERRAIN CHART cell, got {text!r}")
    return TerrainCell(
        text,
        _fraction(m.group(1)),
        disordered="Disordered" in text,
        downhill="Up / Down" in text,
        local_skirmishers=text.endswith("M.R.*"),
    )


#: TERRAIN CHART: ``TERRAIN_CHART[row][column]``.
TERRAIN_CHART: dict[TerrainRow, dict[TerrainColumn, TerrainCell]] = {
    row: {col: parse_terrain_cell(cell) for col, cell in zip(TerrainColumn, cells, strict=True)}
    for row, cells in _TERRAIN_TEXT.items()
}

#: TERRAIN CHART note on "*": skirmishers local to woods, marshes or built-up areas move at 0.75
#: M.R. there; skirmishers in unfamiliar ones at 0.5 M.R.
LOCAL_SKIRMISHER_FRACTION = Fraction(3, 4)


# Firing Ranges Chart --------------------------------------------------------------------------


class RangeBand(StrEnum):
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"


class MissileWeapon(StrEnum):
    """Weapons of the Firing Ranges Chart, in its order."""

    LIGHT_CROSSBOW = "light_crossbow"
    COMPOSITE_BOW = "composite_bow"
    MUSKET = "musket"
    HEAVY_CROSSBOW = "heavy_crossbow"
    LONGBOW = "longbow"
    ARQUEBUS = "arquebus"
    CALIVER = "caliver"
    HANDGONNE = "handgonne"
    SLING = "sling"
    JAVELIN = "javelin"
    PISTOL = "pistol"
    LIGHT_FIELD_ARTILLERY = "light_field_artillery"
    MEDIUM_FIELD_ARTILLERY = "medium_field_artillery"
    HEAVY_HANDGONNE_ARTILLERY = "heavy_handgonne_artillery"

    @property
    def is_artillery(self) -> bool:
        return self in _ARTILLERY_WEAPONS

    @property
    def is_gunpowder(self) -> bool:
        """Firearms and guns: the "Non-Gunpowder weapons" modifiers do not apply to them."""
        return self in _GUNPOWDER


_ARTILLERY_WEAPONS = frozenset(
    {
        MissileWeapon.LIGHT_FIELD_ARTILLERY,
        MissileWeapon.MEDIUM_FIELD_ARTILLERY,
        MissileWeapon.HEAVY_HANDGONNE_ARTILLERY,
    }
)
_GUNPOWDER = _ARTILLERY_WEAPONS | {
    MissileWeapon.MUSKET,
    MissileWeapon.ARQUEBUS,
    MissileWeapon.CALIVER,
    MissileWeapon.HANDGONNE,
    MissileWeapon.PISTOL,
}

# As printed: weapons of a row, then short / medium / long range (the book's "20cm (8")").
_RANGES_TEXT: tuple[tuple[tuple[MissileWeapon, ...], str, str, str], ...] = (
    (
        (MissileWeapon.LIGHT_CROSSBOW, MissileWeapon.COMPOSITE_BOW, MissileWeapon.MUSKET),
        '20cm (8")',
        '40cm (16")',
        '60cm (24")',
    ),
    (
        (MissileWeapon.HEAVY_CROSSBOW, MissileWeapon.LONGBOW),
        '25cm (10")',
        '50cm (20")',
        '75cm (30")',
    ),
    ((MissileWeapon.ARQUEBUS, MissileWeapon.CALIVER), '15cm (6")', '30cm (12")', '45cm (18")'),
    ((MissileWeapon.HANDGONNE, MissileWeapon.SLING), '10cm (4")', '20cm (8")', '30cm (12")'),
    ((MissileWeapon.JAVELIN, MissileWeapon.PISTOL), '5cm (2")', '10cm (4")', '15cm (6")'),
    ((MissileWeapon.LIGHT_FIELD_ARTILLERY,), '40cm (16")', '80cm (32")', '120cm (48")'),
    ((MissileWeapon.MEDIUM_FIELD_ARTILLERY,), '60cm (24")', '120cm (48")', '180cm (72")'),
    ((MissileWeapon.HEAVY_HANDGONNE_ARTILLERY,), '20cm (8")', '40cm (16")', '60cm (24")'),
)

#: Firing Ranges Chart: ``FIRING_RANGES[weapon][band]`` is the band's outer limit.
FIRING_RANGES: dict[MissileWeapon, dict[RangeBand, Distance]] = {
    weapon: {band: parse_distance(cell) for band, cell in zip(RangeBand, (s, m, lo), strict=True)}
    for weapons, s, m, lo in _RANGES_TEXT
    for weapon in weapons
}


def range_band(weapon: MissileWeapon, range_cm: float) -> RangeBand | None:
    """Firing Ranges Chart: the band of a target ``range_cm`` away ("Range to Target (rounded
    up)": a part centimetre counts as a whole one); None beyond long range.

    >>> range_band(MissileWeapon.LONGBOW, 25.0), range_band(MissileWeapon.LONGBOW, 25.2)
    (<RangeBand.SHORT: 'short'>, <RangeBand.MEDIUM: 'medium'>)
    >>> range_band(MissileWeapon.JAVELIN, 15.5) is None
    True
    """
    import math

    rounded = math.ceil(range_cm - 1e-9)
    for band, limit in FIRING_RANGES[weapon].items():
        if rounded <= limit.cm:
            return band
    return None


#: Firing Ranges Chart note: the misfire "Saving Throw" of an artillery gun. First d10: 2-10 the
#: gun fires; a 1 is re-rolled: 1-3 the gun explodes, 4-10 it misfires and cannot re-fire until
#: next Game Turn.
MISFIRE_RESULTS: dict[str, tuple[int, ...]] = {
    "fires": (2, 3, 4, 5, 6, 7, 8, 9, 10),
    "re-roll": (1,),
    "explodes": (1, 2, 3),
    "misfires": (4, 5, 6, 7, 8, 9, 10),
}

#: "Explosion distance, measured from the Gun's base, is either 3" (for 25mm figures) or 2" (for
#: 15mm figures)."
EXPLOSION_DISTANCE_INCHES: dict[str, int] = {"25mm": 3, "15mm": 2}


# FIRING CHART ---------------------------------------------------------------------------------


class FiringRow(StrEnum):
    """Weapon groups of the FIRING CHART."""

    BOW = "Longbow, Light Crossbow, Composite Bow"
    HEAVY_CROSSBOW_FIREARM = "Heavy Crossbow, Arquebus, Handgonne"
    JAVELIN_SLING = "Javelin, Sling"
    ARTILLERY = "Artillery"


#: FIRING CHART as printed: minimum d10 to kill by weapon group, range band and armour grade
#: (Super Heavy, Extra Heavy, Heavy, Medium, Light).
_FIRING_TEXT: dict[FiringRow, dict[RangeBand, str]] = {
    FiringRow.BOW: {
        RangeBand.SHORT: "8 7 6 5 4",
        RangeBand.MEDIUM: "9 8 7 6 5",
        RangeBand.LONG: "10 9 8 7 6",
    },
    FiringRow.HEAVY_CROSSBOW_FIREARM: {
        RangeBand.SHORT: "7 6 5 4 3",
        RangeBand.MEDIUM: "8 7 6 5 4",
        RangeBand.LONG: "9 8 7 6 5",
    },
    FiringRow.JAVELIN_SLING: {
        RangeBand.SHORT: "9 8 7 6 5",
        RangeBand.MEDIUM: "10 9 8 7 6",
        RangeBand.LONG: "10 10 9 8 7",
    },
    FiringRow.ARTILLERY: {
        RangeBand.SHORT: "4 4 4 4 4",
        RangeBand.MEDIUM: "5 5 5 5 5",
        RangeBand.LONG: "6 6 6 6 6",
    },
}

FIRING_CHART: dict[FiringRow, dict[RangeBand, dict[ArmourGrade, int]]] = {
    row: {
        band: dict(zip(ARMOUR_COLUMNS, parse_score_row(text), strict=True))
        for band, text in bands.items()
    }
    for row, bands in _FIRING_TEXT.items()
}

#: The FIRING CHART row of every weapon. Musket, caliver and pistol have ranges but no firing
#: row; they fire on the firearm row (docs/rules-interpretations.md).
FIRING_ROW_OF: dict[MissileWeapon, FiringRow] = {
    MissileWeapon.LONGBOW: FiringRow.BOW,
    MissileWeapon.LIGHT_CROSSBOW: FiringRow.BOW,
    MissileWeapon.COMPOSITE_BOW: FiringRow.BOW,
    MissileWeapon.HEAVY_CROSSBOW: FiringRow.HEAVY_CROSSBOW_FIREARM,
    MissileWeapon.ARQUEBUS: FiringRow.HEAVY_CROSSBOW_FIREARM,
    MissileWeapon.HANDGONNE: FiringRow.HEAVY_CROSSBOW_FIREARM,
    MissileWeapon.MUSKET: FiringRow.HEAVY_CROSSBOW_FIREARM,
    MissileWeapon.CALIVER: FiringRow.HEAVY_CROSSBOW_FIREARM,
    MissileWeapon.PISTOL: FiringRow.HEAVY_CROSSBOW_FIREARM,
    MissileWeapon.JAVELIN: FiringRow.JAVELIN_SLING,
    MissileWeapon.SLING: FiringRow.JAVELIN_SLING,
    MissileWeapon.LIGHT_FIELD_ARTILLERY: FiringRow.ARTILLERY,
    MissileWeapon.MEDIUM_FIELD_ARTILLERY: FiringRow.ARTILLERY,
    MissileWeapon.HEAVY_HANDGONNE_ARTILLERY: FiringRow.ARTILLERY,
}


def firing_score(row: FiringRow, band: RangeBand, armour: ArmourGrade) -> int:
    """FIRING CHART: the unmodified minimum d10 score to kill."""
    return FIRING_CHART[row][band][armour]


@dataclass(frozen=True, slots=True)
class Factor:
    """One printed modifier line: a key, the book's words, the value (per count)."""

    key: str
    text: str
    value: int


def _factors(rows: tuple[tuple[str, str, int], ...]) -> dict[str, Factor]:
    out = {key: Factor(key, text, value) for key, text, value in rows}
    if len(out) != len(rows):
        raise ValueError("duplicate factor key")
    return out


#: FIRING CHART modifiers to the score needed (left column then right, as the book pairs them).
#: The troop-class lines are keyed ``class_A`` ... (M fires as C: "Trained / Mercenary").
FIRING_MODIFIERS: dict[str, Factor] = _factors(
    (
        ("class_A", "Firing Unit are Guards, Elite (A class)", -2),
        (
            "barded_horses",
            "Non-Gunpowder weapons firing at enemy cavalry who have metal-barded horses**",
            +1,
        ),
        ("class_B", "Firing Unit are Household / Veteran (B class)", -1),
        ("class_C", "Firing Unit are Trained / Mercenary (C class)", 0),
        ("class_M", "Firing Unit are Trained / Mercenary (C class)", 0),
        (
            "shields",
            "Non-Gunpowder weapons firing at enemy troops who have Shields or Pavises**",
            +1,
        ),
        ("class_D", "Firing Unit are Raw Recruits / Militia (D class)", +1),
        ("class_E", "Firing Unit are Peasants (E class)", +2),
        (
            "fourth_volley",
            "Firing Unit are any type of bowmen firing their 4th (or more) consecutive volley",
            +1,
        ),
        ("under_fire", "Firing Unit is itself under fire (this move or last)", +1),
        ("moving_target", "Firing at a moving target (this move or last)", +1),
        (
            "resting",
            "Firing Unit are infantry, \u201cresting\u201d their Crossbows or Firearms on "
            "walls, fences etc.",
            -1,
        ),
        ("skirmishers_or_deployed_artillery", "Firing at Skirmishers or Deployed Artillery", +2),
        ("limbered_artillery_or_wagons", "Firing at Limbered Artillery or Wagons", -1),
        ("soft_cover", "Firing at a target unit in / behind Soft Cover", +1),
        ("loose_order_foot", "Firing at Loose-Order enemy Foot troops", +1),
        ("hard_cover", "Firing at a target unit in / behind Hard Cover", +2),
        ("three_ranks_deep", "Firing at an enemy unit 3+ figure-ranks deep", -1),
        ("light_rain", "Firing during Light Rain / Snow", +1),
        ("column_or_schiltron", "Firing at a Column or an Infantry Schiltron", -2),
        ("heavy_rain", "Firing during Heavy Rain / Snow", +2),
        ("first_shot", "First Artillery or Firearm shot of the day", -1),
        ("gun_smoke", "Target partially obscured by gun smoke", +2),
    )
)


# MELEE CHART ----------------------------------------------------------------------------------


class MeleeRow(StrEnum):
    """ "Fighting Unit's Weapon" rows of the MELEE CHART."""

    TWO_HANDED = "Two-handed Sword, Axe or Pole-arm"
    ONE_HANDED = "One-handed Axe, Mace or Ball & Chain"
    SWORD_SPEAR_PIKE = "Sword, Spear or Pike"
    KNIFE_CUDGEL = "Knife, Cudgel, Farming Tools"
    HEAVY_LANCE = "Charging cavalry using Heavy Lance"
    LIGHT_LANCE = "Charging cavalry using Light Lance"
    CAVALRY_POLEARM = "Cavalry using Coustille, Demi Lance or other Pole-arms"


#: MELEE CHART as printed: minimum d10 to kill by weapon, training grade and armour grade.
_MELEE_TEXT: dict[MeleeRow, dict[str, str]] = {
    MeleeRow.TWO_HANDED: {"A": "6 5 4 3 2", "B": "7 6 5 4 3", "C": "8 7 6 5 4", "D": "9 8 7 6 5"},
    MeleeRow.ONE_HANDED: {"A": "7 6 5 4 3", "B": "8 7 6 5 4", "C": "9 8 7 6 5"},
    MeleeRow.SWORD_SPEAR_PIKE: {
        "A": "8 7 6 5 4",
        "B": "9 8 7 6 5",
        "C": "10 9 8 7 6",
        "D": "10 10 9 8 7",
    },
    MeleeRow.KNIFE_CUDGEL: {"C": "10 10 9 8 7", "D": "10 10 10 9 8"},
    MeleeRow.HEAVY_LANCE: {"A": "6 5 4 3 2", "B": "7 6 5 4 3"},
    MeleeRow.LIGHT_LANCE: {"A": "7 6 5 4 3", "B": "8 7 6 5 4", "C": "9 8 7 6 5"},
    MeleeRow.CAVALRY_POLEARM: {"A": "8 7 6 5 4", "B": "9 8 7 6 5", "C": "10 9 8 7 6"},
}

MELEE_CHART: dict[MeleeRow, dict[TroopClass, dict[ArmourGrade, int]]] = {
    row: {
        TroopClass(grade): dict(zip(ARMOUR_COLUMNS, parse_score_row(text), strict=True))
        for grade, text in grades.items()
    }
    for row, grades in _MELEE_TEXT.items()
}

# Training grades best to worst; M fights as C, E as D (docs/rules-interpretations.md).
_GRADE_ORDER: tuple[TroopClass, ...] = (TroopClass.A, TroopClass.B, TroopClass.C, TroopClass.D)
_GRADE_AS = {TroopClass.M: TroopClass.C, TroopClass.E: TroopClass.D}


def melee_grade(row: MeleeRow, troop_class: TroopClass | str) -> TroopClass:
    """The printed training-grade line a unit of ``troop_class`` uses on ``row``.

    M fights as C and E as D; a grade better than the row's best printed line uses that best line,
    one worse than its worst uses the worst (docs/rules-interpretations.md).

    >>> melee_grade(MeleeRow.HEAVY_LANCE, "C"), melee_grade(MeleeRow.KNIFE_CUDGEL, "A")
    (<TroopClass.B: 'B'>, <TroopClass.C: 'C'>)
    """
    grade = TroopClass(troop_class)
    grade = _GRADE_AS.get(grade, grade)
    printed = [g for g in _GRADE_ORDER if g in MELEE_CHART[row]]
    rank = _GRADE_ORDER.index(grade)
    best, worst = _GRADE_ORDER.index(printed[0]), _GRADE_ORDER.index(printed[-1])
    return _GRADE_ORDER[min(max(rank, best), worst)]


def melee_score(row: MeleeRow, troop_class: TroopClass | str, armour: ArmourGrade) -> int:
    """MELEE CHART: the unmodified minimum d10 score to kill."""
    return MELEE_CHART[row][melee_grade(row, troop_class)][armour]


#: MELEE CHART modifiers to the score needed.
MELEE_MODIFIERS: dict[str, Factor] = _factors(
    (
        ("charging", "If your unit is CHARGING into contact", -1),
        ("upslope", "If your unit is UPSLOPE of opponents", -1),
        ("impetuous", "If your unit is presently IMPETUOUS", -1),
        ("pushed_back", "If your unit is being PUSHED-BACK", +1),
        (
            "vs_formed_pike_infantry",
            "Opponents are FORMED INFANTRY armed with Pike, Spear or "
            "Halberd (and you are INFANTRY)",
            +1,
        ),
        (
            "commander_front_rank",
            "If your unit has any COMMANDER or INSPIRATIONAL figure in the front rank",
            +1,
        ),
        (
            "vs_formed_pike_cavalry",
            "Opponents are FORMED INFANTRY armed with Pike, Spear or Halberd (and you are CAVALRY)",
            +2,
        ),
        ("mounted_infantry", "If your unit are MOUNTED INFANTRY fighting on Horseback", +1),
        (
            "pike_rank",
            "FACING EACH supporting figure-rank of Pikes. Pike troops may deploy up to 4 "
            "figure-ranks deep",
            +1,
        ),
        (
            "soft_cover_infantry",
            "Opponents in / behind SOFT COVER or stakes (and you are INFANTRY)",
            +1,
        ),
        (
            "halberd_rank",
            "FACING ONE supporting figure-rank of either Halberds, Flails or Spears",
            +1,
        ),
        ("hard_cover_infantry", "Opponents in / behind HARD COVER (and you are INFANTRY)", +2),
        ("shields", "Opponents protected by Shields or Pavises", +1),
        (
            "soft_cover_cavalry",
            "Opponents in / behind SOFT COVER or stakes (and you are CAVALRY)",
            +2,
        ),
        ("free_hack", "Having a \u201cFree Hack\u201d against the Enemy", -2),
        ("hard_cover_cavalry", "Opponents in / behind HARD COVER (and you are CAVALRY)", +3),
    )
)

#: "Pike troops may deploy up to 4 figure-ranks deep": at most 3 supporting ranks count.
MAX_PIKE_SUPPORT_RANKS = 3

#: Exchanging d10 rolls for Automatic Kills: each 15 figures fighting the same enemy unit trade
#: one of their three d10 for one automatic kill (melee only, optional).
AUTOMATIC_KILL_FIGURES = 15

#: One d10 per this many figures (rounded up), firing or fighting.
FIGURES_PER_DIE = 5

#: PART-DICE CHART: figures in the part die -> minimum d10 for the target to save the kill.
PART_DICE_SAVE: dict[int, int] = {4: 9, 3: 7, 2: 5, 1: 3}


# CONTROL TEST and MORALE TEST -----------------------------------------------------------------


def factor_for_face(face: int) -> int:
    """THE CONTROL / MORALE TEST CHART: "Roll one d10: 1 or 2 = +1 factor, 3 or 4 = +2 factor,
    5 or 6 = +3 factor, 7 or 8 = +4 factor, 9 or 10 = +5 factor".

    >>> [factor_for_face(f) for f in range(1, 11)]
    [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    """
    if not 1 <= face <= 10:
        raise ValueError(f"expected a d10 face 1..10, got {face}")
    return (face + 1) // 2


#: The Control Test (Impetuous Troops): "A unit must take a Control Test in the following
#: circumstances" (1-8).
CONTROL_REASONS: tuple[str, ...] = (
    "The unit has won a round of melee but the Player controlling them does not wish to Follow-Up.",
    "The unit has won a round of melee and seen its opponents break into a Rout.",
    "The unit is Close-Combat Cavalry in charge reach of an enemy unit that fired at them, this "
    "Game Turn.",
    "The unit is D or E class troops (or any Irregular troops), seeing an enemy unit break into "
    "rout, within charge reach.",
    "The unit is (formed) A class cavalry, who can see an enemy Close-Combat cavalry unit within "
    "charge reach.",
    "The unit has already failed its Control Test and now wishes to retake it (phase 16).",
    "The unit are mercenaries (M class) within charge reach of a loot-worthy enemy encampment, "
    "baggage train or settlement.",
    "In a campaign scenario, a unit sees an enemy unit that it hates.",
)

#: THE CONTROL TEST CHART factors (class lines keyed ``class_*``; ``a_cavalry`` / ``a_infantry``
#: are the two A-class lines). "*": with a Rash commander the -1 / -2 commander lines count +0 /
#: +1 (:data:`CONTROL_RASH_COMMANDER`).
CONTROL_FACTORS: dict[str, Factor] = _factors(
    (
        ("a_cavalry", "A class Cavalry", +2),
        ("per_20pct_lost", "Each full 20% of original unit figure-strength lost", -1),
        ("a_infantry", "A class Infantry", -2),
        ("hard_cover", "In or behind Hard cover", -2),
        ("class_B", "B class troops", -1),
        ("soft_cover", "In or behind Soft cover", -1),
        ("class_C", "C or M class troops", 0),
        ("class_M", "C or M class troops", 0),
        ("shot_by_cause", "Being shot at, by the enemy unit causing this test", +1),
        ("class_D", "D class troops", +1),
        ("shot_by_others", "Being shot at, by enemy units NOT causing this test", -1),
        ("class_E", "E class troops", +2),
        ("friend_halted_advancing", "Each friendly unit Halted / Advancing, within 150yds", -1),
        ("irregular", "Troops are Irregulars (extra +1)", +1),
        ("enemy_halted_advancing", "Each enemy unit Halted / Advancing, within 150yds", +1),
        ("advancing", "Advancing \u2013 this Game Turn", +1),
        ("friend_routing", "Each friendly unit Routing / Falling Back, within 150yds", -1),
        ("pushing_forward", "Pushing Forward in melee \u2013 this Game Turn", +1),
        ("enemy_routing", "Each enemy unit Routing / Falling Back, within 150yds", +1),
        ("halted", "Halted \u2013 this Game Turn", 0),
        ("commander_near", "Commander Figure within 150yds of the unit*", -1),
        ("falling_back", "Falling Back \u2013 this Game Turn", -1),
        ("commander_with", "Commander Figure with the testing unit*", -2),
        ("disordered", "Disordered \u2013 this Game Turn", -1),
        (
            "contingent_commander_lost",
            "The testing Unit's \u201ccontingent\u201d Commander figure is "
            "either killed, wounded or not in sight",
            +2,
        ),
        ("insecure_flank", "Each \u201cInsecure\u201d unit flank or rear", -2),
        (
            "inspirational",
            "An Inspirational Figure is either with the testing Unit or seen within 150yds.",
            +1,
        ),
        ("downslope", "Unit is downslope of enemy within 150yds", -1),
        (
            "inspirational_lost",
            "The testing Unit has seen an Inspirational Figure killed or wounded",
            -2,
        ),
    )
)

#: "*The -1 and -2 factors are respectively re-classed as +0 or +1, if the Commander Figure
#: present is Rash."
CONTROL_RASH_COMMANDER: dict[str, int] = {"commander_near": 0, "commander_with": +1}

#: RESULT: "Final score is 3 or lower: Test Passed ... 4 or higher: Test Failed".
CONTROL_PASS_MAX = 3


def control_passed(total: int) -> bool:
    """THE CONTROL TEST CHART result: passed at 3 or lower, failed (impetuous) at 4 or higher.

    >>> control_passed(3), control_passed(4)
    (True, False)
    """
    return total <= CONTROL_PASS_MAX


#: REASONS TO TAKE A MORALE TEST, "listed by Order of Priority".
MORALE_REASONS: tuple[str, ...] = (
    "Wishing to Counter-Charge an enemy unit (that is charging another friendly unit).",
    "The testing unit is already Charging and wishes to Charge Home while under fire.",
    "Wishing to evade an enemy Charge, or receive a Charge (including forming a Hedgehog or "
    "Stand-of-Pike).",
    "The unit has Drawn or Lost the present round of Melee.",
    "Seeing a Commander Figure or Inspirational Figure killed within 150yds.",
    "Seeing friendly units Routing or Falling-back in disorder within 150yds (not Artillery or "
    "Skirmishers).",
    "The testing unit has just seen previously unseen enemy, for the first time.",
    "Losing casualties this Game Turn due to enemy firing.",
    "The first time in the game that the unit is Under Fire.",
    "Attempting to Rally from a Rout, or restore a unit's Morale status back to Obey Orders.",
    "The first Game Turn (and every one after) that a unit's figure strength falls to 50% or less.",
    "The unit's contingent Commander figure is either killed or wounded (test every Game Turn).",
)

#: THE MORALE TEST CHART factors (class lines keyed ``class_*``; ``commander_with`` is the "+?"
#: line, worth :data:`COMMANDER_MORALE_VALUE` of the commander present).
MORALE_FACTORS: dict[str, Factor] = _factors(
    (
        ("class_A", "A class troops", +2),
        ("no_friends_in_sight", "No other friendly units are in sight", -2),
        ("class_B", "B class troops", +1),
        ("friend_halted_advancing", "Each friendly unit Halted / Advancing, within 150yds", +1),
        ("class_C", "C or M class troops", 0),
        ("class_M", "C or M class troops", 0),
        ("friend_routing", "Each friendly unit Routing / Falling Back, within 150yds", -1),
        ("class_D", "D class troops or Artillery Gunners", -1),
        ("enemy_halted_advancing", "Each enemy unit Halted / Advancing, within 150yds", -1),
        ("class_E", "E class troops", -2),
        ("enemy_routing", "Each enemy unit Routing / Falling Back, within 150yds", +1),
        ("impetuous", "Impetuous Troops", +1),
        ("soft_cover", "Unit is in or behind SOFT Cover", +1),
        ("charging", "Unit is Charging already \u2013 this Game Turn", +2),
        ("hard_cover", "Unit is in or behind HARD Cover", +2),
        ("advancing", "Unit is Advancing already \u2013 this Game Turn", +1),
        ("firing", "Firing at the enemy (this or last Game Turn)", +1),
        ("halted", "Unit is Halted \u2013 this Game Turn", 0),
        ("under_fire_formed", "Under fire from non-skirmishing Infantry or Cavalry", -1),
        ("falling_back_good_order", "Falling Back / Being Pushed Back in good order", -1),
        ("under_fire_skirmishers", "Under fire from Skirmishing Infantry or Cavalry", -1),
        ("falling_back_disorder", "Falling Back / Being Pushed Back in disorder", -2),
        ("under_fire_artillery", "Under fire from Artillery", -1),
        ("routing", "Unit is Routing (in disorder)", -4),
        ("commander_seen", "A Commander figure seen within 150yds of unit", +1),
        ("disordered", "Disordered (but also charging, advancing or halted)", -2),
        ("commander_with", "A Commander figure is with the testing unit", 0),
        (
            "artillery_wagons_skirmish_loose",
            "Unit is Artillery, Wagons, Skirmish / Loose- order",
            -1,
        ),
        (
            "contingent_commander_lost",
            "The testing Unit's \u201ccontingent\u201d Commander figure is "
            "either killed, wounded or not in sight",
            -3,
        ),
        ("hedgehog", "Formed Infantry in a Hedgehog or Stand-of-Pike", +3),
        ("insecure_flank", "Each \u201cInsecure\u201d unit flank or rear", -2),
        (
            "inspirational",
            "An Inspirational Figure is either with the testing Unit or seen within 150yds.",
            +2,
        ),
        ("downslope", "Unit is downslope of enemy within 150yds", -1),
        ("per_10pct_lost", "Each full 10% of original unit figure-strength lost", -2),
        (
            "inspirational_lost",
            "The testing Unit has seen an Inspirational Figure killed or wounded",
            -4,
        ),
        (
            "charge_soft_target",
            "Wishing to charge enemy unit's Flank or Rear, or enemy Skirmishers, "
            "Disordered Troops, Limbered Artillery or Wagons",
            +2,
        ),
        (
            "hedgehog_vs_close_infantry",
            "The testing unit is an Infantry Hedgehog or Stand-of-Pike "
            "within the charge range of enemy Close-order Infantry",
            -1,
        ),
    )
)


class MoraleColumn(StrEnum):
    """ "Reason for the Test" columns of the MORALE TEST RESULT chart."""

    RECEIVING_CHARGE = "Receiving a Charge"
    EVADING_CHARGE = "Evading a Charge"
    CASUALTIES_CHARGING = "Losing Casualties while Charging"
    RALLY = "Rally from A Rout"
    OTHER = "All other Reasons"


class MoraleResult(StrEnum):
    """The results printed in the MORALE TEST RESULT chart."""

    RECEIVE_GOOD_ORDER = "receive charge in good order"
    RECEIVE_DISORDER = "receive charge in disorder"
    ROUT_ON_CONTACT = "rout when enemy makes contact"
    FALL_BACK_GOOD_ORDER = "fall back in good order"
    FALL_BACK_DISORDER = "fall back in disorder"
    ROUT = "rout"
    ACT_AS_ORDERED = "act as ordered"
    NO_ADVANCE = "no advance"
    HALF_SPEED = "half speed advance"


# The "Total Score" bands, best first, as printed.
MORALE_BANDS: tuple[str, ...] = (
    "+4 or more",
    "+2 or +3",
    "+0 or +1",
    "-1 or -2",
    "-3 or -4",
    "-5 or less",
)

# MORALE TEST RESULT as printed: band -> the five columns' cells.
_MORALE_RESULT_TEXT: dict[str, tuple[str, str, str, str, str]] = {
    "+4 or more": (
        "Receive Charge in good order",
        "Fall back in good order",
        "Act as Ordered",
        "No Advance",
        "Act as Ordered",
    ),
    "+2 or +3": (
        "Receive Charge in good order",
        "Fall back in good order",
        "Act as Ordered",
        "No Advance",
        "Half speed advance",
    ),
    "+0 or +1": (
        "Receive Charge in disorder",
        "Fall back in disorder",
        "Half speed advance",
        "Fall back in disorder",
        "No Advance",
    ),
    "-1 or -2": (
        "Receive Charge in disorder",
        "Fall back in disorder",
        "Half speed advance",
        "Fall back in disorder",
        "Fall back in good order",
    ),
    "-3 or -4": (
        "Rout when enemy makes contact",
        "Rout",
        "No Advance",
        "Rout",
        "Fall back in disorder",
    ),
    "-5 or less": ("Rout when enemy makes contact", "Rout", "No Advance", "Rout", "Rout"),
}

MORALE_RESULT_CHART: dict[str, dict[MoraleColumn, MoraleResult]] = {
    band: {col: MoraleResult(cell.lower()) for col, cell in zip(MoraleColumn, cells, strict=True)}
    for band, cells in _MORALE_RESULT_TEXT.items()
}


def morale_band(total: int) -> str:
    """The MORALE TEST RESULT row of a total score.

    >>> [morale_band(t) for t in (4, 3, 1, 0, -2, -4, -5)]
    ['+4 or more', '+2 or +3', '+0 or +1', '+0 or +1', '-1 or -2', '-3 or -4', '-5 or less']
    """
    if total >= 4:
        return MORALE_BANDS[0]
    if total >= 2:
        return MORALE_BANDS[1]
    if total >= 0:
        return MORALE_BANDS[2]
    if total >= -2:
        return MORALE_BANDS[3]
    if total >= -4:
        return MORALE_BANDS[4]
    return MORALE_BANDS[5]


def morale_result(column: MoraleColumn, total: int) -> MoraleResult:
    """MORALE TEST RESULT: what a unit testing for ``column``'s reason does on ``total``."""
    return MORALE_RESULT_CHART[morale_band(total)][MoraleColumn(column)]


#: The explanations printed under the MORALE TEST RESULT chart (abridged), by result.
MORALE_RESULT_TEXT: dict[MoraleResult, str] = {
    MoraleResult.ROUT: "Becomes disordered and moves back at its March Rate plus d10 rolls "
    "(backs to the enemy) in the next Compulsory Movement phase; may not fire; routing artillery "
    "abandons its guns.",
    MoraleResult.ROUT_ON_CONTACT: "Receives the charge, then routs when the enemy makes contact.",
    MoraleResult.FALL_BACK_DISORDER: 'Close/loose infantry moves back 5cm (2"), cavalry 10cm '
    '(4"), facing the enemy, disordered (routers are rallied); skirmishers fall back in order but '
    "may not fire this turn; artillery d10: 1-5 abandons its guns, 6-10 manhandles or limbers "
    "back.",
    MoraleResult.FALL_BACK_GOOD_ORDER: 'Infantry moves back 5cm (2"), cavalry 10cm (4"), facing '
    "the enemy, in its formation; skirmishers fire at half headcount; artillery manhandles or "
    "limbers back.",
    MoraleResult.NO_ADVANCE: "Chargers halt disordered 5cm in front of the enemy; routers rally "
    "(disordered one phase); others may not move towards the enemy nor charge for one full turn "
    "(may fire, change formation, receive a charge, evade).",
    MoraleResult.HALF_SPEED: "Chargers still move at charge speed but as advancing-into-contact; "
    "would-be chargers may not declare a charge (may react); others advance at most half March "
    "Rate towards the enemy.",
    MoraleResult.ACT_AS_ORDERED: "The unit does what the controlling player wishes.",
    MoraleResult.RECEIVE_GOOD_ORDER: "Receives the charge in good order.",
    MoraleResult.RECEIVE_DISORDER: "Receives the charge in disorder.",
}

#: Fall back distances ("Fall back in disorder / good order"): infantry 5cm (2"), cavalry 10cm
#: (4").
FALL_BACK_DISTANCE: dict[str, Distance] = {
    "infantry": Distance(5, 2),
    "cavalry": Distance(10, 4),
}

#: Artillery falling back in disorder: d10 1-5 abandon the guns, 6-10 manhandle or limber back.
ARTILLERY_FALL_BACK_ABANDON_MAX = 5

#: "within 150yds" = 12" / 30cm (20-28mm figures) or 8" / 20cm (10-18mm figures).
YARDS_150: dict[str, Distance] = {"25mm": Distance(30, 12), "15mm": Distance(20, 8)}
