"""Cut layers: one sheet per height step, the outline of all ground at or above that level.

Stacked in order on the base board, the layers build the stepped hills of 6.2 ("slopes and rises
should be modelled on the battlefield in steps"). Each layer is cut from board as thick as one
step at table scale (a 2 m step at 2mm scale is 2 mm; at 6mm scale 6 mm), printed on the sheet.

For each level k above the lowest, ``DIR`` gets

* ``level_KK.svg``: the whole layer at true size in one drawing (``width``/``height`` in mm, for
  a laser cutter or plotter): outline in red (cut), registration marks and text in blue (mark);
* ``level_KK.pdf``: the same at true scale tiled onto the chosen paper with the layout's tiling
  and sheet labels, for tracing by hand; only the sheets the layer has ground on (listed as
  ``sheets`` in ``layers.json``).

Registration marks are at the same table positions on every layer (the four corners 10 mm in and
the centre), so pins or drilled holes line the layers up. ``layers.json`` lists the layers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from reportlab.lib.units import mm as PT_PER_MM
from reportlab.pdfgen import canvas as rl_canvas
from shapely.geometry.base import BaseGeometry

from maps.layout import Layout, LayoutOptions, _crop_marks, _poly_path, plan_layout
from maps.vectors import level_outlines
from scenario_builder.atomic import atomic_dir
from scenario_builder.battlefield import Battlefield

CUT = "#ff0000"
MARK = "#0000ff"
INSET_MM = 10.0


def registration_points(table_mm: tuple[float, float]) -> list[tuple[float, float]]:
    """Table positions (mm from the top-left) of the registration marks, same on every layer.

    >>> registration_points((300.0, 200.0))
    [(10.0, 10.0), (290.0, 10.0), (10.0, 190.0), (290.0, 190.0), (150.0, 100.0)]
    """
    w, h = table_mm
    i = min(INSET_MM, w / 4, h / 4)
    return [(i, i), (w - i, i), (i, h - i), (w - i, h - i), (w / 2, h / 2)]


def layer_outlines(
    bf: Battlefield, window: tuple[float, float, float, float]
) -> list[tuple[int, BaseGeometry]]:
    """(level, ground at or above it) for every level above the lowest, clipped to ``window``:
    the smoothed, nested outlines of ``maps.smoothing`` (each board lies on the one below)."""
    out = []
    for k, g in sorted(level_outlines(bf, window).items()):
        g = g.buffer(0) if not g.is_valid else g
        if not g.is_empty and g.area > 0:
            out.append((k, g))
    return out


def _svg_path(g: BaseGeometry, lay: Layout) -> str:
    parts = []
    for poly in getattr(g, "geoms", [g]):
        if poly.geom_type != "Polygon":
            continue
        for ring in (poly.exterior, *poly.interiors):
            xy = np.asarray(ring.coords)
            tx, ty = lay.to_table(xy[:, 0], xy[:, 1])
            pts = " ".join(f"{x:.2f},{y:.2f}" for x, y in zip(tx, ty))
            parts.append(f"M{pts}Z")
    return " ".join(parts)


def _svg_mark(x: float, y: float) -> str:
    return (
        f'<circle cx="{x:.2f}" cy="{y:.2f}" r="1.5"/>'
        f'<path d="M{x - 3:.2f},{y:.2f}H{x + 3:.2f}M{x:.2f},{y - 3:.2f}V{y + 3:.2f}"/>'
    )


def layer_note(bf: Battlefield, lay: Layout, k: int, count: int, index: int) -> str:
    """The text printed on a layer: which level, how thick to cut, at what scale."""
    thick = lay.scale.mm(bf.step)
    elev = _level_base(bf, k)
    return (
        f"{bf.meta.get('slug', 'battlefield')} - layer {index} of {count}: level {k} "
        f"(ground from {elev:g} m) - cut from {thick:g} mm board "
        f"(step {bf.step:g} m at {lay.scale})"
    )


def _level_base(bf: Battlefield, k: int) -> float:
    lv = bf.layer("level")
    sel = lv >= k
    return round(float(bf.layer("elevation")[sel].min()), 1) if sel.any() else float("nan")


def layer_svg(bf: Battlefield, lay: Layout, k: int, g: BaseGeometry, note: str) -> str:
    """One layer as a true-size SVG (user units are millimetres)."""
    w, h = lay.table_mm
    marks = "".join(_svg_mark(x, y) for x, y in registration_points((w, h)))
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.2f}mm" height="{h:.2f}mm" '
        f'viewBox="0 0 {w:.2f} {h:.2f}">\n'
        f"<title>{note}</title>\n"
        f'<g id="cut" fill="none" stroke="{CUT}" stroke-width="0.1" fill-rule="evenodd">'
        f'<path d="{_svg_path(g, lay)}"/></g>\n'
        f'<g id="marks" fill="none" stroke="{MARK}" stroke-width="0.2">{marks}'
        f'<rect x="0" y="0" width="{w:.2f}" height="{h:.2f}" stroke-dasharray="2 2"/></g>\n'
        f'<g id="text" fill="{MARK}" font-family="sans-serif" font-size="3">'
        f'<text x="{min(14.0, w / 3):.2f}" y="{min(8.0, h / 3):.2f}">{note}</text></g>\n'
        "</svg>\n"
    )


def layer_sheets(lay: Layout, g: BaseGeometry) -> list[tuple[Any, BaseGeometry]]:
    """The layout's sheets this layer has ground on, with that ground: a high, small layer is
    traced from a few sheets, not the whole table's (the sheet labels say where they go)."""
    out = []
    for sheet in lay.tiling.sheets():
        part = shapely.clip_by_rect(g, *lay.sheet_ground(sheet))
        if not part.is_empty and part.area > 0:
            out.append((sheet, part))
    return out


def layer_pdf(path: Path, bf: Battlefield, lay: Layout, g: BaseGeometry, note: str) -> None:
    """One layer tiled on paper at true scale, with the layout's sheet labels."""
    pw, ph = lay.paper.width_mm * PT_PER_MM, lay.paper.height_mm * PT_PER_MM
    m = lay.margin_mm * PT_PER_MM
    c = rl_canvas.Canvas(str(path), pagesize=(pw, ph), pageCompression=1, invariant=1)
    c.setTitle(note)
    table_marks = registration_points(lay.table_mm)
    for sheet, part in layer_sheets(lay, g):
        affine = lay.to_page(sheet)
        c.saveState()
        clip = c.beginPath()
        clip.rect(m, m, pw - 2 * m, ph - 2 * m)
        c.clipPath(clip, stroke=0, fill=0)
        if not part.is_empty:
            pg = shapely.affinity.affine_transform(part, affine)
            c.setFillColorRGB(0.93, 0.93, 0.93)
            c.setStrokeColorRGB(1, 0, 0)
            c.setLineWidth(0.6)
            c.drawPath(_poly_path(c, pg), stroke=1, fill=1, fillMode=0)
        c.setStrokeColorRGB(0, 0, 1)
        c.setLineWidth(0.4)
        sx0, sy0 = sheet.window[0], sheet.window[1]
        for tx, ty in table_marks:
            x, y = m + (tx - sx0) * PT_PER_MM, ph - m - (ty - sy0) * PT_PER_MM
            c.circle(x, y, 1.5 * PT_PER_MM, stroke=1, fill=0)
            c.line(x - 3 * PT_PER_MM, y, x + 3 * PT_PER_MM, y)
            c.line(x, y - 3 * PT_PER_MM, x, y + 3 * PT_PER_MM)
        c.restoreState()
        _crop_marks(c, m, m, pw - m, ph - m)
        c.setFillColorRGB(0, 0, 0)
        c.setFont("Helvetica-Bold", 11)
        c.drawString(m + 6 * PT_PER_MM, ph - m + 2.2 * PT_PER_MM, sheet.label)
        c.setFont("Helvetica", 6.5)
        c.drawString(m + 20 * PT_PER_MM, ph - m + 2.4 * PT_PER_MM, note)
        c.showPage()
    c.save()


def write_cut_layers(
    bf: Battlefield, opts: LayoutOptions, directory: str | os.PathLike[str]
) -> list[Path]:
    """Write every layer's SVG and PDF into ``directory`` (all or nothing)."""
    lay = plan_layout(bf, opts)
    outlines = layer_outlines(bf, lay.window)
    directory = Path(directory)
    written: list[Path] = []
    index: list[dict[str, Any]] = []
    with atomic_dir(directory) as tmp:
        for i, (k, g) in enumerate(outlines, start=1):
            note = layer_note(bf, lay, k, len(outlines), i)
            svg = tmp / f"level_{k:02d}.svg"
            svg.write_text(layer_svg(bf, lay, k, g, note), encoding="utf-8")
            layer_pdf(tmp / f"level_{k:02d}.pdf", bf, lay, g, note)
            written.append(directory / svg.name)
            index.append(
                {
                    "level": k,
                    "svg": svg.name,
                    "pdf": f"level_{k:02d}.pdf",
                    "sheets": [sheet.label for sheet, _ in layer_sheets(lay, g)],
                    "thickness_mm": lay.scale.mm(bf.step),
                    "area_m2": round(g.area, 1),
                    "ground_from_m": _level_base(bf, k),
                }
            )
        (tmp / "layers.json").write_text(
            json.dumps(
                {
                    "scale": str(lay.scale),
                    "mm_per_m": lay.scale.mm_per_m,
                    "step_m": bf.step,
                    "paper": str(lay.paper),
                    "table_mm": [round(v, 2) for v in lay.table_mm],
                    "window": [round(v, 2) for v in lay.window],
                    "crs": bf.crs.to_string(),
                    "registration_marks_mm": [list(p) for p in registration_points(lay.table_mm)],
                    "layers": index,
                },
                indent=1,
            )
            + "\n"
        )
        for p in tmp.iterdir():
            os.chmod(p, 0o644)
    return written
