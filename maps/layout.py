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

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from reportlab.lib.units import mm as PT_PER_MM
from reportlab.pdfgen import canvas as rl_canvas
from shapely.geometry.base import BaseGeometry

from maps.battlefield_map import source_names
from maps.colours import MOVE_NAMES, PRINT_MOVE
from maps.table import Paper, TableScale
from maps.tiling import Sheet, Tiling, row_name
from maps.vectors import class_regions, level_outlines, level_range, outline_contours
from scenario_builder.atomic import atomic_path
from scenario_builder.battlefield import Battlefield
from scenario_builder.errors import LayoutError

MAX_PAGES = 300
MIN_MARGIN_MM = 6.0


@dataclass(frozen=True)
class LayoutOptions:
    """What the user chose on the command line."""

    scale: TableScale
    paper: Paper
    overlap_mm: float = 10.0
    margin_mm: float = 10.0
    bbox: tuple[float, float, float, float] | None = None  # W, S, E, N degrees
    max_pages: int = MAX_PAGES


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


def parse_bbox(text: str) -> tuple[float, float, float, float]:
    """``W,S,E,N`` in degrees.

    >>> parse_bbox("-2.19,55.60,-2.15,55.62")
    (-2.19, 55.6, -2.15, 55.62)
    """
    try:
        w, s, e, n = (float(v) for v in text.split(","))
    except ValueError:
        raise LayoutError("--bbox", f"expected W,S,E,N in degrees, got {text!r}") from None
    if not (w < e and s < n and -180 <= w <= 180 and -90 <= s <= 90):
        raise LayoutError("--bbox", f"expected W < E and S < N in degrees, got {text!r}")
    return (w, s, e, n)


def plan_layout(bf: Battlefield, opts: LayoutOptions) -> Layout:
    """Choose the ground window and the paper orientation with fewer sheets; check the size."""
    if opts.margin_mm < MIN_MARGIN_MM:
        raise LayoutError(
            "--margin",
            f"expected at least {MIN_MARGIN_MM:g} mm for the marks, got {opts.margin_mm:g} mm",
        )
    if opts.overlap_mm < 0:
        raise LayoutError("--overlap", f"expected 0 mm or more, got {opts.overlap_mm:g} mm")
    window = bf.bounds
    if opts.bbox is not None:
        w, s, e, n = opts.bbox
        xs, ys = bf.to_xy([w, w, e, e], [s, n, s, n])
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
                f"expected an area overlapping the battlefield "
                f"{tuple(round(v, 4) for v in bf.bounds_lonlat())}, got {opts.bbox}",
            )
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
    lo: int
    hi: int


def prepare_shapes(bf: Battlefield, window: tuple[float, float, float, float]) -> Shapes:
    lo, hi = level_range(bf)
    outlines = level_outlines(bf, window)
    levels = [(k, g) for k, g in sorted(outlines.items()) if not g.is_empty]
    # smoothed like the levels (the raw regions print 25 mm cell steps at 2mm scale)
    smooth = class_regions(bf, "move", sorted(PRINT_MOVE), window)
    classes = [(code, g) for code, g in smooth.items() if not g.is_empty]
    # the contours are the tints' own edges (not the build's cell-edge lines), so they stay
    # smooth and land exactly on the cut layers' outlines
    lines = outline_contours(bf, outlines, window)
    return Shapes(levels, classes, lines, lo, hi)


def _tint(k: int, lo: int, hi: int) -> tuple[float, float, float]:
    """Layered tints for print: near-white low ground to light tan high ground."""
    t = 0.0 if hi <= lo else (k - lo) / (hi - lo)
    return (1.0 - 0.10 * t, 0.99 - 0.20 * t, 0.96 - 0.32 * t)


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


def draw_ground(
    c: rl_canvas.Canvas,
    shapes: Shapes,
    ground: tuple[float, ...],
    affine: Any,
    *,
    detail: bool = True,
    pt_per_m: float = 1.0,
) -> None:
    """Tints, class fills and hatching, contours (and labels when ``detail``) in ``ground``."""
    frame = shapely.box(*ground)
    c.setFillColorRGB(*_tint(shapes.lo, shapes.lo, shapes.hi))
    c.drawPath(_poly_path(c, shapely.affinity.affine_transform(frame, affine)), stroke=0, fill=1)
    for k, g in shapes.levels:
        part = shapely.clip_by_rect(g, *ground)
        if part.is_empty:
            continue
        c.setFillColorRGB(*_tint(k, shapes.lo, shapes.hi))
        c.drawPath(_poly_path(c, shapely.affinity.affine_transform(part, affine)), stroke=0, fill=1)
    for code, g in shapes.classes:
        part = shapely.clip_by_rect(g, *ground)
        if part.is_empty:
            continue
        style = PRINT_MOVE[code]
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
    labels = []
    for k, g in shapes.contours:
        part = shapely.clip_by_rect(g, *ground)
        if part.is_empty:
            continue
        major = k % 5 == 0
        c.setStrokeColorRGB(0.45, 0.28, 0.15)
        c.setLineWidth(1.1 if major else 0.5)
        for line in _lines(shapely.affinity.affine_transform(part, affine)):
            xy = np.asarray(line.coords)
            if len(xy) < 2:
                continue
            p = c.beginPath()
            p.moveTo(*xy[0])
            for x, y in xy[1:]:
                p.lineTo(x, y)
            c.drawPath(p, stroke=1, fill=0)
            if detail and line.length > 60:
                labels.append((line.length, k, line.interpolate(0.5, normalized=True)))
    if detail:
        labels.sort(key=lambda t: -t[0])
        c.setFont("Helvetica-Bold", 6.5)
        for _, k, pt in labels[:60]:
            w = c.stringWidth(str(k), "Helvetica-Bold", 6.5)
            c.setFillColorRGB(1, 1, 1)
            c.rect(pt.x - w / 2 - 1, pt.y - 2.6, w + 2, 7.2, stroke=0, fill=1)
            c.setFillColorRGB(0.45, 0.28, 0.15)
            c.drawCentredString(pt.x, pt.y - 1.6, str(k))


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
    """A bar of a round ground length; returns its length in points."""
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
    return length


def _north_arrow(c: rl_canvas.Canvas, x: float, y: float, size: float, convergence: float) -> None:
    """Grid north up (the battlefield grid is north-up), with true north's offset written."""
    c.setFillColorRGB(0, 0, 0)
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.5)
    p = c.beginPath()
    p.moveTo(x, y + size)
    p.lineTo(x - size * 0.3, y)
    p.lineTo(x, y + size * 0.25)
    p.close()
    c.drawPath(p, stroke=1, fill=1)
    p = c.beginPath()
    p.moveTo(x, y + size)
    p.lineTo(x + size * 0.3, y)
    p.lineTo(x, y + size * 0.25)
    p.close()
    c.drawPath(p, stroke=1, fill=0)
    c.setFont("Helvetica-Bold", 7)
    c.drawCentredString(x, y + size + 2, "N")
    c.setFont("Helvetica", 5)
    side = "W" if convergence > 0 else "E"
    c.drawString(x + size * 0.4, y, f"grid; true N {abs(convergence):.1f}° {side}")


def _convergence(bf: Battlefield) -> float:
    """Meridian convergence at the centre: the angle from grid north to true north (degrees)."""
    import pyproj

    lon, lat = bf.to_lonlat(*bf.centre)
    try:
        return float(pyproj.Proj(bf.crs).get_factors(lon, lat).meridian_convergence)
    except Exception:  # a CRS without factors: say nothing wrong
        return 0.0


def _legend(
    c: rl_canvas.Canvas, x: float, y: float, present: set[int], step: float, scale: TableScale
) -> None:
    c.setFont("Helvetica-Bold", 8)
    c.setFillColorRGB(0, 0, 0)
    c.drawString(x, y, "Terrain (movement, chart 7.3)")
    y -= 5 * PT_PER_MM
    for code, style in PRINT_MOVE.items():
        if code not in present:
            continue
        box = shapely.box(x, y, x + 8 * PT_PER_MM, y + 4 * PT_PER_MM)
        c.setFillColorRGB(*style.fill)
        c.rect(x, y, 8 * PT_PER_MM, 4 * PT_PER_MM, stroke=0, fill=1)
        if style.hatch:
            c.saveState()
            c.clipPath(_poly_path(c, box), stroke=0, fill=0)
            c.setStrokeColorRGB(*style.stroke)
            c.setLineWidth(0.35)
            _hatch(c, box, style.hatch[0], style.hatch[1] * PT_PER_MM)
            c.restoreState()
        c.setStrokeColorRGB(*style.stroke)
        c.rect(x, y, 8 * PT_PER_MM, 4 * PT_PER_MM, stroke=1, fill=0)
        c.setFillColorRGB(0, 0, 0)
        c.setFont("Helvetica", 7.5)
        c.drawString(x + 10 * PT_PER_MM, y + 1.2 * PT_PER_MM, MOVE_NAMES[code])
        y -= 5.5 * PT_PER_MM
    c.setFont("Helvetica", 7.5)
    c.drawString(
        x,
        y,
        f"Contours: one per height level (step {step:g} m ="
        f" {scale.mm(step):g} mm of table), every 5th bold",
    )


def write_layout_pdf(bf: Battlefield, opts: LayoutOptions, out: str | os.PathLike[str]) -> Layout:
    """Write the layout PDF atomically; returns the plan (sheets, window) it printed."""
    lay = plan_layout(bf, opts)
    shapes = prepare_shapes(bf, lay.window)
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
        _index_page(c, bf, lay, shapes, slug)
        conv = _convergence(bf)
        for sheet in lay.tiling.sheets():
            _sheet_page(c, lay, shapes, sheet, slug, conv)
        c.save()
        os.chmod(tmp, 0o644)
    return lay


def _index_page(
    c: rl_canvas.Canvas, bf: Battlefield, lay: Layout, shapes: Shapes, slug: str
) -> None:
    pw, ph = lay.paper.width_mm * PT_PER_MM, lay.paper.height_mm * PT_PER_MM
    m = 12 * PT_PER_MM
    t = lay.tiling
    tw, th = t.cols * t.step[0] + t.overlap, t.rows * t.step[1] + t.overlap  # sheets' span, mm
    box_w, box_h = pw - 2 * m, ph * 0.55
    k = min(box_w / tw, box_h / th)  # points per table mm on this page
    ox, oy = m + (box_w - tw * k) / 2, ph - m - 18 * PT_PER_MM  # top-left of the sheet grid
    s = lay.scale.mm_per_m * k
    minx, _, _, maxy = lay.window
    affine = (s, 0.0, 0.0, s, ox - minx * s, oy - maxy * s)
    c.setFont("Helvetica-Bold", 14)
    c.drawString(
        m,
        ph - m - 4,
        f"{slug}: table layout at {lay.scale} (1 m of ground = {lay.scale.mm_per_m:g} mm of table)",
    )
    c.setFont("Helvetica", 8.5)
    tw_mm, th_mm = lay.table_mm
    c.drawString(
        m,
        ph - m - 16,
        f"{t.rows} rows x {t.cols} columns = {t.count} sheets of "
        f"{lay.paper} ({lay.paper.width_mm:g} x {lay.paper.height_mm:g}"
        f" mm); table {tw_mm / 1000:.3f} x {th_mm / 1000:.3f} m; "
        f"overlap {t.overlap:g} mm; margin {lay.margin_mm:g} mm",
    )
    c.saveState()
    clip = c.beginPath()
    clip.rect(ox, oy - th * k, tw * k, th * k)
    c.clipPath(clip, stroke=0, fill=0)
    draw_ground(c, shapes, lay.window, affine, detail=False)
    c.restoreState()
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(1.0)
    c.rect(ox, oy - th_mm * k, tw_mm * k, th_mm * k, stroke=1, fill=0)
    for sheet in t.sheets():
        x0, y0, x1, y1 = sheet.window
        c.setStrokeColorRGB(0.1, 0.2, 0.7)
        c.setLineWidth(0.6)
        cx0, cy0 = x0 + (t.overlap if sheet.col else 0), y0 + (t.overlap if sheet.row else 0)
        c.rect(ox + cx0 * k, oy - y1 * k, (x1 - cx0) * k, (y1 - cy0) * k, stroke=1, fill=0)
        c.setFillColorRGB(0.1, 0.2, 0.7)
        size = max(5.0, min(16.0, (x1 - x0) * k / 4))
        c.setFont("Helvetica-Bold", size)
        c.drawCentredString(ox + (x0 + x1) / 2 * k, oy - (y0 + y1) / 2 * k - size / 3, sheet.label)
    y = oy - th * k - 10 * PT_PER_MM
    c.setFillColorRGB(0, 0, 0)
    _scale_bar(c, m, y, s, 60 * PT_PER_MM, " (on this index page)")
    _north_arrow(c, pw - m - 10 * PT_PER_MM, y - 4 * PT_PER_MM, 10 * PT_PER_MM, _convergence(bf))
    y -= 9 * PT_PER_MM
    c.setFont("Helvetica", 8)
    lines = [
        f"Rows {row_name(0)}..{row_name(t.rows - 1)} run north to south, columns 1..{t.cols} "
        "west to east; each sheet names itself in its top margin.",
        "Assemble: trim each sheet along its crop marks on the left and top edges, lay it over its "
        "left and upper neighbours",
        f"so the {t.overlap:g} mm overlap strips coincide, match the registration marks (circle "
        "and cross), and tape from behind.",
        f"Every sheet is at true table scale: check its scale bar with a ruler before cutting "
        f"(1 m of ground = {lay.scale.mm_per_m:g} mm).",
    ]
    names = source_names(bf.meta)
    if names:
        lines.append("Sources: " + "; ".join(names)[:150])
    for line in lines:
        c.drawString(m, y, line)
        y -= 4.2 * PT_PER_MM
    y -= 4 * PT_PER_MM
    _legend(c, m, y, {code for code, _ in shapes.classes}, bf.step, lay.scale)
    c.showPage()


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
        draw_ground(c, shapes, table.bounds, affine)
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
    c.setFont("Helvetica-Bold", 12)
    c.drawString(x0 + 6 * PT_PER_MM, y1 + 2.2 * PT_PER_MM, sheet.label)
    c.setFont("Helvetica", 6.5)
    neighbours = []
    for dr, dc, word in ((-1, 0, "north"), (1, 0, "south"), (0, -1, "west"), (0, 1, "east")):
        r, col = sheet.row + dr, sheet.col + dc
        if 0 <= r < t.rows and 0 <= col < t.cols:
            neighbours.append(f"{word} {row_name(r)}{col + 1}")
    c.drawString(
        x0 + 20 * PT_PER_MM,
        y1 + 2.4 * PT_PER_MM,
        f"{slug} at {lay.scale} - sheet {sheet.row * t.cols + sheet.col + 1} of "
        f"{t.count} ({t.rows} x {t.cols}) - " + ", ".join(neighbours),
    )
    pt_per_m = lay.scale.mm_per_m * PT_PER_MM
    _scale_bar(
        c, x0 + 6 * PT_PER_MM, y0 - 4.6 * PT_PER_MM, pt_per_m, min(60 * PT_PER_MM, (x1 - x0) / 2)
    )
    arrow = min(4.0, lay.margin_mm - 4.0) * PT_PER_MM
    _north_arrow(c, x1 - 34 * PT_PER_MM, 1.2 * PT_PER_MM, arrow, convergence)
    c.showPage()
