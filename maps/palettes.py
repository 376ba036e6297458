"""Terrain palettes: a ruleset's own terrain classes as the maps draw them (screen and print).

The class vocabulary is the ground's, never this module's: a ruleset's view of a battlefield
(``Ruleset.ground``, through its code table ``data/codes/<ruleset>.csv``) names its classes in
``meta["legend"][role]`` (code -> name), the table they come from in ``meta["terrain_table"]``
and its DEM slope classes in ``meta["slope_bands"]``; a battlefield as built carries 2mm Earth's
classes. So the maps import no ruleset's internals: they read the ground they are given.

This module gives each class of each shipped table a screen colour, a print style (light fill,
hatch, ink) and each role a heading with the book's citation. The screen colours of one role are
told apart by colour-blind readers and stand out from the grey hillshade (CIE76 distance >= 20
under normal vision and each full colour-vision deficiency, as carto checks the armies; see
tests/test_maps_rulemaps.py). A class this module has no colour for (a ruleset registered later,
a test's toy ruleset) gets one from Okabe & Ito's palette, so every ruleset draws.

>>> p = palette_for_table("2mm-earth", {})          # a battlefield as built
>>> p.title("move"), p.style("move", 3).colour, p.style("move", 3).label
('Movement (7.3)', '#2e7d32', 'woods')
>>> m = palette_for_table("medieval-d10", {"move": {0: "open", 6: "marsh"}})
>>> m.title("move"), m.style("move", 6).colour, m.style("move", 0).drawn
('Terrain (TERRAIN CHART)', '#1e5a5a', False)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from maps.colours import (
    COVER_COLOURS,
    COVER_NAMES,
    MOVE_COLOURS,
    MOVE_NAMES,
    OKABE_ITO,
    PRINT_MOVE,
    PrintStyle,
    _hex,
    _lab,
)

__all__ = ["ClassStyle", "TerrainPalette", "palette_for_table", "terrain_palette"]

#: drawn roles, in legend order
ROLES: tuple[str, ...] = ("move", "cover")
TRANSPARENT = "#00000000"
#: the table a battlefield as built is classified by (scenario_builder.build)
BUILT_TABLE = "2mm-earth"


@dataclass(frozen=True, slots=True)
class ClassStyle:
    """One terrain class: its raster code and table name, screen colour (``TRANSPARENT``: open
    ground, not drawn) and print style (None: not printed)."""

    code: int
    name: str
    colour: str
    print_style: PrintStyle | None

    @property
    def label(self) -> str:
        """The name as a reader reads it (``broken_ground`` -> ``broken ground``)."""
        return self.name.replace("_", " ")

    @property
    def drawn(self) -> bool:
        return self.colour != TRANSPARENT


@dataclass(frozen=True)
class _TableLook:
    """How one shipped table's classes look: per role a heading and its citation, per class a
    screen colour; per ``move`` class a print hatch (angle in degrees, spacing in mm)."""

    headings: Mapping[str, tuple[str, str]]
    screen: Mapping[str, Mapping[str, str]]
    hatch: Mapping[str, tuple[float, float] | None]
    slopes: Mapping[str, str]


def _print_style(colour: str, hatch: tuple[float, float] | None) -> PrintStyle:
    """A class's print style from its screen colour: the same hue as a light fill (CIE L* 91,
    chroma a third) that toner reproduces, the same hue dark (L* 38) for hatch and outline."""
    L, a, b = _lab(colour)
    fill = _lab_rgb((91.0, a / 3.0, b / 3.0))
    ink = _lab_rgb((min(L, 38.0), a * 0.8, b * 0.8))
    return PrintStyle(fill, hatch, ink)


def _lab_rgb(lab: tuple[float, float, float]) -> tuple[float, float, float]:
    h = _hex(lab)
    return (int(h[1:3], 16) / 255, int(h[3:5], 16) / 255, int(h[5:7], 16) / 255)


_TWO_MM_PRINT_NAMES = {code: MOVE_NAMES[code] for code in PRINT_MOVE}

#: The shipped tables. 2mm Earth's are carto's colours (maps.colours) unchanged. medieval-d10's
#: and dark-age's were chosen near each class's usual map colour (woods green, water blue,
#: built-up brick, roads ochre) and then moved the least that keeps every pair of one role,
#: and each against the hillshade, >= 20 CIE76 apart under every colour-vision deficiency.
_LOOKS: dict[str, _TableLook] = {
    "2mm-earth": _TableLook(
        headings={"move": ("Movement", "7.3"), "cover": ("Cover", "7.2")},
        screen={
            "move": {MOVE_NAMES[k]: v for k, v in MOVE_COLOURS.items()},
            "cover": {COVER_NAMES[k]: v for k, v in COVER_COLOURS.items()},
        },
        hatch={},  # PRINT_MOVE as carto drew it
        slopes={},
    ),
    "medieval-d10": _TableLook(
        headings={"move": ("Terrain", "TERRAIN CHART"), "cover": ("Cover", "FIRING CHART")},
        screen={
            "move": {
                "open": TRANSPARENT,
                "built_up": "#5a000f",
                "broken_ground": "#96785a",
                "wood": "#69961e",
                "orchard_copse": "#a5ff96",
                "stream_ford": "#00b4e1",
                "marsh": "#1e5a5a",
                "wall_fence_hedge": "#00001e",
                "road_track": "#f0c32d",
                "impassable": "#5a3c87",
            },
            "cover": {"none": TRANSPARENT, "soft": "#b48769", "hard": "#002d4b"},
        },
        hatch={
            "built_up": (90.0, 1.5),
            "broken_ground": (45.0, 3.0),
            "wood": (-45.0, 2.5),
            "orchard_copse": (-45.0, 5.0),
            "stream_ford": (0.0, 2.0),
            "marsh": (0.0, 4.0),
            "wall_fence_hedge": (30.0, 1.5),
            "road_track": None,
            "impassable": (60.0, 1.2),
        },
        # a shade of the contours' brown, the steeper the darker (lightness only: no hue to
        # confuse with a terrain class, and the same for colour-blind readers)
        slopes={"gentle_slope": "#3e272359", "steep_slope": "#3e2723b3"},
    ),
    "dark-age": _TableLook(
        headings={"move": ("Terrain", "5.13, 5.14, 5.20"), "cover": ("Cover", "7.2")},
        screen={
            "move": {
                "open": TRANSPARENT,
                "light_cover": "#f0ff96",
                "road": "#f0870f",
                "minor_obstacle": "#b49669",
                "difficult": "#004b00",
                "major_obstacle": "#5a2d4b",
                "impassable": "#1e78f0",
                "soft_sand": "#ffd2b4",
            },
            # the composition's cover is 2mm Earth's chart 7.2
            "cover": {COVER_NAMES[k]: v for k, v in COVER_COLOURS.items()},
        },
        hatch={
            "light_cover": (-45.0, 5.0),
            "road": None,
            "minor_obstacle": (45.0, 3.0),
            "difficult": (-45.0, 2.5),
            "major_obstacle": (30.0, 1.5),
            "impassable": (90.0, 1.5),
            "soft_sand": (0.0, 3.0),
        },
        # 5.13 steep hill slopes (difficult): medieval-d10's steep shade, the same hillside
        slopes={"steep_slope": "#3e2723b3"},
    ),
}

#: classes named so are open ground in every shipped table: not drawn, not printed
_OPEN_NAMES = frozenset({"open", "plain", "none"})


@dataclass(frozen=True)
class TerrainPalette:
    """One ground's classes as drawn: per role its classes in code order, the role headings,
    and the DEM slope bands (lowest degrees, style) the ruleset names."""

    table: str
    ruleset: str | None
    headings: Mapping[str, tuple[str, str]]
    classes: Mapping[str, tuple[ClassStyle, ...]]
    slopes: tuple[tuple[float, ClassStyle], ...] = ()

    def title(self, role: str) -> str:
        """The legend heading of a role (``Terrain (TERRAIN CHART)``)."""
        word, cite = self.headings[role]
        return f"{word} ({cite})"

    def cite(self, role: str) -> str:
        return self.headings[role][1]

    def style(self, role: str, code: int) -> ClassStyle:
        return next(s for s in self.classes[role] if s.code == int(code))

    def colours(self, role: str) -> dict[int, str]:
        """code -> screen colour, for :func:`maps.reproject.classes_to_rgba`."""
        return {s.code: s.colour for s in self.classes[role]}

    def printed(self) -> dict[int, ClassStyle]:
        """The ``move`` classes the print fills and hatches (code -> style)."""
        return {s.code: s for s in self.classes["move"] if s.print_style is not None}

    def slope_codes(self, slope_deg: np.ndarray) -> np.ndarray:
        """0 below the first band, k inside band k (uint8), same shape as ``slope_deg``.

        >>> p = palette_for_table("medieval-d10", {}, [[3.0, "gentle_slope"],
        ...                                            [10.0, "steep_slope"]])
        >>> p.slope_codes(np.array([1.0, 3.0, 9.9, 12.0])).tolist()
        [0, 1, 1, 2]
        """
        if not self.slopes:
            return np.zeros(np.shape(slope_deg), np.uint8)
        edges = [deg for deg, _ in self.slopes]
        return np.digitize(np.nan_to_num(np.asarray(slope_deg, float)), edges).astype(np.uint8)

    def slope_label(self, k: int) -> str:
        """``gentle slope (3-10°)``, ``steep slope (10° and over)`` for band ``k`` (1-based)."""
        deg, style = self.slopes[k - 1]
        if k < len(self.slopes):
            return f"{style.label} ({deg:g}-{self.slopes[k][0]:g}°)"
        return f"{style.label} ({deg:g}° and over)"


def _fallback_colours() -> itertools.cycle[str]:
    return itertools.cycle(OKABE_ITO[1:])


def palette_for_table(
    table: str,
    legend: Mapping[str, Mapping[Any, str]],
    slope_bands: Any = (),
    ruleset: str | None = None,
    chart_sections: Mapping[str, Any] | None = None,
) -> TerrainPalette:
    """The palette of classes named in ``legend`` (role -> {code: name}) from ``table``;
    each role headed by the ruleset's chart (``Ruleset.chart_sections``: the same table is
    v0.9's 7.3 and v0.7's 8.3), else by the table's usual book.

    >>> v07 = {"move": ["Movement", "8.3"], "cover": ["Cover", "8.2"]}
    >>> p = palette_for_table("2mm-earth", {}, ruleset="2mm-earth-v0.7", chart_sections=v07)
    >>> p.title("move"), p.title("cover")
    ('Movement (8.3)', 'Cover (8.2)')
    """
    look = _LOOKS.get(table)
    sections = {role: (str(h[0]), str(h[1])) for role, h in (chart_sections or {}).items()}
    spare = _fallback_colours()
    classes: dict[str, tuple[ClassStyle, ...]] = {}
    headings: dict[str, tuple[str, str]] = {}
    for role in ROLES:
        names = {int(k): str(v).lower() for k, v in legend.get(role, {}).items()}
        if not names and table == BUILT_TABLE:  # a ground without a legend: as built
            names = dict(MOVE_NAMES if role == "move" else COVER_NAMES)
        screen = look.screen.get(role, {}) if look else {}
        styles = []
        for code in sorted(names):
            name = names[code]
            colour = screen.get(name)
            if colour is None:
                colour = TRANSPARENT if code == 0 or name in _OPEN_NAMES else next(spare)
            pstyle = None
            if role == "move" and colour != TRANSPARENT:
                if table == BUILT_TABLE and _TWO_MM_PRINT_NAMES.get(code) == name:
                    pstyle = PRINT_MOVE[code]
                else:
                    hatch = look.hatch.get(name, (45.0, 3.0)) if look else (45.0, 3.0)
                    pstyle = _print_style(colour, hatch)
            styles.append(ClassStyle(code, name, colour, pstyle))
        classes[role] = tuple(styles)
        headings[role] = sections.get(role) or (
            look.headings[role] if look else (role.title(), table)
        )
    slopes: list[tuple[float, ClassStyle]] = []
    for deg, name in slope_bands or ():
        k = len(slopes) + 1
        alpha = min(0xE0, 0x40 + 0x38 * (k - 1))  # a band the maps do not know: darker per band
        colour = (look.slopes.get(str(name)) if look else None) or f"#3e2723{alpha:02x}"
        slopes.append((float(deg), ClassStyle(k, str(name), colour, None)))
    return TerrainPalette(table, ruleset, headings, classes, tuple(slopes))


def terrain_palette(ground: Any) -> TerrainPalette:
    """The palette of a battlefield or of a ruleset's view of one (``Ruleset.ground``)."""
    meta = ground.meta
    return palette_for_table(
        str(meta.get("terrain_table") or BUILT_TABLE),
        meta.get("legend", {}),
        meta.get("slope_bands") or (),
        meta.get("ruleset"),
        meta.get("chart_sections"),
    )
