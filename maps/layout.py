"""The printable layout: the battlefield at true table scale, tiled over sheets of paper.

One PDF: an index page showing how the sheets assemble, then one page per sheet. Each sheet
prints its window of the table (layered tints by height level, movement classes as light fills
with hatching, contours labelled by level) inside the margins, and in the margins: crop marks at
the printed area's corners, its label ("B3": row B from the north, column 3 from the west), a
scale bar and a north arrow. Registration marks sit in the overlap strips at the same table
positions on neighbouring sheets (:mod:`maps.tiling`).

Drawing maps ground metres to page points by one affine per sheet (:meth:`Layout.to_page`), so the
printed length of any ground distance is exactly ``scale.mm(metres)``.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyproj
import shapely
from reportlab.lib.units import mm as PT_PER_MM
from reportlab.pdfgen import canvas as rl_canvas
from shapely.geometry.base import BaseGeometry

from maps.battlefield_map import source_names
from maps.colours import hex_to_rgb
from maps.contour_thinning import paper_lines, steepness
from maps.deployment import Deployed
from maps.features import (
    LINE_STYLES,
    FeatureKind,
    GroundFeature,
    ground_features,
    label_point,
    short_name,
)
from maps.leaders import place_with_leader
from maps.palettes import TerrainPalette, palette_for_table, terrain_palette
from maps.table import Paper, TableScale
from maps.tiling import Sheet, Tiling, row_name
from maps.vectors import class_regions, level_outlines, level_range, outline_contours
from scenario_builder.atomic import atomic_path
from scenario_builder.battlefield import Battlefield
from scenario_builder.coords import as_written
from scenario_builder.errors import LayoutError

MAX_PAGES = 300
#: every mark and word stays this far inside the paper's edge (most printers' unprintable strip)
SAFE_MM = 4.0
#: the safe strip plus room for a sheet's label line and scale bar
MIN_MARGIN_MM = 9.0


@dataclass(frozen=True)
class LayoutOptions:
    """What the user chose on the command line."""

    scale: TableScale
    paper: Paper
    overlap_mm: float = 10.0
    margin_mm: float = 10.0
    bbox: tuple[float, float, float, float] | None = None  # W, S, E, N degrees
    max_pages: int = MAX_PAGES
    bbox_crs: str | None = None  # the CRS of bbox when it is not lon/lat (map metres)


@dataclass(frozen=True)
class Layout:
    """A planned layout: the ground window, the oriented paper and the sheet tiling."""

    window: tuple[float, float, float, float]  # minx, miny, maxx, maxy in bf.crs metres
    scale: TableScale
    paper: Paper
    margin_mm: float
    tiling: Tiling

    @property
    def table_mm(self) -> tuple[float, float]:
        minx, miny, maxx, maxy = self.window
        return (self.scale.mm(maxx - minx), self.scale.mm(maxy - miny))

    def to_table(self, x: Any, y: Any) -> tuple[Any, Any]:
        """Ground metres -> table mm (from the table's top-left, y down)."""
        minx, _, _, maxy = self.window
        s = self.scale.mm_per_m
        return ((np.asarray(x) - minx) * s, (maxy - np.asarray(y)) * s)

    def to_page(self, sheet: Sheet) -> tuple[float, float, float, float, float, float]:
        """The shapely affine (a, b, d, e, xoff, yoff) from ground metres to page points."""
        minx, _, _, maxy = self.window
        s = self.scale.mm_per_m * PT_PER_MM
        wx0, wy0 = sheet.window[0], sheet.window[1]
        m = self.margin_mm * PT_PER_MM
        top = self.paper.height_mm * PT_PER_MM - m
        # page_x = m + (X - minx) s - wx0;  page_y = top - (maxy - Y) s + wy0
        return (s, 0.0, 0.0, s, m - minx * s - wx0 * PT_PER_MM, top - maxy * s + wy0 * PT_PER_MM)

    def sheet_ground(self, sheet: Sheet) -> tuple[float, float, float, float]:
        """The ground window (minx, miny, maxx, maxy) a sheet prints."""
        minx, _, _, maxy = self.window
        s = self.scale.mm_per_m
        x0, y0, x1, y1 = sheet.window
        return (minx + x0 / s, maxy - y1 / s, minx + x1 / s, maxy - y0 / s)


def _extent_in(bf: Battlefield, crs: str | None) -> str:
    """The battlefield's W,S,E,N in the coordinates the user wrote a bbox in."""
    if crs is None:
        return as_written(tuple(round(v, 4) for v in bf.bounds_lonlat()))
    from rasterio.warp import transform_bounds

    return as_written(tuple(round(v) for v in transform_bounds(bf.crs, crs, *bf.bounds)))


def ground_window(
    bf: Battlefield,
    bbox: tuple[float, float, float, float] | None,
    bbox_crs: str | None = None,
) -> tuple[float, float, float, float]:
    """The part of the battlefield under ``bbox`` (W, S, E, N in lon/lat, or in ``bbox_crs``), as
    (minx, miny, maxx, maxy) in ``bf.crs`` metres; the whole battlefield when ``bbox`` is None.
    The printed layout and the terrain model (:mod:`maps.model`) both cut their window here."""
    window = bf.bounds
    if bbox is None:
        return window
    w, s, e, n = bbox
    if bbox_crs is None:
        xs, ys = bf.to_xy([w, w, e, e], [s, n, s, n])
    else:
        to_map = pyproj.Transformer.from_crs(bbox_crs, bf.crs, always_xy=True)
        xs, ys = to_map.transform([w, w, e, e], [s, n, s, n])
    want = (min(xs), min(ys), max(xs), max(ys))
    window = (
        max(window[0], want[0]),
        max(window[1], want[1]),
        min(window[2], want[2]),
        min(window[3], want[3]),
    )
    if window[0] >= window[2] or window[1] >= window[3]:
        raise LayoutError(
            "--bbox",
            f"expected an area overlapping the battlefield {_extent_in(bf, bbox_crs)}, "
            f"got {as_written(bbox)}",
        )
    return window


def plan_layout(bf: Battlefield, opts: LayoutOptions) -> Layout:
    """Choose the ground window and the paper orientation with fewer sheets; check the size."""
    if opts.margin_mm < MIN_MARGIN_MM:
        raise LayoutError(
            "--margin",
            f"expected at least {MIN_MARGIN_MM:g} mm for the marks, got {opts.margin_mm:g} mm",
        )
    if opts.overlap_mm < 0:
        raise LayoutError("--overlap", f"expected 0 mm or more, got {opts.overlap_mm:g} mm")
    window = ground_window(bf, opts.bbox, opts.bbox_crs)
    width = opts.scale.mm(window[2] - window[0])
    height = opts.scale.mm(window[3] - window[1])
    best: Layout | None = None
    for paper in (opts.paper, opts.paper.landscape()):
        pw = paper.width_mm - 2 * opts.margin_mm
        ph = paper.height_mm - 2 * opts.margin_mm
        if min(pw, ph) <= opts.overlap_mm + 10:
            # Name the option at fault: one raised from its default, or else the paper itself.
            if opts.margin_mm > LayoutOptions.margin_mm:
                option = "--margin"
            elif opts.overlap_mm > LayoutOptions.overlap_mm:
                option = "--overlap"
            else:
                option = "--paper"
            raise LayoutError(
                option,
                f"expected margins and overlap leaving room on "
                f"{paper}, got margin {opts.margin_mm:g} mm, overlap "
                f"{opts.overlap_mm:g} mm",
            )
        tiling = Tiling.plan(width, height, printable=(pw, ph), overlap=opts.overlap_mm)
        lay = Layout(window, opts.scale, paper, opts.margin_mm, tiling)
        if best is None or tiling.count < best.tiling.count:
            best = lay
    assert best is not None
    if best.tiling.count > opts.max_pages:
        raise LayoutError(
            "--max-pages",
            f"expected at most {opts.max_pages} sheets, got {best.tiling.count} "
            f"({best.tiling.rows} x {best.tiling.cols} of {opts.paper} for a "
            f"{width / 1000:.2f} x {height / 1000:.2f} m table); choose a --bbox, a smaller "
            "scale or a larger --paper, or raise --max-pages",
        )
    return best


@dataclass
class Shapes:
    """The ground geometry drawn on every sheet, prepared once."""

    levels: list[tuple[int, BaseGeometry]]
    classes: list[tuple[int, BaseGeometry]]
    contours: list[tuple[int, BaseGeometry]]
    lo: int  # the window's lowest and highest levels: the tints span these
    hi: int
    features: list[GroundFeature] = field(default_factory=list)
    deployed: list[Deployed] = field(default_factory=list)
    #: the ground's terrain classes as printed (its ruleset's own: ``maps.palettes``)
    palette: TerrainPalette = field(default_factory=lambda: palette_for_table("2mm-earth", {}))
    #: the ruleset's DEM slope bands (medieval-d10: gentle, steep): (band, smoothed region)
    slopes: list[tuple[int, BaseGeometry]] = field(default_factory=list)
    #: (level above the window's lowest, contour, page points per ground metre) -> the parts of
    #: the contour drawn at that scale (``maps.contour_thinning``); None draws every part
    thin: Callable[[int, BaseGeometry, float], BaseGeometry] | None = None


def window_levels(bf: Battlefield, window: tuple[float, float, float, float]) -> tuple[int, int]:
    """The lowest and highest height level of the cells under ``window``."""
    lv = bf.layer("level")
    inv = ~bf.transform
    c0, r0 = (math.floor(v) for v in inv @ (window[0], window[3]))
    c1, r1 = (math.ceil(v) for v in inv @ (window[2], window[1]))
    sub = lv[max(r0, 0) : max(r1, r0 + 1), max(c0, 0) : max(c1, c0 + 1)]
    if sub.size == 0:
        return level_range(bf)
    return int(sub.min()), int(sub.max())


def prepare_shapes(
    bf: Battlefield,
    window: tuple[float, float, float, float],
    deployed: list[Deployed] | None = None,
) -> Shapes:
    lo, hi = window_levels(bf, window)
    outlines = level_outlines(bf, window)
    levels = [(k, g) for k, g in sorted(outlines.items()) if not g.is_empty and k > lo]
    # smoothed like the levels (the raw regions print 25 mm cell steps at 2mm scale)
    palette = terrain_palette(bf)  # bf may be a ruleset's view: its classes, names and styles
    smooth = class_regions(bf, "move", sorted(palette.printed()), window)
    classes = [(code, g) for code, g in smooth.items() if not g.is_empty]
    # the contours are the tints' own edges (not the build's cell-edge lines), so they stay
    # smooth and land exactly on the cut layers' outlines
    lines = outline_contours(bf, outlines, window)
    box = shapely.box(*window)
    feats = [f for f in ground_features(bf) if f.geometry.intersects(box)]
    deployed = [d for d in deployed or [] if d.bases.intersects(box)]
    slopes = []
    if palette.slopes:
        from maps.smoothing import smooth_classes

        bands = palette.slope_codes(bf.layer("slope"))
        got = smooth_classes(bands, bf.transform, range(1, len(palette.slopes) + 1), window)
        slopes = [(k, g) for k, g in sorted(got.items()) if not g.is_empty]
    thin = functools.partial(paper_lines, bf, steepness(bf))
    return Shapes(levels, classes, lines, lo, hi, feats, deployed, palette, slopes, thin)


@functools.lru_cache(maxsize=4096)
def _tint(k: int, lo: int, hi: int) -> tuple[float, float, float]:
    """Layered tints for print, spread over the window's own levels: CIE L* from 96 (low,
    greenish) to 65 (high, tan), and neighbouring levels a further 5 L* apart (odd levels
    darker), so every step of the table reads as a band without its label."""
    from colorspacious import cspace_convert

    t = 0.0 if hi <= lo else (k - lo) / (hi - lo)
    lab = (95.0 - 30.0 * t - (2.5 if (k - lo) % 2 else -2.5), -6.0 + 16.0 * t, 14.0 + 18.0 * t)
    rgb = np.clip(cspace_convert(lab, "CIELab", "sRGB1"), 0.0, 1.0)
    return (float(rgb[0]), float(rgb[1]), float(rgb[2]))


def _polygons(g: BaseGeometry) -> list[Any]:
    return [p for p in getattr(g, "geoms", [g]) if p.geom_type == "Polygon" and not p.is_empty]


def _lines(g: BaseGeometry) -> list[Any]:
    out = []
    for part in getattr(g, "geoms", [g]):
        if part.geom_type == "LineString":
            out.append(part)
        elif part.geom_type in ("MultiLineString", "GeometryCollection"):
            out.extend(_lines(part))
        elif part.geom_type == "Polygon":
            out.append(part.exterior)
    return out


def _poly_path(c: rl_canvas.Canvas, g: BaseGeometry) -> Any:
    p = c.beginPath()
    for poly in _polygons(g):
        for ring in (poly.exterior, *poly.interiors):
            xy = np.asarray(ring.coords)
            p.moveTo(*xy[0])
            for x, y in xy[1:]:
                p.lineTo(x, y)
            p.close()
    return p


def _line_path(c: rl_canvas.Canvas, g: BaseGeometry) -> Any:
    p = c.beginPath()
    for line in _lines(g):
        xy = np.asarray(line.coords)
        if len(xy) < 2:
            continue
        p.moveTo(*xy[0])
        for x, y in xy[1:]:
            p.lineTo(x, y)
    return p


#: slope band k's print hatch: dashed lines at 135 degrees, 4 mm apart for the first band, 2 mm
#: for the next (dashed, so they never read as a terrain class's solid hatch)
SLOPE_INK = (0.36, 0.25, 0.20)


def _slope_hatch(c: rl_canvas.Canvas, g: BaseGeometry, k: int) -> None:
    c.setStrokeColorRGB(*SLOPE_INK)
    c.setLineWidth(0.4)
    c.setDash([2.5, 2.5])
    _hatch(c, g, 135.0, max(1.0, 4.0 / k) * PT_PER_MM)


def _hatch(c: rl_canvas.Canvas, g: BaseGeometry, angle: float, spacing_pt: float) -> None:
    minx, miny, maxx, maxy = g.bounds
    cx, cy = (minx + maxx) / 2, (miny + maxy) / 2
    r = math.hypot(maxx - minx, maxy - miny) / 2 + spacing_pt
    a = math.radians(angle)
    dx, dy = math.cos(a), math.sin(a)
    nx, ny = -dy, dx
    n = int(r / spacing_pt) + 1
    for i in range(-n, n + 1):
        ox, oy = cx + nx * i * spacing_pt, cy + ny * i * spacing_pt
        c.line(ox - dx * r, oy - dy * r, ox + dx * r, oy + dy * r)


class Labeller:
    """Places labels on a page so that no two overlap and none leaves ``area`` (page points):
    a label whose box would collide is tried at its other candidate points, then dropped."""

    def __init__(self, area: tuple[float, float, float, float]) -> None:
        self.area = area
        self.boxes: list[tuple[float, float, float, float]] = []
        #: formations whose name found no free place (the index page keys them by number)
        self.missed: list[Any] = []

    #: clear space kept between two labels' halos (points): "59 66", never "5966"
    GAP = 4.0

    def free(self, box: tuple[float, float, float, float]) -> bool:
        g = self.GAP
        x0, y0, x1, y1 = box[0] - g, box[1] - g, box[2] + g, box[3] + g
        ax0, ay0, ax1, ay1 = self.area
        if box[0] < ax0 or box[1] < ay0 or box[2] > ax1 or box[3] > ay1:
            return False
        return all(x1 <= b[0] or x0 >= b[2] or y1 <= b[1] or y0 >= b[3] for b in self.boxes)

    def place(
        self,
        c: rl_canvas.Canvas,
        points: list[tuple[float, float]],
        text: str,
        *,
        size: float,
        colour: tuple[float, float, float],
        bold: bool = False,
        halo: bool = True,
    ) -> bool:
        font = "Helvetica-Bold" if bold else "Helvetica"
        w = c.stringWidth(text, font, size)
        pad = 1.0
        for x, y in points:
            box = (x - w / 2 - pad, y - size * 0.35 - pad, x + w / 2 + pad, y + size * 0.75 + pad)
            if not self.free(box):
                continue
            self.boxes.append(box)
            if halo:
                c.setFillColorRGB(1, 1, 1)
                c.rect(box[0], box[1], box[2] - box[0], box[3] - box[1], stroke=0, fill=1)
            c.setFillColorRGB(*colour)
            c.setFont(font, size)
            c.drawCentredString(x, y, text)
            return True
        return False


CONTOUR_INK = (0.45, 0.28, 0.15)


def draw_ground(
    c: rl_canvas.Canvas,
    shapes: Shapes,
    ground: tuple[float, ...],
    affine: Any,
    *,
    detail: bool = True,
    labels: Labeller | None = None,
) -> None:
    """Tints, class fills and hatching, contours, roads and walls, the armies at bound 0, and
    (when ``detail``) the labels, none overlapping, through ``labels``."""
    frame = shapely.box(*ground)
    c.setFillColorRGB(*_tint(shapes.lo, shapes.lo, shapes.hi))
    c.drawPath(_poly_path(c, shapely.affinity.affine_transform(frame, affine)), stroke=0, fill=1)
    for k, g in shapes.levels:
        part = shapely.clip_by_rect(g, *ground)
        if part.is_empty:
            continue
        c.setFillColorRGB(*_tint(k, shapes.lo, shapes.hi))
        c.drawPath(_poly_path(c, shapely.affinity.affine_transform(part, affine)), stroke=0, fill=1)
    printed = shapes.palette.printed()
    for code, g in shapes.classes:
        part = shapely.clip_by_rect(g, *ground)
        if part.is_empty:
            continue
        style = printed[code].print_style
        assert style is not None  # printed() holds only classes with a print style
        pg = shapely.affinity.affine_transform(part, affine)
        c.setFillColorRGB(*style.fill)
        c.drawPath(_poly_path(c, pg), stroke=0, fill=1, fillMode=0)
        if style.hatch is not None:
            c.saveState()
            c.clipPath(_poly_path(c, pg), stroke=0, fill=0, fillMode=0)
            c.setStrokeColorRGB(*style.stroke)
            c.setLineWidth(0.35)
            angle, spacing_mm = style.hatch
            _hatch(c, pg, angle, spacing_mm * PT_PER_MM)
            c.restoreState()
        c.setStrokeColorRGB(*style.stroke)
        c.setLineWidth(0.5)
        c.drawPath(_poly_path(c, pg), stroke=1, fill=0)
    for k, g in shapes.slopes:  # dashed brown hatching, denser for the steeper band
        part = shapely.clip_by_rect(g, *ground)
        if part.is_empty:
            continue
        pg = shapely.affinity.affine_transform(part, affine)
        c.saveState()
        c.clipPath(_poly_path(c, pg), stroke=0, fill=0, fillMode=0)
        _slope_hatch(c, pg, k)
        c.restoreState()
    contour_labels = []
    for k, g in shapes.contours:
        part = shapely.clip_by_rect(g, *ground)
        if part.is_empty:
            continue
        if shapes.thin is not None:  # steep ground on a small page: its index contours only
            part = shapes.thin(k - shapes.lo, part, affine[0])
        major = (k - shapes.lo) % 5 == 0
        c.setStrokeColorRGB(*CONTOUR_INK)
        c.setLineWidth(1.1 if major else 0.5)
        for line in _lines(shapely.affinity.affine_transform(part, affine)):
            if len(line.coords) < 2:
                continue
            c.drawPath(_line_path(c, line), stroke=1, fill=0)
            if detail and line.length > 60:
                contour_labels.append((line, k))
    _draw_features(c, shapes, ground, affine, detail=detail)
    _draw_deployed(c, shapes, ground, affine)
    if labels is None:
        return
    for d in shapes.deployed:  # the armies' names first: they matter most
        x, y = shapely.affinity.affine_transform(shapely.Point(d.centre), affine).coords[0]
        pts = [(x, y + dy) for dy in (9.0, -11.0, 18.0, -20.0)]
        # a crowded line of battle: further above and below, then beside, before giving up
        more = [(x + dx, y + dy) for dy in (27.0, -29.0, 9.0, -11.0) for dx in (-30.0, 30.0)]
        col = _rgb(d.colour)
        if not (
            labels.place(c, pts, d.name, size=6.5, colour=col, bold=True)
            or labels.place(c, pts + more, d.name, size=5.0, colour=col, bold=True)
        ):
            labels.missed.append(d)
    for d in shapes.deployed:  # no place or contour label on top of a base
        part = shapely.clip_by_rect(d.bases, *ground)
        for poly in _polygons(shapely.affinity.affine_transform(part, affine)):
            labels.boxes.append(poly.bounds)
    if detail:
        seen: set[str] = set()
        named = sorted(
            (f for f in shapes.features if f.name),
            key=lambda f: (f.kind is not FeatureKind.PLACE, -f.geometry.length),
        )
        for f in named:
            name = short_name(str(f.name))
            if name in seen:
                continue
            part = f.geometry.intersection(frame)
            if part.is_empty:
                continue
            p = shapely.affinity.affine_transform(label_point(part), affine)
            ink = (0.1, 0.1, 0.1) if f.kind is FeatureKind.PLACE else _rgb(LINE_STYLES[f.kind][0])
            pts = [(p.x, p.y), (p.x, p.y + 10), (p.x, p.y - 10)]
            if f.kind is not FeatureKind.PLACE:  # anywhere along a road or a stream will do
                pieces = _lines(shapely.affinity.affine_transform(part, affine))
                page_line = max(pieces, key=lambda ln: ln.length) if pieces else None
                for t in () if page_line is None else (0.3, 0.7, 0.15, 0.85, 0.4, 0.6):
                    q = page_line.interpolate(t, normalized=True)  # type: ignore[union-attr]
                    pts += [(q.x, q.y + 6), (q.x, q.y - 6)]
            if labels.place(
                c,
                pts,
                name,
                size=7.0 if f.kind is FeatureKind.PLACE else 6.0,
                colour=ink,
                bold=f.kind is FeatureKind.PLACE,
            ):
                seen.add(name)
        contour_labels.sort(key=lambda t: -t[0].length)
        for line, k in contour_labels[:80]:
            marks = [line.interpolate(f, normalized=True) for f in (0.5, 0.25, 0.75, 0.1, 0.9)]
            labels.place(
                c, [(p.x, p.y) for p in marks], str(k), size=6.5, colour=CONTOUR_INK, bold=True
            )


def _rgb(colour: str) -> tuple[float, float, float]:
    r, g, b = hex_to_rgb(colour)
    return (r / 255, g / 255, b / 255)


def _draw_features(
    c: rl_canvas.Canvas, shapes: Shapes, ground: tuple[float, ...], affine: Any, *, detail: bool
) -> None:
    """Roads, tracks, walls, hedges, rivers and streams as lines (in the web map's colours)."""
    for f in shapes.features:
        if f.kind is FeatureKind.PLACE:
            continue
        part = shapely.clip_by_rect(f.geometry, *ground)
        if part.is_empty:
            continue
        colour, width, dash = LINE_STYLES[f.kind]
        pg = shapely.affinity.affine_transform(part, affine)
        c.saveState()
        c.setStrokeColorRGB(*_rgb(colour))
        c.setLineWidth(width * (0.45 if detail else 0.3))
        if dash:
            c.setDash([float(v) for v in dash.split()])
        c.drawPath(_line_path(c, pg), stroke=1, fill=0)
        c.restoreState()


def _draw_deployed(
    c: rl_canvas.Canvas, shapes: Shapes, ground: tuple[float, ...], affine: Any
) -> None:
    """Every base at bound 0 in its side's colour, front edge black."""
    for d in shapes.deployed:
        part = shapely.clip_by_rect(d.bases, *ground)
        if part.is_empty:
            continue
        c.setFillColorRGB(*_rgb(d.colour))
        c.setStrokeColorRGB(1, 1, 1)
        c.setLineWidth(0.3)
        c.drawPath(_poly_path(c, shapely.affinity.affine_transform(part, affine)), stroke=1, fill=1)
        c.setStrokeColorRGB(0, 0, 0)
        c.setLineWidth(0.8)
        for a, b in d.fronts:
            seg = shapely.clip_by_rect(shapely.LineString([a, b]), *ground)
            if not seg.is_empty:
                c.drawPath(_line_path(c, shapely.affinity.affine_transform(seg, affine)), stroke=1)


def _registration_mark(c: rl_canvas.Canvas, x: float, y: float) -> None:
    r = 2.5 * PT_PER_MM
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.4)
    c.circle(x, y, r * 0.6, stroke=1, fill=0)
    c.line(x - r, y, x + r, y)
    c.line(x, y - r, x, y + r)


def _crop_marks(c: rl_canvas.Canvas, x0: float, y0: float, x1: float, y1: float) -> None:
    gap, length = 1.0 * PT_PER_MM, 4.0 * PT_PER_MM
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.3)
    for x, sx in ((x0, -1), (x1, 1)):
        for y, sy in ((y0, -1), (y1, 1)):
            c.line(x + sx * gap, y, x + sx * (gap + length), y)
            c.line(x, y + sy * gap, x, y + sy * (gap + length))


def nice_length(max_m: float) -> float:
    """The largest 1/2/5 x 10^n metres not above ``max_m``.

    >>> nice_length(180.0), nice_length(49.0), nice_length(1000.0)
    (100.0, 20.0, 1000.0)
    """
    exp = 10 ** math.floor(math.log10(max_m))
    for f in (5, 2, 1):
        if f * exp <= max_m:
            return float(f * exp)
    return float(exp)


def _scale_bar(
    c: rl_canvas.Canvas, x: float, y: float, pt_per_m: float, max_pt: float, label_extra: str = ""
) -> float:
    """A bar of a round ground length from (x, y) (its bottom-left); returns its length."""
    metres = nice_length(max_pt / pt_per_m)
    length = metres * pt_per_m
    h = 1.6 * PT_PER_MM
    c.setLineWidth(0.4)
    c.setStrokeColorRGB(0, 0, 0)
    for i in range(4):
        c.setFillColorRGB(*((0, 0, 0) if i % 2 == 0 else (1, 1, 1)))
        c.rect(x + i * length / 4, y, length / 4, h, stroke=1, fill=1)
    c.setFillColorRGB(0, 0, 0)
    c.setFont("Helvetica", 6)
    text = f"{metres:g} m" if metres < 1000 else f"{metres / 1000:g} km"
    c.drawString(x + length + 3, y + 0.3, text + label_extra)
    return length + 3 + c.stringWidth(text + label_extra, "Helvetica", 6)


def _north_arrow(
    c: rl_canvas.Canvas, x_right: float, y: float, size: float, convergence: float
) -> None:
    """Grid north up (the battlefield grid is north-up), its foot at ``y`` and its right edge
    at ``x_right``; "N" and true north's offset written to its left, never above it."""
    x = x_right - size * 0.3
    c.setFillColorRGB(0, 0, 0)
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.5)
    for fill in (1, 0):
        sx = -1 if fill else 1
        p = c.beginPath()
        p.moveTo(x, y + size)
        p.lineTo(x + sx * size * 0.3, y)
        p.lineTo(x, y + size * 0.25)
        p.close()
        c.drawPath(p, stroke=1, fill=fill)
    side = "W" if convergence > 0 else "E"
    c.setFont("Helvetica-Bold", 7)
    c.drawRightString(x - size * 0.45, y + size * 0.45, "N")
    c.setFont("Helvetica", 5)
    c.drawRightString(x - size * 0.45, y, f"grid; true N {abs(convergence):.1f}\u00b0 {side}")


def _fit_string(
    c: rl_canvas.Canvas,
    x: float,
    y: float,
    x_max: float,
    text: str,
    size: float,
    *,
    right: bool = False,
    font: str = "Helvetica",
) -> float:
    """Text that never runs past ``x_max``: shrunk to 4.5 pt, then cut with an ellipsis.
    Returns the width drawn."""
    width = c.stringWidth(text, font, size)
    room = x_max - x
    while width > room and size > 4.5:
        size -= 0.5
        width = c.stringWidth(text, font, size)
    while width > room and len(text) > 4:
        text = text[:-2] + "\u2026"
        width = c.stringWidth(text, font, size)
    c.setFont(font, size)
    if right:
        c.drawRightString(x_max, y, text)
    else:
        c.drawString(x, y, text)
    return width


def _convergence(bf: Battlefield) -> float:
    """Meridian convergence at the centre: the angle from grid north to true north (degrees)."""
    import pyproj

    lon, lat = bf.to_lonlat(*bf.centre)
    try:
        return float(pyproj.Proj(bf.crs).get_factors(lon, lat).meridian_convergence)
    except Exception:  # a CRS without factors: say nothing wrong
        return 0.0


LegendRow = tuple[Callable[[rl_canvas.Canvas, float, float, float, float], None], str]


def _legend_rows(shapes: Shapes, step: float, scale: TableScale) -> list[LegendRow]:
    """A swatch and a word for every symbol on the sheets (only those present)."""
    rows: list[LegendRow] = []

    def fill(style: Any) -> Callable[[rl_canvas.Canvas, float, float, float, float], None]:
        def draw(c: rl_canvas.Canvas, x: float, y: float, w: float, h: float) -> None:
            box = shapely.box(x, y, x + w, y + h)
            c.setFillColorRGB(*style.fill)
            c.rect(x, y, w, h, stroke=0, fill=1)
            if style.hatch:
                c.saveState()
                c.clipPath(_poly_path(c, box), stroke=0, fill=0)
                c.setStrokeColorRGB(*style.stroke)
                c.setLineWidth(0.35)
                _hatch(c, box, style.hatch[0], style.hatch[1] * PT_PER_MM)
                c.restoreState()
            c.setStrokeColorRGB(*style.stroke)
            c.rect(x, y, w, h, stroke=1, fill=0)

        return draw

    def line(colour: tuple[float, float, float], width: float, dash: str | None):
        def draw(c: rl_canvas.Canvas, x: float, y: float, w: float, h: float) -> None:
            c.saveState()
            c.setStrokeColorRGB(*colour)
            c.setLineWidth(width)
            if dash:
                c.setDash([float(v) for v in dash.split()])
            c.line(x, y + h / 2, x + w, y + h / 2)
            c.restoreState()

        return draw

    def ramp(c: rl_canvas.Canvas, x: float, y: float, w: float, h: float) -> None:
        n = max(1, min(shapes.hi - shapes.lo, 12))
        for i in range(n + 1):
            k = shapes.lo + round(i * (shapes.hi - shapes.lo) / n)
            c.setFillColorRGB(*_tint(k, shapes.lo, shapes.hi))
            c.rect(x + i * w / (n + 1), y, w / (n + 1), h, stroke=0, fill=1)
        c.setStrokeColorRGB(0.3, 0.3, 0.3)
        c.rect(x, y, w, h, stroke=1, fill=0)

    present = {code for code, _ in shapes.classes}
    cite = shapes.palette.cite("move")
    for code, cls in shapes.palette.printed().items():
        if code in present:
            rows.append((fill(cls.print_style), f"{cls.label} ({cite})"))
    for k, _ in shapes.slopes:

        def slope(c: rl_canvas.Canvas, x: float, y: float, w: float, h: float, k: int = k) -> None:
            c.saveState()
            box = shapely.box(x, y, x + w, y + h)
            c.clipPath(_poly_path(c, box), stroke=0, fill=0)
            _slope_hatch(c, box, k)
            c.restoreState()
            c.setStrokeColorRGB(0.3, 0.3, 0.3)
            c.rect(x, y, w, h, stroke=1, fill=0)

        rows.append((slope, f"{shapes.palette.slope_label(k)} ({cite}, from the DEM)"))
    rows.append((ramp, f"height levels {shapes.lo}..{shapes.hi} (6.2), low to high"))
    rows.append(
        (
            line(CONTOUR_INK, 0.5, None),
            f"contour per level: {step:g} m = {scale.mm(step):g} mm of table; every 5th bold",
        )
    )
    kinds = {f.kind for f in shapes.features if f.kind is not FeatureKind.PLACE}
    for kind in FeatureKind:
        if kind in kinds:
            colour, width, dash = LINE_STYLES[kind]
            rows.append((line(_rgb(colour), width * 0.45, dash), kind.value.replace("_", " ")))
    sides: dict[str, str] = {}
    for d in shapes.deployed:
        sides.setdefault(d.side, d.colour)
    for side, colour in sides.items():

        def base(c: rl_canvas.Canvas, x: float, y: float, w: float, h: float, col=colour) -> None:
            c.setFillColorRGB(*_rgb(col))
            c.rect(x + w * 0.2, y, w * 0.6, h * 0.8, stroke=0, fill=1)
            c.setStrokeColorRGB(0, 0, 0)
            c.setLineWidth(0.8)
            c.line(x + w * 0.2, y + h * 0.8, x + w * 0.8, y + h * 0.8)

        rows.append((base, f"{side}: bases at bound 0, front edge black"))
    return rows


def write_layout_pdf(
    bf: Battlefield,
    opts: LayoutOptions,
    out: str | os.PathLike[str],
    deployed: list[Deployed] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Layout:
    """Write the layout PDF atomically; returns the plan (sheets, window) it printed.
    ``deployed`` (``maps.deployment.deployment(log)``) draws the armies at bound 0;
    ``progress(sheet, sheets)`` is told after each sheet."""
    lay = plan_layout(bf, opts)
    shapes = prepare_shapes(bf, lay.window, deployed)
    out = Path(out)
    with atomic_path(out) as tmp:
        c = rl_canvas.Canvas(
            str(tmp),
            pagesize=(lay.paper.width_mm * PT_PER_MM, lay.paper.height_mm * PT_PER_MM),
            pageCompression=1,
            invariant=1,
        )
        slug = bf.meta.get("slug") or (bf.source_dir.name if bf.source_dir else "battlefield")
        c.setTitle(f"{slug} at {lay.scale} on {lay.paper}")
        c.setAuthor("scenario-builder")
        conv = _convergence(bf)
        _index_page(c, bf, lay, shapes, slug, conv)
        for n, sheet in enumerate(lay.tiling.sheets(), 1):
            _sheet_page(c, lay, shapes, sheet, slug, conv)
            if progress is not None:
                progress(n, lay.tiling.count)
        c.save()
        os.chmod(tmp, 0o644)
    return lay


INDEX_MARGIN_MM = 12.0


def _index_page(
    c: rl_canvas.Canvas, bf: Battlefield, lay: Layout, shapes: Shapes, slug: str, conv: float
) -> None:
    """The whole table, the sheet grid, scale, north, how to assemble and the legend, all
    inside the page's margins on any paper (text wrapped, the map shrunk to what is left)."""
    from reportlab.lib.utils import simpleSplit

    pw, ph = lay.paper.width_mm * PT_PER_MM, lay.paper.height_mm * PT_PER_MM
    m = INDEX_MARGIN_MM * PT_PER_MM
    width = pw - 2 * m
    small = width < 160 * PT_PER_MM
    body, lead = (7.0, 8.6) if small else (8.0, 10.0)
    t = lay.tiling
    tw_mm, th_mm = lay.table_mm
    title = simpleSplit(
        f"{slug}: table layout at {lay.scale} (1 m of ground = {lay.scale.mm_per_m:g} mm)",
        "Helvetica-Bold",
        12.0,
        width,
    )
    info = simpleSplit(
        f"{t.rows} rows x {t.cols} columns = {t.count} sheets of {lay.paper} "
        f"({lay.paper.width_mm:g} x {lay.paper.height_mm:g} mm); table {tw_mm / 1000:.3f} x "
        f"{th_mm / 1000:.3f} m; overlap {t.overlap:g} mm; margin {lay.margin_mm:g} mm",
        "Helvetica",
        body,
        width,
    )
    words = [
        f"Rows {row_name(0)}..{row_name(t.rows - 1)} run north to south, columns 1..{t.cols} "
        "west to east; each sheet names itself and its neighbours in its margins.",
        "Assemble: trim each sheet along its crop marks on the left and top edges, lay it over "
        f"its left and upper neighbours so the {t.overlap:g} mm overlap strips coincide, match "
        "the registration marks (circle and cross), and tape from behind.",
        f"Every sheet is at true table scale: check its scale bar with a ruler before cutting "
        f"(1 m of ground = {lay.scale.mm_per_m:g} mm).",
    ]
    names = source_names(bf.meta)
    if names:
        words.append("Sources: " + "; ".join(names))
    text = [ln for para in words for ln in simpleSplit(para, "Helvetica", body, width)]
    rows = _legend_rows(shapes, bf.step, lay.scale)
    cols = 2 if width > 170 * PT_PER_MM else 1
    col_w = width / cols
    row_h = 4.6 * PT_PER_MM
    legend_h = 5 * PT_PER_MM + math.ceil(len(rows) / cols) * row_h
    top_h = 14 * len(title) + lead * len(info) + 3 * PT_PER_MM
    bottom_h = 11 * PT_PER_MM + lead * len(text) + 3 * PT_PER_MM + legend_h
    # room for the key of names the map has none for: as many lines as a key of every
    # formation would take, as far as the paper leaves the map 40 mm
    every = _key_text([(i, d) for i, d in enumerate(shapes.deployed, 1)])
    spare = (ph - 2 * m - top_h - bottom_h - 40 * PT_PER_MM) // lead
    key_lines = int(max(0, min(len(simpleSplit(every, "Helvetica", body, width)), spare)))
    bottom_h += lead * key_lines
    tw, th = t.cols * t.step[0] + t.overlap, t.rows * t.step[1] + t.overlap  # sheets' span, mm
    box_w, box_h = width, max(20 * PT_PER_MM, ph - 2 * m - top_h - bottom_h)
    k = min(box_w / tw, box_h / th)  # points per table mm on this page
    y = ph - m - 12
    c.setFillColorRGB(0, 0, 0)
    c.setFont("Helvetica-Bold", 12.0)
    for ln in title:
        c.drawString(m, y, ln)
        y -= 14
    c.setFont("Helvetica", body)
    for ln in info:
        c.drawString(m, y, ln)
        y -= lead
    oy = y - 1 * PT_PER_MM  # top of the sheet grid
    ox = m + (box_w - tw * k) / 2
    s = lay.scale.mm_per_m * k
    minx, _, _, maxy = lay.window
    affine = (s, 0.0, 0.0, s, ox - minx * s, oy - maxy * s)
    c.saveState()
    clip = c.beginPath()
    clip.rect(ox, oy - th_mm * k, tw_mm * k, th_mm * k)
    c.clipPath(clip, stroke=0, fill=0)
    labels = Labeller((ox, oy - th_mm * k, ox + tw_mm * k, oy))
    # the bases' boxes on this page, so a sheet's label goes where it hides none of them
    base_boxes = [
        poly.bounds
        for d in shapes.deployed
        for poly in _polygons(shapely.affinity.affine_transform(d.bases, affine))
    ]
    grid_labels = []
    for sheet in t.sheets():
        x0, y0, x1, y1 = sheet.window
        x1, y1 = min(x1, tw_mm), min(y1, th_mm)  # the sheet's part of the table: on the page
        size = max(4.5, min(16.0, (x1 - x0) * k / 4, (y1 - y0) * k / 2))
        half = c.stringWidth(sheet.label, "Helvetica-Bold", size) / 2
        mx, my = ox + (x0 + x1) / 2 * k, oy - (y0 + y1) / 2 * k - size / 3
        hh = (y1 - y0) * k / 2 - size  # how far up or down the sheet's own part allows
        box = (0.0, 0.0, 0.0, 0.0)
        for f in (0.0, 0.5, -0.5, 0.8, -0.8):
            cx, cy = mx, my + f * max(hh, 0.0)
            box = (cx - half - 1, cy - 0.3 * size, cx + half + 1, cy + 0.8 * size)
            if not any(
                box[0] < b[2] and box[2] > b[0] and box[1] < b[3] and box[3] > b[1]
                for b in base_boxes
            ):
                break
        labels.boxes.append(box)
        grid_labels.append((sheet, (x0, y0, x1, y1), size, cx, cy))
    draw_ground(c, shapes, lay.window, affine, detail=False, labels=labels)
    # a name with no room beside its bases goes to the nearest free spot with a leader line;
    # failing that, a number beside its bases and the name in a key under the map
    keyed: list[tuple[int, Any]] = []
    for d in labels.missed:
        bases = shapely.affinity.affine_transform(d.bases, affine)
        ink = _rgb(d.colour)
        if place_with_leader(c, labels, bases, d.name, size=5.0, colour=ink, reach=LEADER_PT):
            continue
        tag = str(len(keyed) + 1)
        if key_lines and place_with_leader(c, labels, bases, tag, size=6.0, colour=ink, reach=30):
            keyed.append((len(keyed) + 1, d))
    c.restoreState()
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(1.0)
    c.rect(ox, oy - th_mm * k, tw_mm * k, th_mm * k, stroke=1, fill=0)
    for sheet, (x0, y0, x1, y1), size, cx, cy in grid_labels:
        c.setStrokeColorRGB(0.1, 0.2, 0.7)
        c.setLineWidth(0.6)
        cx0, cy0 = x0 + (t.overlap if sheet.col else 0), y0 + (t.overlap if sheet.row else 0)
        c.rect(ox + cx0 * k, oy - y1 * k, (x1 - cx0) * k, (y1 - cy0) * k, stroke=1, fill=0)
        c.setFillColorRGB(0.1, 0.2, 0.7)
        c.setFont("Helvetica-Bold", size)
        c.drawCentredString(cx, cy, sheet.label)
    y = oy - th_mm * k - 6 * PT_PER_MM
    c.setFillColorRGB(0, 0, 0)
    _scale_bar(c, m, y, s, min(60 * PT_PER_MM, width / 3), " (on this index page)")
    _north_arrow(c, pw - m, y - 2 * PT_PER_MM, 6 * PT_PER_MM, conv)
    y -= 5 * PT_PER_MM + lead
    c.setFont("Helvetica", body)
    if keyed:
        for ln in simpleSplit(_key_text(keyed), "Helvetica", body, width)[:key_lines]:
            c.drawString(m, y, ln)
            y -= lead
    for ln in text:
        c.drawString(m, y, ln)
        y -= lead
    y -= 3 * PT_PER_MM
    c.setFont("Helvetica-Bold", body)
    c.drawString(m, y, "Legend")
    y -= 5 * PT_PER_MM
    per_col = math.ceil(len(rows) / cols)
    for i, (swatch, label) in enumerate(rows):
        col, r = divmod(i, per_col)
        x, yy = m + col * col_w, y - r * row_h
        swatch(c, x, yy, 8 * PT_PER_MM, 3.2 * PT_PER_MM)
        c.setFillColorRGB(0, 0, 0)
        _fit_string(c, x + 10 * PT_PER_MM, yy + 0.8 * PT_PER_MM, x + col_w - 2, label, body - 0.5)
    c.showPage()


#: how far from its bases a formation's name may go on the index page, on a leader (points)
LEADER_PT = 70.0


def _key_text(keyed: list[tuple[int, Any]]) -> str:
    return "Numbered on the map: " + "; ".join(f"{i} {d.name}" for i, d in keyed)


def _sheet_page(
    c: rl_canvas.Canvas, lay: Layout, shapes: Shapes, sheet: Sheet, slug: str, convergence: float
) -> None:
    pw, ph = lay.paper.width_mm * PT_PER_MM, lay.paper.height_mm * PT_PER_MM
    m = lay.margin_mm * PT_PER_MM
    x0, y0, x1, y1 = m, m, pw - m, ph - m  # the printable area
    affine = lay.to_page(sheet)
    ground = lay.sheet_ground(sheet)
    table = shapely.clip_by_rect(shapely.box(*lay.window), *ground)
    c.saveState()
    clip = c.beginPath()
    clip.rect(x0, y0, x1 - x0, y1 - y0)
    c.clipPath(clip, stroke=0, fill=0)
    if not table.is_empty:
        # labels only where this sheet's own (non-overlap) part is, so a neighbour never
        # prints half of one
        tb = shapely.affinity.affine_transform(table, affine).bounds
        labels = Labeller((max(x0, tb[0]), max(y0, tb[1]), min(x1, tb[2]), min(y1, tb[3])))
        draw_ground(c, shapes, table.bounds, affine, labels=labels)
        # the table's own edge, where the ground ends
        c.setStrokeColorRGB(0, 0, 0)
        c.setLineWidth(0.8)
        edge = shapely.affinity.affine_transform(shapely.box(*lay.window), affine)
        c.drawPath(_poly_path(c, edge), stroke=1, fill=0)
    c.restoreState()
    _crop_marks(c, x0, y0, x1, y1)
    for tx, ty in lay.tiling.registration_marks():
        sx0, sy0, sx1, sy1 = sheet.window
        if sx0 <= tx <= sx1 and sy0 <= ty <= sy1:
            _registration_mark(c, x0 + (tx - sx0) * PT_PER_MM, y1 - (ty - sy0) * PT_PER_MM)
    t = lay.tiling
    c.setFillColorRGB(0, 0, 0)
    c.setFont("Helvetica-Bold", 11)
    c.drawString(x0 + 6 * PT_PER_MM, y1 + 2 * PT_PER_MM, sheet.label)
    arrow = 3.5 * PT_PER_MM
    _north_arrow(c, x1 - 7 * PT_PER_MM, y1 + 1.2 * PT_PER_MM, arrow, convergence)
    _fit_string(
        c,
        x0 + 16 * PT_PER_MM,
        y1 + 2.2 * PT_PER_MM,
        x1 - 40 * PT_PER_MM,
        f"{slug} at {lay.scale} - sheet {sheet.row * t.cols + sheet.col + 1} of "
        f"{t.count} ({t.rows} x {t.cols})",
        6.5,
    )
    neighbours = []
    for dr, dc, word in ((-1, 0, "north"), (1, 0, "south"), (0, -1, "west"), (0, 1, "east")):
        r, col = sheet.row + dr, sheet.col + dc
        if 0 <= r < t.rows and 0 <= col < t.cols:
            neighbours.append(f"{word} {row_name(r)}{col + 1}")
    pt_per_m = lay.scale.mm_per_m * PT_PER_MM
    bar_y = y0 - 2.8 * PT_PER_MM
    used = _scale_bar(c, x0 + 6 * PT_PER_MM, bar_y, pt_per_m, min(60 * PT_PER_MM, (x1 - x0) / 3))
    c.setFillColorRGB(0, 0, 0)
    _fit_string(
        c,
        x0 + 10 * PT_PER_MM + used,
        bar_y + 0.3,
        x1 - 7 * PT_PER_MM,
        "neighbours: " + ", ".join(neighbours),
        6,
        right=True,
    )
    c.showPage()
