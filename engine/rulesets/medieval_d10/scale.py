"""Ground scale of the medieval d10 game per figure scale (15 mm and 25 mm).

The book fixes one distance in both scales: "within 150yds" is 30 cm / 12" for 20-28 mm figures
and 20 cm / 8" for 10-18 mm figures, and the gun explosion distance is likewise 3" or 2". So:

- 25 mm: 30 cm of table = 150 yd = 137.16 m, 1 cm = 4.572 m (1:457.2);
- 15 mm: 20 cm of table = 137.16 m, 1 cm = 6.858 m (1:685.8).

The movement and firing-range charts are printed once. Read at 25 mm they give real distances:
a longbow's long range, 75 cm, is 343 m (375 yd) and its short range 25 cm is 114 m - the war
bow's commonly quoted extreme and close ranges; heavy close-order foot's 16 cm march is 73 m a
turn. Read unchanged at 15 mm the same bow would carry 514 m, beyond any bow, so the charts are
25 mm distances and a 15 mm table uses them times 2/3 (the ratio the book applies to 150 yd and
to the explosion distance): every chart distance is then the same ground in both scales.
Figure frontage agrees: a 25 mm foot figure on a 20 mm frontage covers 9.1 m of ground (about ten
men abreast at 0.9 m a file), a 15 mm figure on 15 mm covers 10.3 m; a 24-figure unit three
ranks deep (8 figures, 16 cm at 25 mm) holds a 73 m front.

>>> s = FIGURE_SCALES[FigureScale.MM25]
>>> round(s.metres_per_table_cm, 3), s.table_cm(75)                 # longbow long range
(4.572, 75.0)
>>> round(s.ground_m(75), 1), round(FIGURE_SCALES[FigureScale.MM15].ground_m(75), 1)
(342.9, 342.9)
>>> FIGURE_SCALES[FigureScale.MM15].table_cm(75)                     # 2/3 on a 15 mm table
50.0
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from engine.rulesets.medieval_d10.charts import EXPLOSION_DISTANCE_INCHES, YARDS_150

__all__ = ["FIGURE_SCALES", "METRES_150_YD", "FigureScale", "GroundScale", "ground_scale"]

METRES_PER_YARD = 0.9144
METRES_150_YD = 150 * METRES_PER_YARD  # 137.16 m


class FigureScale(StrEnum):
    MM15 = "15mm"
    MM25 = "25mm"


@dataclass(frozen=True, slots=True)
class GroundScale:
    """One figure scale: table cm per 150 yd, and the factor applied to the charts' cm."""

    figure_scale: FigureScale
    yards_150_cm: int
    chart_factor: Fraction
    explosion_inches: int

    @property
    def metres_per_table_cm(self) -> float:
        """Ground metres per centimetre of table."""
        return METRES_150_YD / self.yards_150_cm

    @property
    def mm_per_m(self) -> float:
        """Table millimetres per ground metre (the print layout's scale)."""
        return 10.0 / self.metres_per_table_cm

    @property
    def ratio(self) -> float:
        """The map ratio 1:N."""
        return self.metres_per_table_cm * 100.0

    def table_cm(self, chart_cm: float) -> float:
        """Centimetres on this table for a distance the charts give in (25 mm) cm."""
        return float(chart_cm * self.chart_factor)

    def ground_m(self, chart_cm: float) -> float:
        """Ground metres of a chart distance.

        >>> round(ground_scale("25mm").ground_m(30), 2)                  # 150 yd
        137.16
        """
        return self.table_cm(chart_cm) * self.metres_per_table_cm

    def chart_cm(self, ground_m: float) -> float:
        """The chart distance (25 mm cm) of ``ground_m`` metres: the inverse of
        :meth:`ground_m`.

        >>> round(ground_scale("15mm").chart_cm(137.16), 6)
        30.0
        """
        return ground_m / self.metres_per_table_cm / float(self.chart_factor)


FIGURE_SCALES: dict[FigureScale, GroundScale] = {
    FigureScale.MM25: GroundScale(
        FigureScale.MM25, YARDS_150["25mm"].cm, Fraction(1), EXPLOSION_DISTANCE_INCHES["25mm"]
    ),
    FigureScale.MM15: GroundScale(
        FigureScale.MM15,
        YARDS_150["15mm"].cm,
        Fraction(YARDS_150["15mm"].cm, YARDS_150["25mm"].cm),
        EXPLOSION_DISTANCE_INCHES["15mm"],
    ),
}


def ground_scale(name: FigureScale | str) -> GroundScale:
    """The ground scale of ``"15mm"`` or ``"25mm"``."""
    try:
        return FIGURE_SCALES[FigureScale(name)]
    except ValueError:
        raise ValueError(f"expected a figure scale 15mm or 25mm, got {name!r}") from None
