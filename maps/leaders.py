"""Names set away from what they name, joined to it by a thin leader line.

On a small index page the sheet labels and a crowded line of battle leave no room for a
formation's name beside its bases; the nearest free spot within reach (searched on a fine grid,
all candidates against all placed boxes at once) still names it unambiguously when a line runs
from the name to the bases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.ops import nearest_points

if TYPE_CHECKING:
    from reportlab.pdfgen import canvas as rl_canvas

    from maps.layout import Labeller

#: grid step of the search for a free spot (points)
STEP_PT = 2.5


def free_spot(
    labels: Labeller, x: float, y: float, w: float, size: float, reach: float
) -> tuple[float, float] | None:
    """The free text anchor nearest (x, y) within ``reach`` points for a label ``w`` wide at
    ``size`` (the box ``Labeller.place`` draws), or None."""
    n = int(reach // STEP_PT)
    d = np.arange(-n, n + 1) * STEP_PT
    dx, dy = (a.ravel() for a in np.meshgrid(d, d))
    keep = np.hypot(dx, dy) <= reach
    dx, dy = dx[keep], dy[keep]
    order = np.argsort(np.hypot(dx, dy * 1.5), kind="stable")  # rather beside than above
    cx, cy = x + dx[order], y + dy[order]
    pad, g = 1.0, labels.GAP
    x0, x1 = cx - w / 2 - pad, cx + w / 2 + pad
    y0, y1 = cy - size * 0.35 - pad, cy + size * 0.75 + pad
    ax0, ay0, ax1, ay1 = labels.area
    ok = (x0 >= ax0) & (y0 >= ay0) & (x1 <= ax1) & (y1 <= ay1)
    if labels.boxes:
        b = np.asarray(labels.boxes, dtype=float)
        hit = (
            (x1[:, None] + g > b[None, :, 0])
            & (x0[:, None] - g < b[None, :, 2])
            & (y1[:, None] + g > b[None, :, 1])
            & (y0[:, None] - g < b[None, :, 3])
        )
        ok &= ~hit.any(axis=1)
    i = np.flatnonzero(ok)
    return None if i.size == 0 else (float(cx[i[0]]), float(cy[i[0]]))


def place_with_leader(
    c: rl_canvas.Canvas,
    labels: Labeller,
    target: Any,
    text: str,
    *,
    size: float,
    colour: tuple[float, float, float],
    reach: float,
) -> bool:
    """Put ``text`` at the free spot nearest ``target`` (a page-point geometry: the bases) and
    draw a leader from the label's edge to the nearest base; False if none is within reach."""
    p = target.centroid
    w = c.stringWidth(text, "Helvetica-Bold", size)
    spot = free_spot(labels, p.x, p.y, w, size, reach)
    if spot is None:
        return False
    x, y = spot
    pad = 1.0
    box = shapely.box(
        x - w / 2 - pad, y - size * 0.35 - pad, x + w / 2 + pad, y + size * 0.75 + pad
    )
    a, b = nearest_points(box, target)
    c.saveState()
    c.setStrokeColorRGB(*colour)
    c.setLineWidth(0.5)
    c.line(a.x, a.y, b.x, b.y)
    c.restoreState()
    placed = labels.place(c, [spot], text, size=size, colour=colour, bold=True)
    assert placed  # the spot was checked free against the same boxes
    return True
