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


# -- legibility: contrast on the hillshade and colour-vision deficiencies ----------------------

#: the hillshade's typical mid-tone on the web map (70 + 185 x 0.6 grey, maps.battlefield_map)
HILLSHADE_GREY = "#b5b5b5"
#: Okabe & Ito's palette for colour-blind readers (yellow left out: unreadable on pale ground)
OKABE_ITO = ("#000000", "#e69f00", "#56b4e9", "#009e73", "#0072b2", "#d55e00", "#cc79a7")
CVD_TYPES = ("deuteranomaly", "protanomaly", "tritanomaly")


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""

    def lin(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = hex_to_rgb(colour)
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2 contrast ratio (1..21).

    >>> round(contrast_ratio("#7f7f7f", HILLSHADE_GREY), 2)
    1.95
    """
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _lab(colour: str) -> tuple[float, float, float]:
    from colorspacious import cspace_convert

    r, g, b = hex_to_rgb(colour)
    lab = cspace_convert((r / 255, g / 255, b / 255), "sRGB1", "CIELab")
    return (float(lab[0]), float(lab[1]), float(lab[2]))


def _hex(lab: tuple[float, float, float]) -> str:
    import numpy as np
    from colorspacious import cspace_convert

    rgb = np.clip(cspace_convert(lab, "CIELab", "sRGB1"), 0.0, 1.0)
    return "#" + "".join(f"{round(float(v) * 255):02x}" for v in rgb)


#: a base's fill opacity in the playback (maps/playback.js ``style``): the ground shows through
BASE_FILL_OPACITY = 0.85
#: an army's bases against the ground beneath them: WCAG's 3:1 for graphics (its names, written
#: in its colour, stand on a white halo; 4.5:1 on mid-grey would leave only near-black armies)
SIDE_CONTRAST = 3.0


def blend(colour: str, on: str, opacity: float) -> str:
    """``colour`` drawn at ``opacity`` over ``on``.

    >>> blend("#000000", "#ffffff", 0.5)
    '#808080'
    """
    mix = (opacity * c + (1 - opacity) * g for c, g in zip(hex_to_rgb(colour), hex_to_rgb(on)))
    return "#" + "".join(f"{round(v):02x}" for v in mix)


def drawn_contrast(colour: str, on: str) -> float:
    """The contrast of an army's base as the playback draws it (its fill over ``on``).

    >>> round(drawn_contrast("#7f7f7f", HILLSHADE_GREY), 2)
    1.75
    """
    return contrast_ratio(blend(colour, on, BASE_FILL_OPACITY), on)


def legible(colour: str, on: str = HILLSHADE_GREY, ratio: float = SIDE_CONTRAST) -> str:
    """``colour`` darkened (same hue and chroma, lower CIE L*) until its drawn bases stand out
    from ``on`` by ``ratio``: a grey army on grey hillshade becomes a dark grey army.

    >>> legible("#1f4e9c")
    '#1f4e9c'
    >>> c = legible("#7f7f7f"); c, drawn_contrast(c, HILLSHADE_GREY) >= SIDE_CONTRAST
    ('#505050', True)
    """
    if drawn_contrast(colour, on) >= ratio:
        return colour
    L, a, b = _lab(colour)
    while L > 0:
        L -= 1.0
        out = _hex((L, a, b))
        if drawn_contrast(out, on) >= ratio:
            return out
    return "#000000"


def cvd_distance(a: str, b: str) -> float:
    """The smallest CIE76 distance between two colours as seen with normal vision and with each
    full colour-vision deficiency (Machado et al. 2009, via colorspacious)."""
    import numpy as np
    from colorspacious import cspace_convert

    ra = np.array(hex_to_rgb(a)) / 255
    rb = np.array(hex_to_rgb(b)) / 255
    best = float(np.linalg.norm(np.subtract(_lab(a), _lab(b))))
    for kind in CVD_TYPES:
        space = {"name": "sRGB1+CVD", "cvd_type": kind, "severity": 100}
        sa = np.clip(cspace_convert(ra, space, "sRGB1"), 0, 1)
        sb = np.clip(cspace_convert(rb, space, "sRGB1"), 0, 1)
        la = cspace_convert(sa, "sRGB1", "CIELab")
        lb = cspace_convert(sb, "sRGB1", "CIELab")
        best = min(best, float(np.linalg.norm(la - lb)))
    return best


def side_palette(
    colours: list[str], apart: float = 20.0, grounds: list[str | None] | None = None
) -> list[str]:
    """The armies' colours made legible on the ground beneath them (``grounds``, one per side,
    ``maps.ground_colour.sides_ground``; the hillshade's mid-tone where None) and told apart by
    colour-blind readers (at least ``apart`` CIE76 units under every deficiency). On grey
    hillshade only dark colours reach SIDE_CONTRAST, so two armies that differ only in hue
    (Towton's green and red) are set apart in lightness: the newer colour's CIE L* is moved the
    least that works, and if no lightness of it alone does, both colours of the clashing pair
    are moved together.

    >>> side_palette(["#1a5e20", "#8b0000"])
    ['#1a5e20', '#470000']
    """
    under = [g or HILLSHADE_GREY for g in (grounds or [None] * len(colours))]

    def ok(c: str, i: int, others: list[str]) -> bool:
        """Side ``i``'s colour ``c`` legible on its ground and apart from ``others``."""
        return drawn_contrast(c, under[i]) >= SIDE_CONTRAST and all(
            cvd_distance(c, o) >= apart for o in others
        )

    def shifted(c: str, d: float) -> str:
        L, a, b = _lab(c)
        return _hex((min(max(L + d, 2.0), 98.0), a, b))

    steps = sorted(range(-45, 46, 3), key=abs)
    out: list[str] = []
    for i, colour in enumerate(colours):
        c = legible(colour, under[i])
        if ok(c, i, out):
            out.append(c)
            continue
        best = next((shifted(c, d) for d in steps if ok(shifted(c, d), i, out)), None)
        if best is None:  # move the clashing earlier colour too, the least in total
            pairs = sorted(
                ((dj, di) for dj in steps for di in steps), key=lambda t: abs(t[0]) + abs(t[1])
            )
            for j, o in enumerate(out):
                if cvd_distance(c, o) >= apart:
                    continue
                rest = out[:j] + out[j + 1 :]
                for dj, di in pairs:
                    oj, ci = shifted(o, dj), shifted(c, di)
                    if ok(oj, j, rest) and ok(ci, i, [*rest, oj]):
                        out[j], best = oj, ci
                        break
        out.append(best or c)
    return out


def distinct_colour(avoid: list[str], candidates: tuple[str, ...] = OKABE_ITO[1:]) -> str:
    """The candidate furthest (under every colour-vision deficiency) from all of ``avoid``:
    shot lines never look like one army's colour (drawn over a white casing, so contrast with
    the ground comes from the casing). Black is left to the bases' front edges.

    >>> distinct_colour(["#1f4e9c", "#b42d22"])
    '#e69f00'
    """
    return max(candidates, key=lambda c: min((cvd_distance(c, o) for o in avoid), default=0.0))
