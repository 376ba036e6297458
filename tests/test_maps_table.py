"""Table scale, paper and tiling: the values a printed layout is made of."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maps.table import Paper, TableScale
from maps.tiling import Tiling, tiles_needed
from scenario_builder.errors import LayoutError, ScenarioError


def test_scale_2mm_is_one_metre_to_one_millimetre() -> None:
    # rulebook opening lines: "2mm (1/900 scale, 1 metre is 1mm)"; we follow "1 metre is 1mm"
    assert TableScale.from_text("2mm").mm(40.0) == 40.0
    assert TableScale.from_text("6mm").mm(40.0) == 120.0
    assert TableScale.from_text("1:900").mm(900.0) == pytest.approx(1000.0)


@pytest.mark.parametrize("text", ["2mm", "6mm", "1:1000", "1:2500", "1:333.5"])
def test_scale_round_trips(text: str) -> None:
    s = TableScale.from_text(text)
    assert TableScale.from_text(str(s)) == s


@pytest.mark.parametrize("text", ["A4", "A3", "Letter", "420x297mm", "100x150mm"])
def test_paper_round_trips(text: str) -> None:
    p = Paper.from_text(text)
    assert Paper.from_text(str(p)) == p


@pytest.mark.parametrize("text", ["3mm", "1:0", "1:-5", "big", "", "2 mm per m"])
def test_unknown_scale_is_a_one_line_layout_error(text: str) -> None:
    with pytest.raises(LayoutError) as e:
        TableScale.from_text(text)
    assert isinstance(e.value, ScenarioError) and "\n" not in str(e.value)
    assert "expected 2mm, 6mm or 1:N" in str(e.value)


@pytest.mark.parametrize("text", ["A9", "B5", "297x420", "axbmm"])
def test_unknown_paper_is_a_layout_error(text: str) -> None:
    with pytest.raises(LayoutError, match="expected one of A4"):
        Paper.from_text(text)


def test_paper_too_small_says_its_size_not_a_format_problem() -> None:
    """A well-formed but tiny paper names the size limits, not the format."""
    with pytest.raises(LayoutError, match="expected 50 to 5000 mm a side, got 10 x 10 mm"):
        Paper.from_text("10x10mm")


def test_overlap_as_large_as_the_printable_area_is_refused() -> None:
    with pytest.raises(LayoutError, match="overlap"):
        tiles_needed(500.0, 190.0, 190.0)


@given(
    length=st.floats(1.0, 20_000.0),
    printable=st.floats(40.0, 600.0),
    overlap=st.floats(0.0, 30.0),
)
def test_sheets_cover_the_table_with_no_sheet_to_spare(
    length: float, printable: float, overlap: float
) -> None:
    n = tiles_needed(length, printable, overlap)
    step = printable - overlap
    assert n * step + overlap >= length - 1e-6  # covered
    assert n == 1 or (n - 1) * step + overlap < length  # one sheet fewer would not cover


def test_page_count_per_axis() -> None:
    # A4 portrait, 10 mm margins -> 190 x 277 printable; 10 mm overlap -> 180 x 267 step
    t = Tiling.plan(1000.0, 600.0, printable=(190.0, 277.0), overlap=10.0)
    assert (t.cols, t.rows) == (math.ceil((1000 - 10) / 180), math.ceil((600 - 10) / 267))
    assert t.count == 6 * 3
    labels = [s.label for s in t.sheets()]
    assert labels[:7] == ["A1", "A2", "A3", "A4", "A5", "A6", "B1"] and labels[-1] == "C6"


def test_registration_marks_are_shared_by_neighbouring_sheets() -> None:
    t = Tiling.plan(500.0, 500.0, printable=(190.0, 277.0), overlap=10.0)
    sheets = {s.label: s for s in t.sheets()}

    def marks(label: str) -> set[tuple[float, float]]:
        x0, y0, x1, y1 = sheets[label].window
        return {(x, y) for x, y in t.registration_marks() if x0 <= x <= x1 and y0 <= y <= y1}

    assert len(marks("A1")) == 4
    assert len(marks("A1") & marks("A2")) == 2  # the two marks in their shared overlap strip
    assert len(marks("A1") & marks("B1")) == 2
    assert len(marks("A1") & marks("B2")) == 1
