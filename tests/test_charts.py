"""Charts 7.2, 7.3, 9.2, 9.3 and 6.3, every cell, against the rulebook (v0.9).

Each chart is checked twice: against a transcription typed into this test (independent of the
module's data), and against the rulebook's own chart cells, copied verbatim from the rulebook
text into ``tests/data/rulebook/`` so the check never depends on a file outside the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.rulesets.two_mm_earth.charts import (
    COVER_CHART,
    MESSENGER_RATE_M,
    ORDER_CHART,
    CoverClass,
    MoveClass,
    Order,
    OrderRule,
    Temperament,
    UnitType,
    cover_modifier,
    order_needs_roll,
    order_outcome,
    sight_limit_m,
    speed_m,
)
from scenario_builder.battlefield import CoverClass as BfCoverClass
from scenario_builder.battlefield import MoveClass as BfMoveClass

RULEBOOK = Path(__file__).resolve().parent / "data" / "rulebook" / "2mm-earth-v0.9-charts.txt"

# Typed from the rulebook: unit -> (plain, wet/debris, woods, impractical); None = cannot travel.
SPEEDS_7_3 = {
    "infantry": (100, 75, 50, 50),
    "light_infantry": (150, 150, 150, 100),
    "cavalry": (300, 150, 150, 50),
    "light_cavalry": (350, 300, 300, 100),
    "wheel_cavalry": (250, 125, 50, None),
    "war_machine": (50, 10, 10, None),
    "baggage": (75, 25, 25, None),
}
# Typed from the rulebook: unit -> per cover column (melee, ranged) R modifiers.
COVER_7_2 = {
    "infantry": ((0, 0), (-1, -1), (-1, 1), (1, 1)),
    "light_infantry": ((0, 0), (0, -1), (0, 1), (1, 2)),
    "cavalry": ((0, 0), (-1, -1), (-1, 0), (0, 1)),
    "light_cavalry": ((0, 0), (-1, -1), (0, 0), (1, 1)),
    "wheel_cavalry": ((0, 0), (-1, 0), (-1, 0), (0, 1)),
    "war_machine": ((0, 0), (0, -1), (-1, 1), (0, 1)),
    "baggage": ((0, -1), (-1, -1), (-1, 1), (0, 1)),
}
ROW_NAMES = {
    "Infantry": "infantry",
    "Light Infantry": "light_infantry",
    "Cavalry": "cavalry",
    "Light Cavalry": "light_cavalry",
    "Wheel Cavalry": "wheel_cavalry",
    "War Machine": "war_machine",
    "Baggage": "baggage",
}


def _rulebook_rows(chart: str) -> dict[str, list[str]]:
    lines = RULEBOOK.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{chart} Unit type\t"))
    rows = {}
    for line in lines[start + 1 : start + 8]:
        name, *cells = line.split("\t")
        rows[ROW_NAMES[name]] = cells
    return rows


def test_enums_are_the_battlefield_contract() -> None:
    assert MoveClass is BfMoveClass and CoverClass is BfCoverClass
    assert [u.value for u in UnitType] == [
        "infantry",
        "light_infantry",
        "cavalry",
        "light_cavalry",
        "wheel_cavalry",
        "war_machine",
        "baggage",
        "monster",
    ]


def test_7_3_speeds_every_cell() -> None:
    columns = [MoveClass.PLAIN, MoveClass.WET, MoveClass.WOODS, MoveClass.IMPRACTICAL]
    for unit, row in SPEEDS_7_3.items():
        for move_class, expected in zip(columns, row, strict=True):
            assert speed_m(unit, move_class) == expected, (unit, move_class)
        # wet and debris share the "Wet/debris" column
        assert speed_m(unit, MoveClass.DEBRIS) == row[1]


def test_7_3_speeds_match_rulebook_text() -> None:
    for unit, cells in _rulebook_rows("7.3").items():
        printed = [None if c == "Cannot travel" else float(c.removesuffix("m")) for c in cells]
        ours = [speed_m(unit, m) for m in (0, 1, 3, 4)]
        assert ours == printed, unit


def test_7_3_speed_accepts_plain_ints_and_rejects_unknowns() -> None:
    assert speed_m("infantry", 0) == 100.0
    with pytest.raises(ValueError, match="expected a unit type"):
        speed_m("elephant", 0)
    with pytest.raises(ValueError):
        speed_m("infantry", 5)


def test_7_2_cover_every_cell() -> None:
    for unit, row in COVER_7_2.items():
        for cover, (melee, ranged) in zip(CoverClass, row, strict=True):
            assert cover_modifier(unit, cover, "melee") == melee, (unit, cover)
            assert cover_modifier(unit, cover, "ranged") == ranged, (unit, cover)


def test_7_2_cover_matches_rulebook_text() -> None:
    def cell(text: str) -> tuple[int, int]:
        return tuple(0 if p == "R" else int(p) for p in text.split("/"))  # type: ignore[return-value]

    for unit, cells in _rulebook_rows("7.2").items():
        assert [COVER_CHART[UnitType(unit)][c] for c in CoverClass] == [cell(c) for c in cells]


def test_7_2_cover_kind_must_be_melee_or_ranged() -> None:
    with pytest.raises(ValueError, match="expected kind"):
        cover_modifier("infantry", CoverClass.OPEN, "artillery")


def test_7_2_7_3_monster_reads_as_cavalry() -> None:
    for m in MoveClass:
        assert speed_m("monster", m) == speed_m("cavalry", m)
    for c in CoverClass:
        for kind in ("melee", "ranged"):
            assert cover_modifier("monster", c, kind) == cover_modifier("cavalry", c, kind)


def test_9_2_messenger_rates() -> None:
    assert MESSENGER_RATE_M == {"prehistoric": 200, "ancients": 500, "modern": 1000}


# 9.3 as printed: (temperament, order) -> outcome for dice 1..6 (None = no roll).
ORDERS_9_3 = {
    ("normal", "attack"): None,
    ("normal", "hold"): None,
    ("normal", "advance"): None,
    ("normal", "retreat"): ["hold"] + ["retreat"] * 5,
    ("reluctant", "attack"): ["hold"] + ["attack"] * 5,
    ("reluctant", "hold"): None,
    ("reluctant", "advance"): None,
    ("reluctant", "retreat"): ["rout"] + ["retreat"] * 5,
    ("rash", "attack"): None,
    ("rash", "hold"): ["hold"] * 2 + ["attack"] * 4,
    ("rash", "advance"): None,
    ("rash", "retreat"): ["hold"] * 2 + ["retreat"] * 4,
}


def test_9_3_order_chart_every_cell() -> None:
    assert len(ORDER_CHART) == 12
    for (temperament, order), outcomes in ORDERS_9_3.items():
        if outcomes is None:
            assert not order_needs_roll(temperament, order)
            assert order_outcome(temperament, order, None) == order
            # a die, if rolled anyway, changes nothing
            assert {order_outcome(temperament, order, d) for d in range(1, 7)} == {order}
        else:
            assert order_needs_roll(temperament, order)
            assert [order_outcome(temperament, order, d) for d in range(1, 7)] == outcomes


def test_9_3_rash_two_holds() -> None:
    # "(<2) Holds (3+) Attacks": the printed 3+ stands, so a 2 holds (rules-interpretations 9.3)
    assert order_outcome("rash", "hold", 2) == "hold"
    assert order_outcome("rash", "retreat", 2) == "hold"
    assert order_outcome("rash", "retreat", 3) == "retreat"


def test_9_3_order_chart_matches_rulebook_text() -> None:
    text = RULEBOOK.read_text(encoding="utf-8")
    rows = {
        m.group(1).lower(): m.group(2).split("\t")
        for m in re.finditer(r"<b>(Normal|Reluctant|Rash)</b>\t(.*)", text)
    }
    verbs = {"Holds": "hold", "Attacks": "attack", "Retreats": "retreat", "Routs": "rout"}
    for temperament, cells in rows.items():
        for order, cell in zip(("attack", "hold", "advance", "retreat"), cells, strict=True):
            rule = ORDER_CHART[Temperament(temperament), Order(order)]
            if cell == "Always":
                assert rule.threshold is None and rule.high == order
                continue
            m = re.fullmatch(r"\((1|<2)\) (\w+) \((\d)\+\) (\w+)", cell)
            assert m, cell
            assert (rule.low, rule.threshold, rule.high) == (
                verbs[m.group(2)],
                int(m.group(3)),
                verbs[m.group(4)],
            )


def test_9_3_order_rule_text_round_trip() -> None:
    for rule in ORDER_CHART.values():
        assert OrderRule.from_text(str(rule)) == rule
    with pytest.raises(ValueError, match="expected an order rule"):
        OrderRule.from_text("sometimes attack")


def test_9_3_bad_inputs() -> None:
    with pytest.raises(ValueError, match="needs a die roll"):
        order_outcome("normal", "retreat", None)
    with pytest.raises(ValueError, match=r"expected a die 1\.\.6"):
        order_outcome("normal", "retreat", 7)
    with pytest.raises(ValueError, match=r"11\.3"):
        order_outcome("random", "attack", 3)
    with pytest.raises(ValueError, match=r"9\.3"):
        order_needs_roll("normal", "charge")


@pytest.mark.parametrize(
    ("weather", "time", "non_local"),
    [
        ("clear", "day", None),
        ("fog", "day", 1500.0),
        ("rain", "day", 1500.0),
        ("bright", "day", 1500.0),
        ("clear", "night", 1000.0),
        ("bright", "night", 1000.0),
        ("fog", "night", 500.0),
        ("rain", "night", 500.0),
    ],
)
def test_6_3_sight_limits_every_cell(weather: str, time: str, non_local: float | None) -> None:
    assert sight_limit_m(weather, time, local=False) == non_local
    assert sight_limit_m(weather, time, local=True) is None


def test_6_3_bad_weather() -> None:
    with pytest.raises(ValueError, match="expected weather"):
        sight_limit_m("snow", "day", local=False)
    with pytest.raises(ValueError, match="expected time"):
        sight_limit_m("clear", "dusk", local=False)
