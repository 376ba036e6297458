"""Cut layers: the boards a wargamer cuts and stacks to build the printed window's hills (6.2).

6.2: "slopes and rises should be modelled on the battlefield in steps". The stack starts with a
**base board**, the whole window at its lowest height level; each board above it is the outline of
the ground at or above its level. A board stands for ``levels_per_board`` height levels; by default
the fewest that keep the stack within ``TARGET_BOARDS`` boards (a window of a few levels keeps one
level a board: a 2 m step at 2mm scale is a 2 mm board). ``board_mm`` is the thickness of the board
the builder has (default: the levels it stands for at table scale). A level of ground is carried by
the board nearest its height (``round((level - base) / levels_per_board)``), so coarser boards
round heights, never shift them all one way.

Boards identical to the one below (a cliff where several levels share one outline) are not
printed twice: the board lists ``copies`` (cut that many, or one board that many times thicker).
Boards that cover the whole window are copies of the base board.

A board's **cut line** is its outline off the table's edge (the edge is cut straight, to the
window's size). For each board, ``DIR`` gets

* ``level_KK.pdf``: the board's template: an index page (the table, the board, the sheet grid),
  then the board tiled at true scale on the layout's paper, only the sheets a cut line runs
  through (a sheet wholly on or wholly off the board needs none): each with
  the **cut line** (red outline, the kept side faintly tinted), a grey dashed **ghost of the next
  board up** (where it sits on this one), the print layout's registration marks that fall on the
  sheet (the same table points on every board and every sheet), crop marks, its label, where it
  lies on the table, its neighbours' labels and a scale bar. The base board is a plain rectangle:
  it has no template;
* ``level_KK.svg`` (or, with ``bed``, one ``level_KK_<piece>.svg`` per cutter-bed piece that has
  ground): true size in mm for a laser cutter: ``cut`` group red, the ghost and marks blue
  (engrave or ignore), text blue.

``layers.json`` lists the boards, their sheets, copies and thicknesses, and the totals.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from reportlab.lib.units import mm as PT_PER_MM
from reportlab.pdfgen import canvas as rl_canvas
from shapely.geometry.base import BaseGeometry

from maps.layout import (
    INDEX_MARGIN_MM,
    Layout,
    LayoutOptions,
    _crop_marks,
    _fit_string,
    _poly_path,
    _registration_mark,
    _scale_bar,
    plan_layout,
    window_levels,
)
from maps.table import Paper
from maps.tiling import Sheet, Tiling
from maps.vectors import level_outlines
from scenario_builder.atomic import atomic_dir
from scenario_builder.battlefield import Battlefield
from scenario_builder.errors import LayoutError

CUT = "#ff0000"
MARK = "#0000ff"
GHOST = "#8080ff"
#: Boards a stack may have before the default levels per board grows: about what a builder cuts
#: and glues in a weekend, and at 2mm on hills of 100-150 m a step of 6-8 m, still a hill a
#: wargamer reads as slopes (6.2) rather than as terraces.
TARGET_BOARDS = 20


@dataclass(frozen=True)
class CutOptions:
    """How the stack is built: ``levels_per_board`` levels per board, boards ``board_mm`` thick
    (None: the levels at table scale), SVGs split to a cutter ``bed`` (None: one drawing)."""

    levels_per_board: int | None = None
    board_mm: float | None = None
    bed: Paper | None = None


@dataclass
class Board:
    """One board of the stack: ground at level >= ``level`` (standing for ``level .. top``)."""

    index: int  # 0 is the base board
    level: int
    top: int
    outline: BaseGeometry
    copies: int = 1
    sheets: list[str] = field(default_factory=list)
    skipped: int = 0  # the layout's sheets this board's template leaves out (no cut line)


@dataclass
class Stack:
    """The planned stack for one layout window."""

    base_level: int
    levels_per_board: int
    board_mm: float
    base: Board
    boards: list[Board]  # above the base, bottom to top, identical neighbours merged
    why: str = ""  # how levels_per_board was chosen, for the summary
    mm_per_m: float = 1.0  # table scale: board areas and cut lengths are reported in table units

    @property
    def board_count(self) -> int:
        """Physical boards to cut, base and copies included."""
        return self.base.copies + sum(b.copies for b in self.boards)

    @property
    def thickness_mm(self) -> float:
        return self.board_count * self.board_mm

    @property
    def board_area_m2(self) -> float:
        """Board to buy: every board's area on the table (m2), copies included."""
        k = self.mm_per_m / 1000.0
        return sum(b.outline.area * b.copies for b in [self.base, *self.boards]) * k * k

    @property
    def cut_length_m(self) -> float:
        """Cut line to saw (m of table), copies included; the table's straight edges left out."""
        edge = self.base.outline.boundary.buffer(1e-6 * math.sqrt(self.base.outline.area))
        k = self.mm_per_m / 1000.0
        return sum(b.outline.boundary.difference(edge).length * b.copies for b in self.boards) * k

    @property
    def sheet_count(self) -> int:
        return sum(len(b.sheets) for b in [self.base, *self.boards])


def parse_bed(text: str) -> Paper:
    """``WxHmm`` (or a paper name) as a cutter bed.

    >>> str(parse_bed("600x400mm"))
    '600x400mm'
    """
    try:
        return Paper.from_text(text)
    except LayoutError:
        raise LayoutError("--bed", f"expected WxHmm (a cutter bed), got {text!r}") from None


def board_levels(
    bf: Battlefield, lay: Layout, levels_per_board: int
) -> tuple[int, list[tuple[int, int]]]:
    """The window's lowest level and, per board above the base, (lowest level it carries, top).

    A cell at level ``l`` lands on board ``round((l - base) / n)`` (halves up), so board ``j``
    carries ``l >= base + ceil(j n - n / 2)``.
    """
    base, top = window_levels(bf, lay.window)
    n = levels_per_board
    out = []
    j = 1
    while True:
        lo = base + math.ceil(j * n - n / 2)
        if lo > top:
            break
        out.append((lo, min(base + math.ceil((j + 1) * n - n / 2) - 1, top)))
        j += 1
    return base, out


def plan_stack(bf: Battlefield, lay: Layout, cut: CutOptions) -> Stack:
    """Base board, boards, identical boards merged into copies (see the module docstring)."""
    n = cut.levels_per_board
    step_mm = lay.scale.mm(bf.step)
    if n is not None and n < 1:
        raise LayoutError("--levels-per-board", f"expected 1 or more, got {n}")
    if cut.board_mm is not None and not cut.board_mm > 0:
        raise LayoutError("--board-mm", f"expected a thickness above 0 mm, got {cut.board_mm:g}")
    outlines = level_outlines(bf, lay.window)
    if n is not None:
        stack = _stack(bf, lay, n, cut.board_mm, outlines)
        stack.why = f"{_per_board(n, bf.step)} (--levels-per-board)"
        return stack
    if cut.board_mm is not None:
        n = max(1, round(cut.board_mm / step_mm))
        stack = _stack(bf, lay, n, cut.board_mm, outlines)
        stack.why = f"{_per_board(n, bf.step)} (nearest to --board-mm {cut.board_mm:g})"
        return stack
    # the fewest levels a board that keep the stack buildable; n past the window's relief leaves
    # one board above the base, so the search ends
    first = stack = _stack(bf, lay, 1, None, outlines)
    while stack.board_count > TARGET_BOARDS:
        stack = _stack(bf, lay, stack.levels_per_board + 1, None, outlines)
    n = stack.levels_per_board
    stack.why = f"{_per_board(n, bf.step)}: " + (
        f"the fewest that keep the stack within {TARGET_BOARDS} boards "
        f"(1 level a board: {first.board_count}; --levels-per-board to choose)"
        if n > 1
        else f"the stack is within {TARGET_BOARDS} boards"
    )
    return stack


def _per_board(n: int, step_m: float) -> str:
    return f"{n} level{'' if n == 1 else 's'} a board ({n * step_m:g} m steps)"


def _stack(
    bf: Battlefield,
    lay: Layout,
    n: int,
    board_mm: float | None,
    outlines: dict[int, BaseGeometry],
) -> Stack:
    """The stack at ``n`` levels a board from the window's level ``outlines``."""
    base_level, groups = board_levels(bf, lay, n)
    window = shapely.box(*lay.window)
    base = Board(0, base_level, base_level, window)
    tol = 0.01 * bf.res**2  # identical: less than a hundredth of a cell apart
    boards: list[Board] = []
    for lo, top in groups:
        g = outlines.get(lo)
        if g is None or g.is_empty or g.area <= tol:
            continue
        g = g.buffer(0) if not g.is_valid else g
        below = boards[-1].outline if boards else window
        if below.area - g.area <= tol:  # nested, so equal area is equal ground
            if boards:
                boards[-1].copies += 1
                boards[-1].top = top
            else:
                base.copies += 1
                base.top = top
            continue
        boards.append(Board(len(boards) + 1, lo, top, g))
    mm = board_mm if board_mm is not None else n * lay.scale.mm(bf.step)
    return Stack(base_level, n, mm, base, boards, mm_per_m=lay.scale.mm_per_m)


def template_sheets(lay: Layout, g: BaseGeometry) -> list[tuple[Sheet, BaseGeometry]]:
    """The sheets of a board's template: those whose own part of the table (``_own_area``) a cut
    line runs through. A sheet wholly on the board or wholly off it needs no template, and a line
    only in an overlap strip is traced from the neighbour that owns it (no sheets holding a corner
    sliver)."""
    window = shapely.box(*lay.window)
    line = g.boundary.difference(window.boundary.buffer(1e-6 * math.sqrt(window.area)))
    if line.is_empty:
        return []
    out = []
    for sheet in lay.tiling.sheets():
        own = Sheet(sheet.row, sheet.col, _own_area(sheet, lay.tiling))
        if shapely.clip_by_rect(line, *lay.sheet_ground(own)).length > 0:
            out.append((sheet, shapely.clip_by_rect(g, *lay.sheet_ground(sheet))))
    return out


def board_note(bf: Battlefield, lay: Layout, stack: Stack, b: Board) -> str:
    """The text printed on a board: which, what level, how thick, how many."""
    slug = bf.meta.get("slug", "battlefield")
    total = len(stack.boards)
    what = "base board" if b.index == 0 else f"board {b.index} of {total}"
    levels = f"level {b.level}" if b.top == b.level else f"levels {b.level}-{b.top}"
    copies = f" x{b.copies} (identical: cut {b.copies})" if b.copies > 1 else ""
    return (
        f"{slug} - {what}: {levels} (ground from {_level_base(bf, b.level):g} m) - "
        f"cut from {stack.board_mm:g} mm board{copies} - {lay.scale}"
    )


def _level_base(bf: Battlefield, k: int) -> float:
    base = bf.meta.get("level_base_m")
    if isinstance(base, (int, float)):
        return round(float(base) + k * bf.step, 1)
    lv = bf.layer("level")
    sel = lv >= k
    return round(float(bf.layer("elevation")[sel].min()), 1) if sel.any() else float("nan")


def _svg_path(g: BaseGeometry, lay: Layout, origin: tuple[float, float] = (0.0, 0.0)) -> str:
    parts = []
    for poly in getattr(g, "geoms", [g]):
        if poly.geom_type != "Polygon" or poly.is_empty:
            continue
        for ring in (poly.exterior, *poly.interiors):
            xy = np.asarray(ring.coords)
            tx, ty = lay.to_table(xy[:, 0], xy[:, 1])
            pts = " ".join(f"{x - origin[0]:.2f},{y - origin[1]:.2f}" for x, y in zip(tx, ty))
            parts.append(f"M{pts}Z")
    return " ".join(parts)


def _svg_mark(x: float, y: float) -> str:
    return (
        f'<circle cx="{x:.2f}" cy="{y:.2f}" r="1.5"/>'
        f'<path d="M{x - 3:.2f},{y:.2f}H{x + 3:.2f}M{x:.2f},{y - 3:.2f}V{y + 3:.2f}"/>'
    )


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def layer_svg(
    lay: Layout,
    g: BaseGeometry,
    ghost: BaseGeometry,
    note: str,
    piece: tuple[float, float, float, float] | None = None,
) -> str:
    """One board (or one cutter-bed ``piece`` of it: x0, y0, x1, y1 table mm) as a true-size
    SVG (user units are millimetres); the print layout's registration marks inside it."""
    w, h = lay.table_mm
    x0, y0, x1, y1 = piece or (0.0, 0.0, w, h)
    pw, ph = x1 - x0, y1 - y0
    if piece is not None:
        ground = lay.sheet_ground(Sheet(0, 0, piece))
        g = shapely.clip_by_rect(g, *ground)
        ghost = shapely.clip_by_rect(ghost, *ground)
    marks = "".join(
        _svg_mark(x - x0, y - y0)
        for x, y in lay.tiling.registration_marks()
        if x0 <= x <= x1 and y0 <= y <= y1
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{pw:.2f}mm" height="{ph:.2f}mm" '
        f'viewBox="0 0 {pw:.2f} {ph:.2f}">\n'
        f"<title>{_esc(note)}</title>\n"
        f'<g id="ghost" fill="none" stroke="{GHOST}" stroke-width="0.1" stroke-dasharray="1 1">'
        f'<path d="{_svg_path(ghost, lay, (x0, y0))}"/></g>\n'
        f'<g id="cut" fill="none" stroke="{CUT}" stroke-width="0.1" fill-rule="evenodd">'
        f'<path d="{_svg_path(g, lay, (x0, y0))}"/></g>\n'
        f'<g id="marks" fill="none" stroke="{MARK}" stroke-width="0.2">{marks}'
        f'<rect x="0" y="0" width="{pw:.2f}" height="{ph:.2f}" stroke-dasharray="2 2"/></g>\n'
        f'<g id="text" fill="{MARK}" font-family="sans-serif" font-size="3">'
        f'<text x="{min(14.0, pw / 3):.2f}" y="{min(8.0, ph / 3):.2f}">{_esc(note)}</text></g>\n'
        "</svg>\n"
    )


def bed_pieces(lay: Layout, bed: Paper, g: BaseGeometry) -> list[tuple[Sheet, BaseGeometry]]:
    """The cutter-bed pieces (no overlap: they butt) a board has ground on. The bed's
    orientation with fewer pieces for the whole table is used."""
    w, h = lay.table_mm
    best: Tiling | None = None
    for b in (bed, bed.landscape()):
        t = Tiling.plan(w, h, printable=(b.width_mm, b.height_mm), overlap=0.0)
        if best is None or t.count < best.count:
            best = t
    assert best is not None
    out = []
    for piece in best.sheets():
        part = shapely.clip_by_rect(g, *lay.sheet_ground(piece))
        if not part.is_empty and part.area > 0:
            out.append((piece, part))
    return out


def _neighbours(sheet: Sheet, present: set[str], t: Tiling) -> str:
    from maps.tiling import row_name

    words = []
    for dr, dc, word in ((-1, 0, "N"), (1, 0, "S"), (0, -1, "W"), (0, 1, "E")):
        r, col = sheet.row + dr, sheet.col + dc
        if 0 <= r < t.rows and 0 <= col < t.cols:
            label = f"{row_name(r)}{col + 1}"
            words.append(f"{word} {label}" + ("" if label in present else " (no cut)"))
    return ", ".join(words)


def _own_area(sheet: Sheet, t: Tiling) -> tuple[float, float, float, float]:
    """The part of the table (x0, y0, x1, y1 mm) a sheet alone answers for: the sheet less half
    of each overlap strip it shares, so every table point belongs to one sheet."""
    half = t.overlap / 2
    x0, y0, x1, y1 = sheet.window
    w, h = t.table
    return (
        x0 + (half if sheet.col else 0.0),
        y0 + (half if sheet.row else 0.0),
        min(x1 - (half if sheet.col < t.cols - 1 else 0.0), w),
        min(y1 - (half if sheet.row < t.rows - 1 else 0.0), h),
    )


def _board_index(
    c: rl_canvas.Canvas,
    lay: Layout,
    g: BaseGeometry,
    ghost: BaseGeometry | None,
    printed: set[str],
    note: str,
) -> None:
    """The template's first page: the whole table with this board (tinted), the next board up
    (dashed) and the sheet grid, the template's sheets labelled in black, the others (no cut line:
    nothing to trace) in grey, so the builder sees where each sheet goes."""
    pw, ph = lay.paper.width_mm * PT_PER_MM, lay.paper.height_mm * PT_PER_MM
    m = INDEX_MARGIN_MM * PT_PER_MM
    t = lay.tiling
    c.setFillColorRGB(0, 0, 0)
    _fit_string(c, m, ph - m - 10, pw - m, note, 10, font="Helvetica-Bold")
    _fit_string(
        c,
        m,
        ph - m - 24,
        pw - m,
        f"index: {len(printed)} template sheets of the layout's {t.count} (labelled black); the "
        "grey ones have no cut line (the board covers them whole or not at all).",
        8,
    )
    tw, th = lay.table_mm
    k = min((pw - 2 * m) / tw, (ph - 2 * m - 40) / th)  # page points per table mm
    ox, oy = m, ph - m - 34  # the table's NW corner on the page

    def page(x: float, y: float) -> tuple[float, float]:
        return ox + x * k, oy - y * k

    def draw(geom: BaseGeometry, fill: bool) -> None:
        if geom.is_empty:
            return
        s_ = lay.scale.mm_per_m * k
        minx, _, _, maxy = lay.window
        pg = shapely.affinity.affine_transform(geom, (s_, 0, 0, s_, ox - minx * s_, oy - maxy * s_))
        c.drawPath(_poly_path(c, pg), stroke=1, fill=1 if fill else 0, fillMode=0)

    c.setFillColorRGB(1.0, 0.9, 0.9)
    c.setStrokeColorRGB(1, 0, 0)
    c.setLineWidth(0.6)
    draw(g, True)
    if ghost is not None:
        c.setStrokeColorRGB(0.55, 0.55, 0.7)
        c.setDash(3, 2)
        draw(ghost, False)
        c.setDash()
    c.setLineWidth(0.4)
    for sheet in t.sheets():
        x0, y0, x1, y1 = _own_area(sheet, t)
        on = sheet.label in printed
        grey = 0.0 if on else 0.7
        c.setStrokeColorRGB(grey, grey, grey)
        (px0, py1), (px1, py0) = page(x0, y0), page(x1, y1)
        c.rect(px0, py0, px1 - px0, py1 - py0, stroke=1, fill=0)
        c.setFillColorRGB(grey, grey, grey)
        c.setFont("Helvetica-Bold" if on else "Helvetica", 7)
        c.drawCentredString((px0 + px1) / 2, (py0 + py1) / 2 - 2.5, sheet.label)
    c.showPage()


def layer_pdf(
    path: Path,
    lay: Layout,
    g: BaseGeometry,
    sheets: list[tuple[Sheet, BaseGeometry]],
    ghost: BaseGeometry | None,
    note: str,
) -> list[str]:
    """A board's template ``sheets`` on paper at true scale, ``ghost`` (the next board up) dashed;
    returns the labels of the sheets printed. An index page comes first."""
    pw, ph = lay.paper.width_mm * PT_PER_MM, lay.paper.height_mm * PT_PER_MM
    m = lay.margin_mm * PT_PER_MM
    c = rl_canvas.Canvas(str(path), pagesize=(pw, ph), pageCompression=1, invariant=1)
    c.setTitle(note)
    _board_index(c, lay, g, ghost, {s.label for s, _ in sheets}, note)
    present = {s.label for s, _ in sheets}
    table_marks = lay.tiling.registration_marks()
    pt_per_m = lay.scale.mm_per_m * PT_PER_MM
    for sheet, part in sheets:
        affine = lay.to_page(sheet)
        c.saveState()
        clip = c.beginPath()
        clip.rect(m, m, pw - 2 * m, ph - 2 * m)
        c.clipPath(clip, stroke=0, fill=0)
        pg = shapely.affinity.affine_transform(part, affine)
        c.setFillColorRGB(1.0, 0.95, 0.95)  # the kept side, faintly: the line is what matters
        c.setStrokeColorRGB(1, 0, 0)
        c.setLineWidth(0.7)
        c.drawPath(_poly_path(c, pg), stroke=1, fill=1, fillMode=0)
        if ghost is not None:  # drawn over the tint: it lies on the kept side
            gh = shapely.clip_by_rect(ghost, *lay.sheet_ground(sheet))
            if not gh.is_empty:
                pg = shapely.affinity.affine_transform(gh, affine)
                c.setStrokeColorRGB(0.55, 0.55, 0.7)
                c.setLineWidth(0.4)
                c.setDash(3, 2)
                c.drawPath(_poly_path(c, pg), stroke=1, fill=0)
                c.setDash()
        c.restoreState()
        sx0, sy0, sx1, sy1 = sheet.window
        for tx, ty in table_marks:
            if sx0 <= tx <= sx1 and sy0 <= ty <= sy1:
                _registration_mark(c, m + (tx - sx0) * PT_PER_MM, ph - m - (ty - sy0) * PT_PER_MM)
        _crop_marks(c, m, m, pw - m, ph - m)
        c.setFillColorRGB(0, 0, 0)
        c.setFont("Helvetica-Bold", 11)
        c.drawString(m + 6 * PT_PER_MM, ph - m + 2 * PT_PER_MM, sheet.label)
        c.setFont("Helvetica", 6)
        _fit_string(
            c, m + 16 * PT_PER_MM, ph - m + 2.2 * PT_PER_MM, pw - m - 7 * PT_PER_MM, note, 6
        )
        bar_y = m - 2.8 * PT_PER_MM
        used = _scale_bar(
            c, m + 6 * PT_PER_MM, bar_y, pt_per_m, min(60 * PT_PER_MM, (pw - 2 * m) / 3)
        )
        c.setFillColorRGB(0, 0, 0)
        _fit_string(
            c,
            m + 10 * PT_PER_MM + used,
            bar_y + 0.3,
            pw - m - 7 * PT_PER_MM,
            f"at {sx0:.0f}, {sy0:.0f} mm from the table's NW corner; neighbours: "
            + _neighbours(sheet, present, lay.tiling),
            6,
            right=True,
        )
        c.showPage()
    c.save()
    return [s.label for s, _ in sheets]


def write_cut_layers(
    bf: Battlefield,
    opts: LayoutOptions,
    directory: str | os.PathLike[str],
    cut: CutOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Stack:
    """Write every board's PDF and SVG(s) into ``directory`` (all or nothing); returns the stack
    (``stack.board_count``, ``stack.thickness_mm``; each board's ``sheets``).
    ``progress(board, boards)`` is told after each board."""
    cut = cut or CutOptions()
    lay = plan_layout(bf, opts)
    stack = plan_stack(bf, lay, cut)
    directory = Path(directory)
    index: list[dict[str, Any]] = []
    with atomic_dir(directory) as tmp:
        every = [stack.base, *stack.boards]
        for i, b in enumerate(every):
            note = board_note(bf, lay, stack, b)
            stem = "base" if b.index == 0 else f"level_{b.level:02d}"
            ghost = every[i + 1].outline if i + 1 < len(every) else None
            sheets = template_sheets(lay, b.outline)
            b.skipped = lay.tiling.count - len(sheets)
            pdf = None
            if sheets:  # the base board, a rectangle cut to the table's size, has no template
                pdf = f"{stem}.pdf"
                b.sheets = layer_pdf(tmp / pdf, lay, b.outline, sheets, ghost, note)
            svgs = []
            if cut.bed is None:
                (tmp / f"{stem}.svg").write_text(
                    layer_svg(lay, b.outline, ghost or shapely.Polygon(), note), encoding="utf-8"
                )
                svgs.append(f"{stem}.svg")
            else:
                for piece, _ in bed_pieces(lay, cut.bed, b.outline):
                    name = f"{stem}_{piece.label}.svg"
                    text = layer_svg(
                        lay,
                        b.outline,
                        ghost or shapely.Polygon(),
                        f"{note} - bed piece {piece.label}",
                        piece.window,
                    )
                    (tmp / name).write_text(text, encoding="utf-8")
                    svgs.append(name)
            entry = {
                "board": b.index,
                "level": b.level,
                "levels": [b.level, b.top],
                "copies": b.copies,
                "svg": svgs[0] if svgs else None,
                "svgs": svgs,
                "pdf": pdf,
                "sheets": b.sheets,
                "sheets_skipped": b.skipped,
                "thickness_mm": round(stack.board_mm * b.copies, 3),
                "area_m2": round(b.outline.area, 1),
                "ground_from_m": _level_base(bf, b.level),
            }
            if b.index:
                index.append(entry)
            else:
                base_entry = entry
            if progress is not None:
                progress(i + 1, len(every))
        (tmp / "layers.json").write_text(
            json.dumps(
                {
                    "scale": str(lay.scale),
                    "mm_per_m": lay.scale.mm_per_m,
                    "step_m": bf.step,
                    "levels_per_board": stack.levels_per_board,
                    "levels_per_board_why": stack.why,
                    "target_boards": TARGET_BOARDS,
                    "board_mm": stack.board_mm,
                    "boards": stack.board_count,
                    "sheets": stack.sheet_count,
                    "sheets_skipped": sum(b.skipped for b in every),
                    "board_area_m2": round(stack.board_area_m2, 2),
                    "cut_length_m": round(stack.cut_length_m, 1),
                    "total_thickness_mm": round(stack.thickness_mm, 3),
                    "paper": str(lay.paper),
                    "bed": str(cut.bed) if cut.bed else None,
                    "table_mm": [round(v, 2) for v in lay.table_mm],
                    "window": [round(v, 2) for v in lay.window],
                    "crs": bf.crs.to_string(),
                    "registration_marks_mm": [list(p) for p in lay.tiling.registration_marks()],
                    "base": base_entry,
                    "layers": index,
                },
                indent=1,
            )
            + "\n"
        )
        for p in tmp.iterdir():
            os.chmod(p, 0o644)
    return stack


def stack_summary(stack: Stack) -> str:
    """One line for the CLI: boards, template sheets (and those left out), board area, cut
    length, total thickness.

    >>> import shapely
    >>> b = Board(0, 3, 3, shapely.box(0, 0, 1000, 1000), skipped=2)
    >>> up = Board(1, 4, 4, shapely.box(0, 0, 500, 1000), 2, ["A1"], skipped=1)
    >>> stack_summary(Stack(3, 1, 2.0, b, [up]))
    '3 boards (base + 2 above, 1 cut shape), 1 template sheet (3 with no cut line left out; \
and an index page a board), 2 m2 of board, 2 m of cut line, 6 mm thick'
    """
    sheets = stack.sheet_count
    skipped = stack.base.skipped + sum(b.skipped for b in stack.boards)
    above = stack.board_count - 1
    return (
        f"{stack.board_count} boards (base + {above} above, {len(stack.boards)} cut shape"
        f"{'' if len(stack.boards) == 1 else 's'}), {sheets} template sheet"
        f"{'' if sheets == 1 else 's'} ({skipped} with no cut line left out; and an index page "
        "a board), "
        f"{stack.board_area_m2:.3g} m2 of board, {stack.cut_length_m:.3g} m of cut line, "
        f"{stack.thickness_mm:g} mm thick"
    )
