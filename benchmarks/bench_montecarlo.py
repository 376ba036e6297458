"""Monte Carlo scaling: Dask replays per second against the serial in-process rate.

    python benchmarks/bench_montecarlo.py [SCENARIO] [RUNS] [WORKERS] [SERIAL_RUNS]

defaults: flodden_1513, 100 runs, 2 workers, 20 serial runs. In one process: the serial rate
(``replay`` in this process, seeds 1..SERIAL_RUNS, after one warm-up replay) and then the same
``run_replays`` the CLI's ``montecarlo`` uses (chunks of seeds per task, workers preloaded) on a
``LocalCluster`` of WORKERS single-threaded processes, seeds 1..RUNS. Parallel efficiency =
(Dask runs/s) / (WORKERS x serial runs/s). Cluster start-up is printed apart (``run_replays``'
wall starts at the first task); the total wall of the Dask call is printed too. The machine's
load average is printed: on a shared machine the figures are upper bounds on the cost.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from engine.scenario import load_scenario
from engine.yamlio import recording_reads
from scenario_builder.battle import build_battlefield
from scenario_builder.mc_bundle import pack
from scenario_builder.montecarlo import replay, run_replays


def main() -> None:
    scenario = sys.argv[1] if len(sys.argv) > 1 else "flodden_1513"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    n_serial = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    with recording_reads() as reads:
        sc = load_scenario(scenario)
    assert sc.path is not None
    with tempfile.TemporaryDirectory() as d:
        bf_dir = Path(d) / "battlefield"
        build_battlefield(sc).save(bf_dir)
        replay(str(sc.path), str(bf_dir), 0)  # warm the in-process caches (imports, graph)
        t, c = time.perf_counter(), time.process_time()
        serial = [replay(str(sc.path), str(bf_dir), s) for s in range(1, n_serial + 1)]
        serial_s, serial_cpu = time.perf_counter() - t, time.process_time() - c
        rate1 = n_serial / serial_s
        print(f"{scenario}: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(
            f"  serial, in process : {rate1:6.2f} runs/s ({n_serial} runs, {serial_s:.1f} s "
            f"wall, {serial_cpu:.1f} s CPU)"
        )
        t0 = time.perf_counter()
        bundle = pack(sc.path, reads, (), bf_dir)  # what the workers are sent, as the CLI's
        results, n, wall = run_replays(bundle, range(1, runs + 1), workers=workers)
        total = time.perf_counter() - t0
        same = [r["winner"] for r in results[:n_serial]] == [r["winner"] for r in serial]
        assert same, "a Dask replay differs from the same seed in process"
        rate = runs / wall
        print(
            f"  Dask, {n} workers    : {rate:6.2f} runs/s ({runs} runs in {wall:.1f} s wall; "
            f"{total:.1f} s with cluster start/stop)"
        )
        print(
            f"  parallel efficiency: {rate / (n * rate1):.0%} (vs {n} x serial in-process); "
            f"{runs / total / (n * rate1):.0%} counting cluster start/stop"
        )
        # the same seeds' replay times inside the workers vs in process: above 1, the workers
        # were slowed by each other or by other work on the machine (not by Dask)
        inside = sum(r["seconds"] for r in results[:n_serial])
        alone = sum(r["seconds"] for r in serial)
        busy = sum(r["seconds"] for r in results) / (n * wall)
        print(
            f"  replay time in workers / in process (seeds 1-{n_serial}): {inside / alone:.2f}; "
            f"workers busy in replays {busy:.0%} of the wall"
        )
        print(f"  load average after : {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
