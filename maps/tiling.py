"""Tiling a true-scale table over sheets of paper.

Table millimetres run from the table's top-left corner, x to the right (east) and y down (south).
Sheet (row r, column c) prints the table window starting at ``(c * step_x, r * step_y)`` with
``step = printable - overlap``: each sheet repeats the last ``overlap`` mm of its left and upper
neighbours, so the sheets are trimmed on one edge and taped over each other. Registration marks sit
in the middle of each overlap strip, at the same table positions on both sheets.

>>> t = Tiling.plan(400.0, 250.0, printable=(190.0, 277.0), overlap=10.0)
>>> t.cols, t.rows, t.step
(3, 1, (180.0, 267.0))
>>> [s.label for s in t.sheets()]
['A1', 'A2', 'A3']
>>> t.sheets()[1].window
(180.0, 0.0, 370.0, 277.0)
>>> tiles_needed(190.0, 190.0, 10.0), tiles_needed(191.0, 190.0, 10.0)
(1, 2)
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass

from scenario_builder.errors import LayoutError


def tiles_needed(length_mm: float, printable_mm: float, overlap_mm: float) -> int:
    """Sheets along one axis: the first covers ``printable``, each next ``printable - overlap``."""
    step = printable_mm - overlap_mm
    if step <= 0:
        raise LayoutError(
            "--overlap",
            f"expected an overlap smaller than the printable {printable_mm:g} mm, "
            f"got {overlap_mm:g} mm",
        )
    return max(1, math.ceil((length_mm - overlap_mm) / step - 1e-9))


def row_name(r: int) -> str:
    """Row letters A..Z, then AA, AB... like spreadsheet columns.

    >>> row_name(0), row_name(25), row_name(26)
    ('A', 'Z', 'AA')
    """
    name = ""
    r += 1
    while r:
        r, rem = divmod(r - 1, 26)
        name = string.ascii_uppercase[rem] + name
    return name


@dataclass(frozen=True, slots=True)
class Sheet:
    """One sheet: its place in the grid and the table window it prints (x0, y0, x1, y1 in mm)."""

    row: int
    col: int
    window: tuple[float, float, float, float]

    @property
    def label(self) -> str:
        return f"{row_name(self.row)}{self.col + 1}"


@dataclass(frozen=True, slots=True)
class Tiling:
    """How a ``table`` (w, h mm) is spread over ``rows`` x ``cols`` sheets."""

    table: tuple[float, float]
    printable: tuple[float, float]
    overlap: float
    cols: int
    rows: int

    @classmethod
    def plan(
        cls, width_mm: float, height_mm: float, *, printable: tuple[float, float], overlap: float
    ) -> Tiling:
        return cls(
            (width_mm, height_mm),
            printable,
            overlap,
            tiles_needed(width_mm, printable[0], overlap),
            tiles_needed(height_mm, printable[1], overlap),
        )

    @property
    def step(self) -> tuple[float, float]:
        return (self.printable[0] - self.overlap, self.printable[1] - self.overlap)

    @property
    def count(self) -> int:
        return self.rows * self.cols

    def sheets(self) -> list[Sheet]:
        sx, sy = self.step
        pw, ph = self.printable
        return [
            Sheet(r, c, (c * sx, r * sy, c * sx + pw, r * sy + ph))
            for r in range(self.rows)
            for c in range(self.cols)
        ]

    def registration_marks(self) -> list[tuple[float, float]]:
        """Table positions of the marks: the centres of the overlap strips' crossings.

        Marks lie at ``k * step + overlap / 2`` on each axis (k = 1 .. n-1 between sheets, plus the
        outer edges' strips), so every mark printed on one sheet is also on its neighbour.
        """
        sx, sy = self.step
        xs = [k * sx + self.overlap / 2 for k in range(self.cols + 1)]
        ys = [k * sy + self.overlap / 2 for k in range(self.rows + 1)]
        return [(x, y) for y in ys for x in xs]
