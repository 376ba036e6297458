"""The demo's print stage on its real ground: Flodden, the window ``scenario-builder demo`` prints
(2.94 x 3.04 km), 2mm scale on A3 (88 sheets), 81 cut layers.

Run: ``python benchmarks/bench_print.py``. Prints, median of 3: the smoothed level outlines
and class fills (``maps.smoothing``, traced once per battlefield and window), the layout PDF and
the cut layers (SVG + PDF each), and the smoothing's fidelity on that window (worst distance
from a smoothed edge to the raster's, in cells; worst area difference of a level of 400+ cells).
Target: the whole print under ~8 s (the demo reports it as ``seconds.print``).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import shapely

from maps.colours import PRINT_MOVE
from maps.cutlayers import write_cut_layers
from maps.layout import LayoutOptions, write_layout_pdf
from maps.smoothing import smooth_classes, smooth_outlines
from maps.table import Paper, TableScale
from maps.vectors import _CLASSES, _OUTLINES, level_range, outline_at_or_above
from scenario_builder.build import build_site

WINDOW = (550383.26, 6163436.06, 553325.87, 6166478.75)  # the demo's battle_bbox, EPSG:32630


def main() -> None:
    bf = build_site("flodden").battlefield
    lo, hi = level_range(bf)
    levels = range(lo + 1, hi + 1)
    lv = bf.layer("level")
    runs: dict[str, list[float]] = {"outlines": [], "classes": [], "layout": [], "layers": []}
    tmp = Path(tempfile.mkdtemp())
    x0, y0, x1, y1 = WINDOW
    lon, lat = bf.to_lonlat([x0, x1, x0, x1], [y0, y0, y1, y1])
    bbox = (max(lon[0], lon[2]), max(lat[0], lat[1]), min(lon[1], lon[3]), min(lat[2], lat[3]))
    opts = LayoutOptions(scale=TableScale.from_text("2mm"), paper=Paper.from_text("A3"), bbox=bbox)
    for i in range(3):
        t = time.perf_counter()
        outlines = smooth_outlines(lv, bf.transform, levels, WINDOW)
        runs["outlines"].append(time.perf_counter() - t)
        t = time.perf_counter()
        smooth_classes(bf.layer("move"), bf.transform, sorted(PRINT_MOVE), WINDOW)
        runs["classes"].append(time.perf_counter() - t)
        _OUTLINES.pop(bf, None)  # each run traces afresh, as the demo does
        _CLASSES.pop(bf, None)
        t = time.perf_counter()
        write_layout_pdf(bf, opts, tmp / f"layout{i}.pdf")
        runs["layout"].append(time.perf_counter() - t)
        t = time.perf_counter()
        write_cut_layers(bf, opts, tmp / f"layers{i}")
        runs["layers"].append(time.perf_counter() - t)
        _OUTLINES.pop(bf, None)
        _CLASSES.pop(bf, None)
    for name, times in runs.items():
        print(f"{name:9s} {statistics.median(times):6.2f} s")
    total = statistics.median(runs["layout"]) + statistics.median(runs["layers"])
    print(f"print     {total:6.2f} s (layout + layers, outlines and classes traced inside)")
    worst_d = worst_a = 0.0
    for k, g in outlines.items():
        full = outline_at_or_above(lv, bf.transform, k)
        raw = shapely.clip_by_rect(full, *WINDOW)
        if raw.area >= 400 * bf.res**2:
            worst_a = max(worst_a, abs(g.area - raw.area) / raw.area)
        frame = shapely.box(*WINDOW).boundary.buffer(bf.res * 0.05)
        edge = shapely.segmentize(g.boundary.difference(frame), bf.res / 4)
        if not edge.is_empty:
            pts = shapely.points(shapely.get_coordinates(edge))
            worst_d = max(worst_d, float(shapely.distance(pts, full.boundary).max()))
    print(
        f"fidelity  smoothed edge to raster edge <= {worst_d / bf.res:.2f} cells; "
        f"area of a 400+ cell level within {worst_a * 100:.2f} %"
    )


if __name__ == "__main__":
    main()
