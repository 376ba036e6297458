"""The terrain pipeline's defaults and limits, apart from the pipeline itself.

``scenario-builder build --help`` shows these, and importing the pipeline
(:mod:`scenario_builder.build`) brings in geopandas, pandas, scipy and rasterio: kept here, the
help and the command's module load in a tenth of the time (``tests/test_cli_imports.py``).
:mod:`.build`, :mod:`.classify` and :mod:`.levels` import them from here under the same names.

>>> STAGES[0], STEP_M, CLIFF_DEG
('dem', 2.0, 35.0)
"""

from __future__ import annotations

#: the build's stages, in order, as reported to its ``progress`` callback
STAGES: tuple[str, ...] = (
    "dem",
    "landcover",
    "overlays",
    "classify",
    "levels",
    "contours",
    "regions",
)

# Peak memory of a build per grid cell, measured with /usr/bin/time (max RSS less the ~0.2 GB the
# imports take): flodden at 10, 5 and 3 m and gettysburg at 7.5 m came to 81-95 bytes a cell.
BYTES_PER_CELL = 90
# The largest shipped site at its default resolution is gettysburg, 1.22 M cells (7.5 m); the
# others are 0.11-0.16 M (25 m). 16 M is 13 times gettysburg: about 1.4 GB and 20 s on one
# core, where flodden at 0.5 m (390 M cells, ~35 GB) would exhaust the machine unannounced.
MAX_CELLS = 16_000_000

CLIFF_DEG = 35.0  # 7.2 "cliffs ... impractical": slopes a formation cannot climb in order

STEP_M = 2.0  # 6.2: near man-height
SMOOTH_M = 20.0  # gaussian sigma in metres: irons out DEM noise well below a base's frontage
# 0.75 ha (about 85 x 85 m, a formation's footprint; 12 cells at 25 m, enough for the print's
# half-cell smoothing to keep every piece): smaller peaks and hollows are removed. At 2 ha hill
# tops lost 8-13 levels and Gettysburg kept only 99.6 % of cells within a level of the ground;
# at 0.75 ha Flodden keeps 99.97 %, Bayreuth 99.99 %, Gettysburg 99.96 %.
MIN_AREA_M2 = 7_500.0
