"""Table scale and paper: the two small values a printed layout is made from.

The rulebook's opening lines: "2mm (1/900 scale, 1 metre is 1mm) ... or 6mm with 1-for-10 (1/300
scale, 1 metre is 3mm)". The figures disagree (1 m = 1 mm is 1:1000, not 1:900); we print what
the player measures with: ``2mm`` puts 1 m of ground on 1 mm of table, ``6mm`` on 3 mm (see
``docs/rules-interpretations.md``, "Scale"). Any other ratio is ``1:N``.

>>> s = TableScale.from_text("2mm")
>>> s.mm_per_m, str(s)
(1.0, '2mm')
>>> TableScale.from_text("6mm").mm(400.0)          # a 400 m ridge is 1.2 m of table
1200.0
>>> str(TableScale.from_text("1:2500")), TableScale.from_text("1:2500").mm_per_m
('1:2500', 0.4)
>>> p = Paper.from_text("A4")
>>> (p.width_mm, p.height_mm), str(p)
((210.0, 297.0), 'A4')
>>> str(Paper.from_text("420x297mm")), Paper.from_text("Letter").width_mm
('420x297mm', 215.9)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scenario_builder.errors import LayoutError

_NAMED_SCALES: dict[str, float] = {"2mm": 1.0, "6mm": 3.0}  # mm of table per m of ground
_PAPERS: dict[str, tuple[float, float]] = {
    "A4": (210.0, 297.0),
    "A3": (297.0, 420.0),
    "A2": (420.0, 594.0),
    "Letter": (215.9, 279.4),
    "Legal": (215.9, 355.6),
    "Tabloid": (279.4, 431.8),
}


@dataclass(frozen=True, slots=True)
class TableScale:
    """How many millimetres of table one metre of ground becomes."""

    mm_per_m: float
    name: str | None = None

    @classmethod
    def from_text(cls, text: str) -> TableScale:
        """Parse ``2mm``, ``6mm`` or ``1:N`` (N ground millimetres per table millimetre)."""
        t = text.strip()
        if t.lower() in _NAMED_SCALES:
            return cls(_NAMED_SCALES[t.lower()], t.lower())
        m = re.fullmatch(r"1\s*[:/]\s*(\d+(?:\.\d+)?)", t)
        if m and float(m.group(1)) > 0:
            return cls(1000.0 / float(m.group(1)))
        raise LayoutError("--scale", f"expected 2mm, 6mm or 1:N (e.g. 1:1000), got {text!r}")

    @classmethod
    def for_ruleset(cls, text: str, ground_m_per_mm: dict[str, float], ruleset: str) -> TableScale:
        """A ruleset's named figure scale (its ``scales.ground_m_per_mm``, e.g. medieval-d10's
        ``15mm`` / ``25mm``) or ``1:N``.

        >>> s = TableScale.for_ruleset("25mm", {"25mm": 0.4572}, "medieval-d10")
        >>> round(s.mm_per_m, 4), str(s)
        (2.1872, '25mm (medieval-d10)')
        """
        t = text.strip()
        if t in ground_m_per_mm:
            return cls(1.0 / ground_m_per_mm[t], f"{t} ({ruleset})")
        if re.fullmatch(r"1\s*[:/]\s*(\d+(?:\.\d+)?)", t):
            return cls.from_text(t)
        names = ", ".join(ground_m_per_mm)
        raise LayoutError("--scale", f"expected {names} ({ruleset}) or 1:N, got {text!r}")

    @property
    def ratio(self) -> float:
        """N of 1:N."""
        return 1000.0 / self.mm_per_m

    def mm(self, metres: float) -> float:
        """Table millimetres for a ground distance in metres."""
        return metres * self.mm_per_m

    def __str__(self) -> str:
        return self.name or f"1:{self.ratio:g}"


@dataclass(frozen=True, slots=True)
class Paper:
    """A sheet, portrait, in millimetres."""

    width_mm: float
    height_mm: float
    name: str | None = None

    @classmethod
    def from_text(cls, text: str) -> Paper:
        """Parse a named size (A4, A3, A2, Letter, Legal, Tabloid) or ``WxHmm``."""
        t = text.strip()
        for name, (w, h) in _PAPERS.items():
            if t.lower() == name.lower():
                return cls(w, h, name)
        m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*[xX×]\s*(\d+(?:\.\d+)?)\s*mm", t)
        if m:
            w, h = float(m.group(1)), float(m.group(2))
            if 50.0 <= w <= 5000.0 and 50.0 <= h <= 5000.0:
                return cls(w, h)
            raise LayoutError(
                "--paper", f"expected 50 to 5000 mm a side, got {w:g} x {h:g} mm ({text!r})"
            )
        raise LayoutError(
            "--paper",
            f"expected one of {', '.join(_PAPERS)} or WxHmm (e.g. 420x297mm), got {text!r}",
        )

    def landscape(self) -> Paper:
        """The same sheet turned sideways."""
        return Paper(self.height_mm, self.width_mm, self.name)

    def __str__(self) -> str:
        return self.name or f"{self.width_mm:g}x{self.height_mm:g}mm"
