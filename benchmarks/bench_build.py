"""Build time and peak memory of the terrain pipeline, per shipped site.

Each build runs in a fresh subprocess so peak RSS (``resource.getrusage(...).ru_maxrss``) is the
build's own, imports included; time is the median of ``--repeat`` builds inside that process
(the first, which pays for imports and caches, is reported apart). Targets: Gettysburg at native
resolution (~1.2-1.4 M cells) in < 3 s and < 1 GB.

``--cli N``: the whole command against GDAL's own tools on the same DEM, interleaved, N rounds.
Each round runs, in fresh processes, ``scenario-builder build SLUG --out ...`` (start-up,
imports, build, writing the three files) and the chain ``gdalwarp`` (to the build's UTM grid and
cell, bilinear) + ``gdaldem hillshade`` + ``gdaldem slope`` + ``gdal_contour -i STEP``; it
reports the least and median wall of each, the ratio of the leasts (target: <= 2), the import
time of the command's pipeline (least of the rounds) and the load average before and after.

    python benchmarks/bench_build.py [--repeat 3] [SLUG ...]
    python benchmarks/bench_build.py --cli 5 gettysburg
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import json, resource, statistics, sys, time
t0 = time.perf_counter()
from scenario_builder.build import build_site
t_import = time.perf_counter() - t0
slug, repeat = sys.argv[1], int(sys.argv[2])
times = []
for _ in range(repeat):
    t = time.perf_counter()
    bf, regions, contours = build_site(slug)
    times.append(time.perf_counter() - t)
rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"slug": slug, "cells": bf.shape[0] * bf.shape[1], "res": bf.res,
                  "levels": bf.n_levels, "regions": len(regions), "contours": len(contours),
                  "import_s": t_import, "first_s": times[0],
                  "median_s": statistics.median(times[1:] or times), "peak_rss_mb": rss_mb}))
"""


def measure(slug: str, repeat: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, slug, str(repeat)], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


IMPORT_CHILD = r"""
import time
t = time.perf_counter()
import scenario_builder.build, scenario_builder.cli.build
print(time.perf_counter() - t)
"""


def gdal_chain(dem: Path, out: Path, epsg: int, res: float, step: float) -> list[list[str]]:
    """The GDAL tools' share of a build: warp to the grid, hillshade, slope, contours."""
    warped = str(out / "warped.tif")
    grid = ["-t_srs", f"EPSG:{epsg}", "-tr", str(res), str(res), "-r", "bilinear"]
    return [
        ["gdalwarp", "-q", "-overwrite", *grid, str(dem), warped],
        ["gdaldem", "hillshade", "-q", warped, str(out / "hillshade.tif")],
        ["gdaldem", "slope", "-q", warped, str(out / "slope.tif")],
        ["gdal_contour", "-q", "-i", f"{step:g}", "-a", "elev", warped, str(out / "c.gpkg")],
    ]


def _wall(cmds: list[list[str]], env: dict[str, str] | None = None) -> float:
    t = time.perf_counter()
    for cmd in cmds:
        subprocess.run(cmd, check=True, capture_output=True, env=env)
    return time.perf_counter() - t


def bench_cli(slug: str, rounds: int) -> dict:
    """``scenario-builder build SLUG`` against the GDAL chain, alternated (see the docstring)."""
    from scenario_builder.build import check_size
    from scenario_builder.sites import get_site

    site = get_site(slug)
    grid = check_size(site.dem, resolution=None)
    step = float(site.level_options().get("step_m", 2.0))
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    load_before = os.getloadavg()
    ours, gdal, imports = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        build = [sys.executable, "-m", "scenario_builder", "build", slug]
        build += ["--out", str(Path(tmp) / "bf"), "--force"]
        chain = gdal_chain(site.dem, Path(tmp), grid.crs.to_epsg(), grid.res, step)
        for k in range(rounds):
            # alternate which goes first so a host slowing down mid-round hurts both alike
            pair = [("ours", [build]), ("gdal", chain)]
            for name, cmds in pair if k % 2 == 0 else pair[::-1]:
                (ours if name == "ours" else gdal).append(_wall(cmds, env))
            out = subprocess.run(
                [sys.executable, "-c", IMPORT_CHILD], check=True, capture_output=True, env=env
            )
            imports.append(float(out.stdout))
    return {
        "slug": slug,
        "cells": grid.width * grid.height,
        "rounds": rounds,
        "build_wall_least_s": round(min(ours), 3),
        "build_wall_median_s": round(statistics.median(ours), 3),
        "gdal_wall_least_s": round(min(gdal), 3),
        "gdal_wall_median_s": round(statistics.median(gdal), 3),
        "ratio_least": round(min(ours) / min(gdal), 2),
        "import_least_s": round(min(imports), 3),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    from scenario_builder.sites import list_sites

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cli", type=int, metavar="N", help="CLI vs GDAL chain, N rounds")
    args = parser.parse_args()
    slugs = args.slugs or [s.slug for s in list_sites()]
    if args.cli:
        for slug in args.slugs or ["gettysburg"]:
            r = bench_cli(slug, args.cli)
            print(json.dumps(r))
            print(
                f"{slug}: build {r['build_wall_least_s']:.2f} s (median "
                f"{r['build_wall_median_s']:.2f}), GDAL chain {r['gdal_wall_least_s']:.2f} s "
                f"(median {r['gdal_wall_median_s']:.2f}): {r['ratio_least']:.2f}x, least of "
                f"{r['rounds']}; imports {r['import_least_s']:.2f} s; load "
                f"{r['load_before'][0]:.1f} -> {r['load_after'][0]:.1f}"
            )
        return
    print(
        f"{'site':22} {'cells':>9} {'res m':>6} {'levels':>6} {'first s':>8} {'median s':>9} "
        f"{'peak MB':>8}"
    )
    for slug in slugs:
        r = measure(slug, args.repeat)
        print(
            f"{slug:22} {r['cells']:>9,} {r['res']:>6g} {r['levels']:>6} {r['first_s']:>8.2f} "
            f"{r['median_s']:>9.2f} {r['peak_rss_mb']:>8.0f}"
        )


if __name__ == "__main__":
    main()
