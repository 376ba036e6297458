"""Colours and print patterns for the terrain classes, the height levels and the armies' states.

Screen colours are muted so bases drawn on top stay legible; print styles pair a light fill with a
hatch so the classes stay apart on a black-and-white printer.

>>> MOVE_COLOURS[3], COVER_COLOURS[0]
('#2e7d32', '#00000000')
>>> level_colour(0, 4), level_colour(4, 4)
('#f2efe0', '#7a5230')
>>> hex_to_rgb("#2e7d32")
(46, 125, 50)
"""

from __future__ import annotations

from dataclasses import dataclass

# chart 7.3 columns: plain, wet, debris, woods, impractical
MOVE_COLOURS: dict[int, str] = {
    0: "#00000000",
    1: "#4aa3df",
    2: "#c49a6c",
    3: "#2e7d32",
    4: "#5d4037",
}
MOVE_NAMES: dict[int, str] = {
    0: "plain",
    1: "wet",
    2: "debris",
    3: "woods",
    4: "impractical",
}
# chart 7.2 columns: open, wet, debris, overhead
COVER_COLOURS: dict[int, str] = {0: "#00000000", 1: "#1e88e5", 2: "#8d6e63", 3: "#1b5e20"}
COVER_NAMES: dict[int, str] = {0: "open", 1: "wet", 2: "debris", 3: "overhead"}

_LOW, _HIGH = (0xF2, 0xEF, 0xE0), (0x7A, 0x52, 0x30)

# per base state and formation morale, as drawn by playback.js
STATE_STYLES: dict[str, dict[str, object]] = {
    "ok": {"fillOpacity": 0.75, "dashArray": None},
    "injured": {"fillOpacity": 0.35, "dashArray": None},
    "retreating": {"fillOpacity": 0.55, "dashArray": "4 3"},
    "routing": {"fillOpacity": 0.2, "dashArray": "2 4"},
    "dead": {"fillOpacity": 0.0, "dashArray": "1 3"},
}


def hex_to_rgb(colour: str) -> tuple[int, int, int]:
    """``#rrggbb`` (or ``#rrggbbaa``) -> (r, g, b)."""
    c = colour.lstrip("#")
    return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16))


def hex_to_rgba(colour: str) -> tuple[int, int, int, int]:
    """``#rrggbb`` or ``#rrggbbaa`` -> (r, g, b, a)."""
    c = colour.lstrip("#")
    return (*hex_to_rgb(colour), int(c[6:8], 16) if len(c) == 8 else 255)


def level_colour(level: int, top: int) -> str:
    """A ramp from pale (lowest level) to brown (highest), like a layered-tint map."""
    t = 0.0 if top <= 0 else min(max(level / top, 0.0), 1.0)
    rgb = (round(lo + (hi - lo) * t) for lo, hi in zip(_LOW, _HIGH))
    return "#" + "".join(f"{v:02x}" for v in rgb)


@dataclass(frozen=True, slots=True)
class PrintStyle:
    """How a movement class prints: light fill (RGB 0..1), a hatch (angle°, spacing mm) or none."""

    fill: tuple[float, float, float]
    hatch: tuple[float, float] | None
    stroke: tuple[float, float, float]


PRINT_MOVE: dict[int, PrintStyle] = {
    1: PrintStyle((0.84, 0.92, 0.98), (0.0, 2.0), (0.2, 0.45, 0.75)),  # wet: horizontal lines
    2: PrintStyle((0.95, 0.90, 0.82), (45.0, 3.0), (0.5, 0.38, 0.25)),  # debris: diagonals
    3: PrintStyle((0.84, 0.93, 0.83), (-45.0, 2.5), (0.15, 0.45, 0.15)),  # woods: other diagonal
    4: PrintStyle((0.80, 0.76, 0.74), (90.0, 1.5), (0.25, 0.2, 0.18)),  # impractical: dense
}
