"""Messenger routing vs scikit-image's ``MCP_Geometric`` on the full grid, side by side.

For each battlefield, in ONE process on the same machine: the route graph's build time (fresh,
then from the on-disk cache) and memory (tracemalloc peak of the build), then for the same pairs
of cell centres the time and cost of ``RouteGraph.route`` and of ``MCP_Geometric`` (8-connected,
cost 1 or 3 per cell, ``find_costs`` from one start to one end). Reported as ratios
ours / MCP: time (median and worst over the pairs) and cost (median and worst).

Sites: Gettysburg at its native ~7.5 m (1.2 M cells), Flodden and the Bayreuth pair (SRTM;
Bayreuth with real OSM forest), plus ``gettysburg-slopes``: the same Gettysburg grid with every
cell steeper than 8 degrees counted triple, a scattered real-DEM mask that stresses the graph.

    python benchmarks/bench_routing.py [--pairs 12] [--json] [SITE ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import tracemalloc
from typing import Any

import numpy as np

SITES = ("gettysburg", "flodden", "north_bayreuth_pair", "gettysburg-slopes")


def site_mask(site: str) -> tuple[Any, np.ndarray]:
    from scenario_builder.build import build_site
    from scenario_builder.routing import triple_mask

    slug = site.removesuffix("-slopes")
    bf = build_site(slug).battlefield
    mask = triple_mask(bf.layer("move"), bf.layer("cover"), bf.layer("blocks_sight"))
    if site.endswith("-slopes"):
        mask = mask | (bf.layer("slope") > 8.0)
    return bf, mask


def bench_site(site: str, pairs: int) -> dict[str, Any]:
    from skimage.graph import MCP_Geometric

    from scenario_builder.routing import RouteGraph

    bf, mask = site_mask(site)
    t = time.perf_counter()
    g = RouteGraph.from_mask(mask, bf.transform)
    build_s = time.perf_counter() - t
    tracemalloc.start()
    RouteGraph.from_mask(mask, bf.transform)
    build_peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    with tempfile.TemporaryDirectory() as cache:
        RouteGraph.from_mask(mask, bf.transform, cache_dir=cache)
        t = time.perf_counter()
        RouteGraph.from_mask(mask, bf.transform, cache_dir=cache)
        cached_s = time.perf_counter() - t

    rows, cols = mask.shape
    rng = np.random.default_rng(2024)
    ends = [((2, 2), (rows - 3, cols - 3)), ((rows - 3, 2), (2, cols - 3))]
    while len(ends) < pairs:
        a = (int(rng.integers(rows)), int(rng.integers(cols)))
        b = (int(rng.integers(rows)), int(rng.integers(cols)))
        if np.hypot(a[0] - b[0], a[1] - b[1]) > min(rows, cols) / 3:  # routes worth the name
            ends.append((a, b))
    cost = np.where(mask, 3.0, 1.0)
    res, x0, y0 = bf.res, bf.transform.c, bf.transform.f
    t_ratio, c_ratio, ours_s, mcp_s = [], [], [], []
    for a, b in ends:
        t = time.perf_counter()
        mcp = MCP_Geometric(cost)
        cum, _ = mcp.find_costs([a], [b])
        tm = time.perf_counter() - t
        best = float(cum[b]) * res
        xa, xb = (
            (x0 + (a[1] + 0.5) * res, y0 - (a[0] + 0.5) * res),
            (x0 + (b[1] + 0.5) * res, y0 - (b[0] + 0.5) * res),
        )
        t = time.perf_counter()
        r = g.route(xa, xb)
        tr = time.perf_counter() - t
        t_ratio.append(tr / tm)
        c_ratio.append(r.cost_m / best)
        ours_s.append(tr)
        mcp_s.append(tm)
    return {
        "site": site,
        "cells": int(mask.size),
        "res_m": res,
        "triple_share": round(float(mask.mean()), 4),
        "nodes": g.n_nodes,
        "edges": g.n_edges,
        "build_s": round(build_s, 3),
        "build_cached_s": round(cached_s, 3),
        "build_peak_mb": round(build_peak_mb, 1),
        "pairs": len(ends),
        "route_s_median": round(statistics.median(ours_s), 4),
        "mcp_s_median": round(statistics.median(mcp_s), 4),
        "time_ratio_median": round(statistics.median(t_ratio), 3),
        "time_ratio_max": round(max(t_ratio), 3),
        "cost_ratio_median": round(statistics.median(c_ratio), 4),
        "cost_ratio_max": round(max(c_ratio), 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sites", nargs="*", default=list(SITES))
    ap.add_argument("--pairs", type=int, default=12)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = [bench_site(s, args.pairs) for s in args.sites]
    if args.json:
        print(json.dumps(results, indent=1))
        return
    head = (
        f"{'site':<22}{'cells':>9}{'triple':>8}{'nodes':>8}{'build s':>9}{'cached':>8}"
        f"{'MB':>7}{'route s':>9}{'MCP s':>8}{'t/MCP med':>10}{'max':>7}{'c/MCP med':>10}"
        f"{'max':>8}"
    )
    print(head)
    for r in results:
        print(
            f"{r['site']:<22}{r['cells']:>9}{r['triple_share']:>8.3f}{r['nodes']:>8}"
            f"{r['build_s']:>9.2f}{r['build_cached_s']:>8.2f}{r['build_peak_mb']:>7.0f}"
            f"{r['route_s_median']:>9.3f}{r['mcp_s_median']:>8.3f}"
            f"{r['time_ratio_median']:>10.2f}{r['time_ratio_max']:>7.2f}"
            f"{r['cost_ratio_median']:>10.4f}{r['cost_ratio_max']:>8.4f}"
        )


if __name__ == "__main__":
    main()
