"""Monte Carlo scaling: replays per second with 1 and 2 Dask workers, parallel efficiency.

    python benchmarks/bench_montecarlo.py [SCENARIO] [RUNS]

Each configuration runs the same seeds; the in-process serial run (no Dask) is the baseline for
Dask's own overhead. Parallel efficiency = (runs/s with 2 workers) / (2 x runs/s with 1 worker).
Cluster start-up is excluded (reported separately): a Monte Carlo of hundreds of replays pays it
once.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from engine.scenario import load_scenario
from scenario_builder.cli.run import build_battlefield
from scenario_builder.montecarlo import replay, run_replays


def main() -> None:
    scenario = sys.argv[1] if len(sys.argv) > 1 else "teutoburg_ad9"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    sc = load_scenario(scenario)
    with tempfile.TemporaryDirectory() as d:
        bf_dir = Path(d) / "battlefield"
        build_battlefield(sc).save(bf_dir)
        seeds = range(1, runs + 1)
        replay(str(sc.path), str(bf_dir), 0)  # warm the in-process caches (imports, graph)
        t = time.perf_counter()
        serial = [replay(str(sc.path), str(bf_dir), s) for s in seeds]
        serial_s = time.perf_counter() - t
        print(f"{scenario}: {runs} replays")
        print(f"  serial, in process   : {runs / serial_s:6.2f} runs/s ({serial_s:.1f} s)")
        rates = {}
        for workers in (1, 2):
            t0 = time.perf_counter()
            results, _, wall = run_replays(sc.path, bf_dir, seeds, workers=workers)
            total = time.perf_counter() - t0
            same = [r["winner"] for r in results] == [r["winner"] for r in serial]
            assert same, "a Dask replay differs from the same seed in process"
            rates[workers] = runs / wall
            print(
                f"  Dask, {workers} worker(s)    : {rates[workers]:6.2f} runs/s ({wall:.1f} s; "
                f"{total - wall:.1f} s cluster start/stop)"
            )
        eff = rates[2] / (2 * rates[1])
        print(f"  parallel efficiency  : {eff:.0%} (2 workers vs 1)")


if __name__ == "__main__":
    main()
