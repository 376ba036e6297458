"""medieval-d10: every chart cell of the quick reference against the book.

Each chart is checked twice: against a transcription typed into this test (independent of the
module's data) and, where the quick reference text is beside the repository
(``shared/rules/002_ab38124a85c18dc4.txt``), against the printed text itself: the book runs its
cells together ("Short 87654"), so the tests rebuild that run-together form and find it.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from engine.rulesets.medieval_d10.charts import (
    ARTILLERY_MOVEMENT_CHART,
    COMMANDER_KILLED_VALUE,
    COMMANDER_MORALE_VALUE,
    CONTROL_FACTORS,
    CONTROL_REASONS,
    FIRING_CHART,
    FIRING_MODIFIERS,
    FIRING_RANGES,
    FIRING_ROW_OF,
    GAME_TURN_SEQUENCE,
    INITIATIVE_MODIFIER,
    MELEE_CHART,
    MELEE_MODIFIERS,
    MORALE_FACTORS,
    MORALE_REASONS,
    MORALE_RESULT_CHART,
    MOVEMENT_CHART,
    PART_DICE_SAVE,
    TERRAIN_CHART,
    YARDS_150,
    ArmourGrade,
    ArtilleryCarriage,
    CommanderKind,
    FiringRow,
    MeleeRow,
    MissileWeapon,
    MoraleColumn,
    MoraleResult,
    MovementRow,
    Phase,
    RangeBand,
    Side,
    TerrainColumn,
    TerrainRow,
    TroopClass,
    clamp_score,
    control_passed,
    factor_for_face,
    melee_grade,
    morale_result,
    range_band,
)

_NAME = "002_ab38124a85c18dc4.txt"
_CANDIDATES = [p / "shared" / "rules" / _NAME for p in Path(__file__).resolve().parents]


def _book() -> str:
    for path in _CANDIDATES:
        if path.exists():
            return path.read_text(encoding="utf-8")
    pytest.skip(f"quick reference text not beside the repository ({_NAME})")


def _squash(text: str) -> str:
    """Compare the run-together book text without spaces, quotes or case."""
    return re.sub(r"[\s\u201c\u201d\"'\u2019\u2013\-]", "", text).lower()


# GAME TURN SEQUENCE CHART ----------------------------------------------------------------------

SEQUENCE = [
    (1, "both", "Initiative"),
    (2, "A", "Weather, Wind Strength and Wind Direction"),
    (3, "both", "Compulsory Movement"),
    (4, "A", "Charges to Declare"),
    (5, "B", "Charges and Counter-charges to Declare"),
    (6, "B", "Declare Reaction-to-Charges"),
    (7, "A", "Declare Reaction to Charges"),
    (8, "A", "Charge & Reaction-to-Charge Movement"),
    (9, "B", "Charge & Reaction-to-Charge Movement"),
    (10, "both", "Morale Tests"),
    (11, "A", "Normal Movement and Firing"),
    (12, "B", "Normal Movement and Firing"),
    (13, "both", "Melee Calculations"),
    (15, "both", "Morale Tests"),
    (16, "both", "Control Tests"),
]


def test_game_turn_sequence_chart_numbers_sides_and_names() -> None:
    got = [(int(p.phase), p.side.value, p.name) for p in GAME_TURN_SEQUENCE]
    assert got == SEQUENCE
    assert 14 not in {int(p) for p in Phase}  # the book's chart has no phase 14


def test_game_turn_sequence_chart_against_the_book() -> None:
    book = _squash(_book())
    for number, side, name in SEQUENCE:
        side_text = "Both" if side == "both" else side
        assert _squash(f"{number}{side_text}{name}") in book, (number, name)


def test_initiative_and_commander_values() -> None:
    assert INITIATIVE_MODIFIER == {
        CommanderKind.CAUTIOUS: 2,
        CommanderKind.BOLD: 4,
        CommanderKind.RASH: 4,
        CommanderKind.EXCEPTIONAL: 6,
    }
    assert [COMMANDER_MORALE_VALUE[k] for k in CommanderKind] == [1, 2, 2, 3]
    assert [COMMANDER_KILLED_VALUE[k] for k in CommanderKind] == [-1, -2, -2, -3]
    book = _squash(_book())
    assert _squash("Cautious Commander +2, Bold Commander +4, Rash Commander +4") in book
    assert _squash("Cautious = 1, Bold = 2, Rash = 2, Exceptional = 3") in book
    assert _squash("Cautious -1, Bold -2, Rash -2, Exceptional -3") in book


# MOVEMENT CHART --------------------------------------------------------------------------------

# row, classes, line (cm, in), column (cm, in), bonus (cm, in): typed from the book
MOVEMENT = [
    ("SH_EH_CLOSE_INFANTRY", "ABCM", (10, 4), (16, 6), (6, 2)),
    ("HML_CLOSE_INFANTRY", "ABCM", (16, 6), (20, 8), (6, 2)),
    ("HML_CLOSE_INFANTRY", "D", (10, 4), (16, 6), (6, 2)),
    ("LOOSE_SKIRMISH_INFANTRY", "ABCM", (20, 8), (28, 10), (6, 2)),
    ("LOOSE_SKIRMISH_INFANTRY", "DE", (16, 6), (20, 8), (6, 2)),
    ("SH_EH_CAVALRY", "ABM", (28, 10), (10, 4), (12, 4)),
    ("HML_CAVALRY", "ABCM", (32, 12), (40, 16), (12, 4)),
    ("HML_CAVALRY", "D", (28, 10), (36, 14), (12, 4)),
    ("SKIRMISH_CAVALRY", "ABCM", (40, 16), (48, 20), (12, 4)),
    ("SKIRMISH_CAVALRY", "DE", (36, 14), (44, 18), (12, 4)),
]


def test_movement_chart_every_cell() -> None:
    seen = 0
    for row, classes, line, column, bonus in MOVEMENT:
        for c in classes:
            cell = MOVEMENT_CHART[MovementRow[row]][TroopClass(c)]
            assert (cell.line.cm, cell.line.inches) == line, (row, c)
            assert (cell.column.cm, cell.column.inches) == column, (row, c)
            assert (cell.bonus.cm, cell.bonus.inches) == bonus, (row, c)
            seen += 1
    # and nothing the book does not print (E close-order foot, C or D super-heavy horse ...)
    assert sum(len(v) for v in MOVEMENT_CHART.values()) == seen
    assert TroopClass.E not in MOVEMENT_CHART[MovementRow.HML_CLOSE_INFANTRY]
    assert TroopClass.C not in MOVEMENT_CHART[MovementRow.SH_EH_CAVALRY]


def test_movement_chart_against_the_book() -> None:
    book = _squash(_book())
    for _, classes, line, column, bonus in MOVEMENT:
        text = (
            f'{line[0]} cm ({line[1]}"){column[0]} cm ({column[1]}")+ {bonus[0]} cm ({bonus[1]}")'
        )
        assert _squash(text) in book, (classes, text)


ARTILLERY = {
    "HEAVY": ((10, 4), (6, 2), Fraction(1), (6, 2)),
    "MEDIUM": ((16, 6), (8, 3), Fraction(1), (6, 2)),
    "LIGHT": ((20, 8), (10, 4), Fraction(1, 2), (6, 2)),
    "GALLOPER": ((20, 8), (10, 4), Fraction(1, 2), (12, 4)),
}


def test_artillery_movement_chart_every_cell() -> None:
    for name, (limbered, manhandled, turns, road) in ARTILLERY.items():
        cell = ARTILLERY_MOVEMENT_CHART[ArtilleryCarriage[name]]
        assert (cell.limbered.cm, cell.limbered.inches) == limbered
        assert (cell.manhandled.cm, cell.manhandled.inches) == manhandled
        assert cell.limber_turns == turns
        assert (cell.road_bonus.cm, cell.road_bonus.inches) == road
    book = _squash(_book())
    for name, (limbered, manhandled, turns, road) in ARTILLERY.items():
        game_turns = "1" if turns == 1 else "0.5"
        text = (
            f'{ArtilleryCarriage[name].printed}{limbered[0]} cm ({limbered[1]}")'
            f'{manhandled[0]} cm ({manhandled[1]}"){game_turns} Game Turn+ {road[0]} cm'
        )
        assert _squash(text) in book, name


# TERRAIN CHART ---------------------------------------------------------------------------------

H = Fraction(1, 2)
Q = Fraction(1, 4)
TQ = Fraction(3, 4)
# row -> per column (close/loose inf, close cav, skirmish, limbered artillery, road):
# (fraction, disordered); "track" = only on a track, "gap" = only on track, road or gap;
# None = blank cell. Typed from the book.
TERRAIN = {
    "BUILT_UP_BROKEN_WOOD": [(H, True), (H, True), (H, False), (H, False), (1, False)],
    "ORCHARD_COPSE": [(H, False), (H, False), (TQ, False), (H, False), None],
    "STREAM_FORD": [(H, True), (H, True), (H, False), (H, False), (H, False)],
    "MARSH": ["track", "gap", (H, False), "gap", (1, False)],
    "WALL_FENCE_HEDGE": [(H, True), (H, True), (H, True), (H, True), (1, False)],
    "GENTLE_SLOPE": [(H, False), (H, False), (TQ, False), (H, False), None],
    "STEEP_SLOPE": [(Q, False), (Q, False), (H, False), (Q, False), None],
}


def test_terrain_chart_every_cell() -> None:
    for row, cells in TERRAIN.items():
        for column, want in zip(TerrainColumn, cells, strict=True):
            cell = TERRAIN_CHART[TerrainRow[row]][column]
            if want is None:
                assert cell.text is None and cell.fraction is None, (row, column)
            elif want == "track":
                assert cell.track_only and cell.fraction is None, (row, column)
            elif want == "gap":
                assert cell.track_road_or_gap and cell.fraction is None, (row, column)
            else:
                assert (cell.fraction, cell.disordered) == want, (row, column)
    marsh_skirmish = TERRAIN_CHART[TerrainRow.MARSH][TerrainColumn.SKIRMISH]
    assert marsh_skirmish.cavalry_fraction == H and marsh_skirmish.cavalry_track_road_or_gap
    for row in ("GENTLE_SLOPE", "STEEP_SLOPE"):  # "Up / Down***": artillery pays both ways
        cells = TERRAIN_CHART[TerrainRow[row]]
        assert cells[TerrainColumn.LIMBERED_ARTILLERY].downhill
        assert not cells[TerrainColumn.CLOSE_CAVALRY].downhill


def test_terrain_chart_against_the_book() -> None:
    book = _squash(_book())
    for row in TerrainRow:
        texts = [c.text for c in TERRAIN_CHART[row].values() if c.text not in (None, "**")]
        if row is TerrainRow.WALL_FENCE_HEDGE:  # one printed cell spans the four troop columns
            assert len(set(texts)) == 1
            texts = texts[:1]
        cells = "".join(texts)
        first_word = row.value.split(",")[0].split()[0]
        start = book.index(_squash(first_word), book.index(_squash("TERRAIN CHART")))
        # footnote marks are printed inconsistently; compare without them
        assert _squash(cells).replace("*", "") in book[start : start + 400].replace("*", ""), row


# Firing Ranges Chart and FIRING CHART ----------------------------------------------------------

RANGES = {
    ("light_crossbow", "composite_bow", "musket"): [(20, 8), (40, 16), (60, 24)],
    ("heavy_crossbow", "longbow"): [(25, 10), (50, 20), (75, 30)],
    ("arquebus", "caliver"): [(15, 6), (30, 12), (45, 18)],
    ("handgonne", "sling"): [(10, 4), (20, 8), (30, 12)],
    ("javelin", "pistol"): [(5, 2), (10, 4), (15, 6)],
    ("light_field_artillery",): [(40, 16), (80, 32), (120, 48)],
    ("medium_field_artillery",): [(60, 24), (120, 48), (180, 72)],
    ("heavy_handgonne_artillery",): [(20, 8), (40, 16), (60, 24)],
}


def test_firing_ranges_chart_every_cell_and_band_edges() -> None:
    assert {w for ws in RANGES for w in ws} == {w.value for w in MissileWeapon}
    for weapons, bands in RANGES.items():
        for weapon in weapons:
            got = FIRING_RANGES[MissileWeapon(weapon)]
            assert [(got[b].cm, got[b].inches) for b in RangeBand] == bands
            short, medium, long_ = (cm for cm, _ in bands)
            w = MissileWeapon(weapon)
            assert range_band(w, short) is RangeBand.SHORT
            assert range_band(w, short + 0.1) is RangeBand.MEDIUM  # "rounded up"
            assert range_band(w, medium) is RangeBand.MEDIUM
            assert range_band(w, long_) is RangeBand.LONG
            assert range_band(w, long_ + 0.01) is None
    book = _squash(_book())
    for bands in RANGES.values():
        text = "".join(f'{cm}cm ({inch}")' for cm, inch in bands)
        assert _squash(text) in book, text


# (short, medium, long) rows over Super Heavy, Extra Heavy, Heavy, Medium, Light: typed
FIRING = {
    "BOW": [(8, 7, 6, 5, 4), (9, 8, 7, 6, 5), (10, 9, 8, 7, 6)],
    "HEAVY_CROSSBOW_FIREARM": [(7, 6, 5, 4, 3), (8, 7, 6, 5, 4), (9, 8, 7, 6, 5)],
    "JAVELIN_SLING": [(9, 8, 7, 6, 5), (10, 9, 8, 7, 6), (10, 10, 9, 8, 7)],
    "ARTILLERY": [(4, 4, 4, 4, 4), (5, 5, 5, 5, 5), (6, 6, 6, 6, 6)],
}


def test_firing_chart_every_cell() -> None:
    for row, bands in FIRING.items():
        for band, scores in zip(RangeBand, bands, strict=True):
            got = FIRING_CHART[FiringRow[row]][band]
            assert tuple(got[a] for a in ArmourGrade) == scores, (row, band)


def test_firing_chart_against_the_book() -> None:
    book = _squash(_book())
    for row, bands in FIRING.items():
        text = FiringRow[row].value.replace(", ", "") + "".join(
            f"{name} {''.join(map(str, s))}"
            for name, s in zip(("Short", "Medium", "Long"), bands, strict=True)
        )
        assert _squash(text) in book.replace(",", ""), row  # the book has "Javelin, Sling"


def test_every_weapon_has_a_firing_row() -> None:
    assert set(FIRING_ROW_OF) == set(MissileWeapon)
    assert FIRING_ROW_OF[MissileWeapon.CALIVER] is FiringRow.HEAVY_CROSSBOW_FIREARM
    assert FIRING_ROW_OF[MissileWeapon.LONGBOW] is FiringRow.BOW


FIRING_MODS = {
    "class_A": -2,
    "barded_horses": 1,
    "class_B": -1,
    "class_C": 0,
    "class_M": 0,
    "shields": 1,
    "class_D": 1,
    "class_E": 2,
    "fourth_volley": 1,
    "under_fire": 1,
    "moving_target": 1,
    "resting": -1,
    "skirmishers_or_deployed_artillery": 2,
    "limbered_artillery_or_wagons": -1,
    "soft_cover": 1,
    "loose_order_foot": 1,
    "hard_cover": 2,
    "three_ranks_deep": -1,
    "light_rain": 1,
    "column_or_schiltron": -2,
    "heavy_rain": 2,
    "first_shot": -1,
    "gun_smoke": 2,
}

MELEE_MODS = {
    "charging": -1,
    "upslope": -1,
    "impetuous": -1,
    "pushed_back": 1,
    "vs_formed_pike_infantry": 1,
    "commander_front_rank": 1,
    "vs_formed_pike_cavalry": 2,
    "mounted_infantry": 1,
    "pike_rank": 1,
    "soft_cover_infantry": 1,
    "halberd_rank": 1,
    "hard_cover_infantry": 2,
    "shields": 1,
    "soft_cover_cavalry": 2,
    "free_hack": -2,
    "hard_cover_cavalry": 3,
}


def _modifier_lines_in_book(table: dict, book: str, skip: set[str] = frozenset()) -> None:
    for key, factor in table.items():
        if key in skip:
            continue
        sign = f"{factor.value:+d}"
        assert _squash(factor.text + sign) in book, key


def test_firing_and_melee_modifiers_every_line() -> None:
    assert {k: f.value for k, f in FIRING_MODIFIERS.items()} == FIRING_MODS
    assert {k: f.value for k, f in MELEE_MODIFIERS.items()} == MELEE_MODS
    book = _squash(_book())
    _modifier_lines_in_book(FIRING_MODIFIERS, book)
    _modifier_lines_in_book(MELEE_MODIFIERS, book)
    assert _squash("greater than 10, counts as 10. Any final modified score less than 2") in book
    assert [clamp_score(s) for s in (-3, 1, 2, 10, 11, 15)] == [2, 2, 2, 10, 10, 10]


# MELEE CHART -----------------------------------------------------------------------------------

MELEE = {
    "TWO_HANDED": {
        "A": (6, 5, 4, 3, 2),
        "B": (7, 6, 5, 4, 3),
        "C": (8, 7, 6, 5, 4),
        "D": (9, 8, 7, 6, 5),
    },
    "ONE_HANDED": {"A": (7, 6, 5, 4, 3), "B": (8, 7, 6, 5, 4), "C": (9, 8, 7, 6, 5)},
    "SWORD_SPEAR_PIKE": {
        "A": (8, 7, 6, 5, 4),
        "B": (9, 8, 7, 6, 5),
        "C": (10, 9, 8, 7, 6),
        "D": (10, 10, 9, 8, 7),
    },
    "KNIFE_CUDGEL": {"C": (10, 10, 9, 8, 7), "D": (10, 10, 10, 9, 8)},
    "HEAVY_LANCE": {"A": (6, 5, 4, 3, 2), "B": (7, 6, 5, 4, 3)},
    "LIGHT_LANCE": {"A": (7, 6, 5, 4, 3), "B": (8, 7, 6, 5, 4), "C": (9, 8, 7, 6, 5)},
    "CAVALRY_POLEARM": {"A": (8, 7, 6, 5, 4), "B": (9, 8, 7, 6, 5), "C": (10, 9, 8, 7, 6)},
}


def test_melee_chart_every_cell() -> None:
    for row, grades in MELEE.items():
        got = MELEE_CHART[MeleeRow[row]]
        assert {g.value for g in got} == set(grades), row
        for grade, scores in grades.items():
            assert tuple(got[TroopClass(grade)][a] for a in ArmourGrade) == scores, (row, grade)


def test_melee_chart_against_the_book() -> None:
    book = _squash(_book())
    for row, grades in MELEE.items():
        text = "".join(f"{g}{''.join(map(str, s))}" for g, s in grades.items())
        assert _squash(text) in book, row


def test_melee_grade_for_classes_the_chart_does_not_print() -> None:
    # M fights as C, E as D; clamped to the printed lines (docs/rules-interpretations.md)
    expect = {
        ("HEAVY_LANCE", "C"): "B",
        ("HEAVY_LANCE", "M"): "B",
        ("KNIFE_CUDGEL", "A"): "C",
        ("KNIFE_CUDGEL", "E"): "D",
        ("ONE_HANDED", "D"): "C",
        ("TWO_HANDED", "E"): "D",
        ("SWORD_SPEAR_PIKE", "M"): "C",
        ("LIGHT_LANCE", "E"): "C",
    }
    for (row, cls), want in expect.items():
        assert melee_grade(MeleeRow[row], cls) is TroopClass(want), (row, cls)
    for row, grades in MELEE.items():  # printed lines map to themselves
        for g in grades:
            assert melee_grade(MeleeRow[row], g) is TroopClass(g)


def test_part_dice_chart_and_automatic_kills_text() -> None:
    assert PART_DICE_SAVE == {4: 9, 3: 7, 2: 5, 1: 3}
    book = _squash(_book())
    assert _squash("Saving Throw Needed49+37+25+13+") in book
    assert _squash("they would inflict two Automatic Kills and then roll four d10") in book


# CONTROL TEST ---------------------------------------------------------------------------------

CONTROL = {
    "a_cavalry": 2,
    "per_20pct_lost": -1,
    "a_infantry": -2,
    "hard_cover": -2,
    "class_B": -1,
    "soft_cover": -1,
    "class_C": 0,
    "class_M": 0,
    "shot_by_cause": 1,
    "class_D": 1,
    "shot_by_others": -1,
    "class_E": 2,
    "friend_halted_advancing": -1,
    "irregular": 1,
    "enemy_halted_advancing": 1,
    "advancing": 1,
    "friend_routing": -1,
    "pushing_forward": 1,
    "enemy_routing": 1,
    "halted": 0,
    "commander_near": -1,
    "falling_back": -1,
    "commander_with": -2,
    "disordered": -1,
    "contingent_commander_lost": 2,
    "insecure_flank": -2,
    "inspirational": 1,
    "downslope": -1,
    "inspirational_lost": -2,
}


def test_control_test_chart_every_factor() -> None:
    assert {k: f.value for k, f in CONTROL_FACTORS.items()} == CONTROL
    assert len(CONTROL_REASONS) == 8
    _modifier_lines_in_book(CONTROL_FACTORS, _squash(_book()))


def test_control_result_exhaustive() -> None:
    for total in range(-20, 21):
        assert control_passed(total) is (total <= 3), total
    assert [factor_for_face(f) for f in range(1, 11)] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    for bad in (0, 11):
        with pytest.raises(ValueError, match=r"1\.\.10"):
            factor_for_face(bad)


# MORALE TEST -----------------------------------------------------------------------------------

MORALE = {
    "class_A": 2,
    "no_friends_in_sight": -2,
    "class_B": 1,
    "friend_halted_advancing": 1,
    "class_C": 0,
    "class_M": 0,
    "friend_routing": -1,
    "class_D": -1,
    "enemy_halted_advancing": -1,
    "class_E": -2,
    "enemy_routing": 1,
    "impetuous": 1,
    "soft_cover": 1,
    "charging": 2,
    "hard_cover": 2,
    "advancing": 1,
    "firing": 1,
    "halted": 0,
    "under_fire_formed": -1,
    "falling_back_good_order": -1,
    "under_fire_skirmishers": -1,
    "falling_back_disorder": -2,
    "under_fire_artillery": -1,
    "routing": -4,
    "commander_seen": 1,
    "disordered": -2,
    "commander_with": 0,
    "artillery_wagons_skirmish_loose": -1,
    "contingent_commander_lost": -3,
    "hedgehog": 3,
    "insecure_flank": -2,
    "inspirational": 2,
    "downslope": -1,
    "per_10pct_lost": -2,
    "inspirational_lost": -4,
    "charge_soft_target": 2,
    "hedgehog_vs_close_infantry": -1,
}


def test_morale_test_chart_every_factor() -> None:
    assert {k: f.value for k, f in MORALE_FACTORS.items()} == MORALE
    assert len(MORALE_REASONS) == 12
    # "commander_with" is printed "+?" (the commander's value), not a number
    _modifier_lines_in_book(MORALE_FACTORS, _squash(_book()), skip={"commander_with"})


R, RD, RC = (
    "receive charge in good order",
    "receive charge in disorder",
    "rout when enemy makes contact",
)
FG, FD, ROUT = "fall back in good order", "fall back in disorder", "rout"
ACT, NA, HS = "act as ordered", "no advance", "half speed advance"
# (lowest total of the band, columns: receiving, evading, casualties charging, rally, other)
MORALE_RESULTS = [
    (4, (R, FG, ACT, NA, ACT)),
    (2, (R, FG, ACT, NA, HS)),
    (0, (RD, FD, HS, FD, NA)),
    (-2, (RD, FD, HS, FD, FG)),
    (-4, (RC, ROUT, NA, ROUT, FD)),
    (-99, (RC, ROUT, NA, ROUT, ROUT)),
]


def _expected_morale(column: int, total: int) -> str:
    for low, cells in MORALE_RESULTS:
        if total >= low:
            return cells[column]
    raise AssertionError(total)


def test_morale_result_chart_exhaustive() -> None:
    for i, column in enumerate(MoraleColumn):
        for total in range(-30, 31):
            assert morale_result(column, total) is MoraleResult(_expected_morale(i, total)), (
                column,
                total,
            )
    assert len(MORALE_RESULT_CHART) == 6


def test_morale_result_chart_against_the_book() -> None:
    book = _squash(_book())
    labels = ["+4 or more", "+2 or +3", "+0 or +1", "-1 or -2", "-3 or -4", "-5 or less"]
    for label, (_, cells) in zip(labels, MORALE_RESULTS, strict=True):
        assert _squash(label + "".join(cells)) in book, label


def test_150_yards_distances() -> None:
    assert (YARDS_150["25mm"].cm, YARDS_150["25mm"].inches) == (30, 12)
    assert (YARDS_150["15mm"].cm, YARDS_150["15mm"].inches) == (20, 8)
    book = _squash(_book())
    assert _squash('12" / 30cm (for 20-28mm figure games) or 8" / 20cm') in book


def test_side_enum_covers_the_chart() -> None:
    assert {p.side for p in GAME_TURN_SEQUENCE} == set(Side)
