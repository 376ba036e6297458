"""Build time and peak memory of the terrain pipeline, per shipped site.

Each build runs in a fresh subprocess so peak RSS (``resource.getrusage(...).ru_maxrss``) is the
build's own, imports included; time is the median of ``--repeat`` builds inside that process
(the first, which pays for imports and caches, is reported apart). Targets: Gettysburg at native
resolution (~1.2-1.4 M cells) in < 3 s and < 1 GB.

    python benchmarks/bench_build.py [--repeat 3] [SLUG ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

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


def main() -> None:
    from scenario_builder.sites import list_sites

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    slugs = args.slugs or [s.slug for s in list_sites()]
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
