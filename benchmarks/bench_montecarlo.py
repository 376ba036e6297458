"""Monte Carlo scaling: Dask replays per second against the serial in-process rate.

    python benchmarks/bench_montecarlo.py [SCENARIO] [RUNS] [WORKERS] [SERIAL_RUNS]

defaults: flodden_1513, 100 runs, 2 workers, 20 serial runs. In one process: the serial rate
(``replay`` in this process, seeds 1..SERIAL_RUNS, after one warm-up replay) and then the same
``run_replays`` the CLI's ``montecarlo`` uses (chunks of seeds per task, workers preloaded) on a
``LocalCluster`` of WORKERS single-threaded processes, seeds 1..RUNS. Parallel efficiency =
(Dask runs/s) / (WORKERS x serial runs/s). Cluster start-up is printed apart (``run_replays``'
wall starts at the first task); the total wall of the Dask call is printed too. The machine's
load average is printed: on a shared machine the figures are upper bounds on the cost.

    python benchmarks/bench_montecarlo.py --lean-vs-full [SCENARIO] [ROUNDS] [SEEDS]

defaults: flodden_1513, 3 rounds, 10 seeds. The lean replay (``replay``'s ``fight(...,
snapshots=False)``: events and result, no snapshot nor fog-of-war record) against the full one
a ``run`` makes (every bound's snapshot and sight record, then ``battle_log.json``'s bytes),
in process, seed by seed with the two alternated (lean first on even rounds, full first on odd):
replays per CPU second of each, least of the rounds, and their ratio. Every seed's result must
be the same both ways.
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


def lean_vs_full(scenario: str, rounds: int, n_seeds: int) -> None:
    """Lean and full replays of seeds 1..n_seeds, alternated seed by seed (module docstring)."""
    from engine.log import dumps
    from scenario_builder.battle import LoadedBattlefield, fight
    from scenario_builder.montecarlo import _load

    sc0 = load_scenario(scenario)
    assert sc0.path is not None
    with tempfile.TemporaryDirectory() as d:
        bf_dir = Path(d) / "battlefield"
        build_battlefield(sc0).save(bf_dir)
        sc, bf = _load(str(sc0.path), str(bf_dir))
        ground = LoadedBattlefield(bf)

        def one(seed: int, lean: bool) -> tuple[float, str]:
            c = time.process_time()
            log, _ = fight(sc, ground, seed, snapshots=not lean)
            if not lean:
                log.to_bytes()  # the file a run writes
            return time.process_time() - c, dumps(log.result)

        one(0, True), one(0, False)  # warm the caches (imports, the routing graph)
        print(f"{scenario}: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        best = {True: float("inf"), False: float("inf")}
        for r in range(rounds):
            spent = {True: 0.0, False: 0.0}
            for seed in range(1, n_seeds + 1):
                results = {}
                for lean in (True, False) if r % 2 == 0 else (False, True):
                    cpu, results[lean] = one(seed, lean)
                    spent[lean] += cpu
                assert results[True] == results[False], f"seed {seed}: lean and full differ"
            for lean in (True, False):
                best[lean] = min(best[lean], spent[lean])
            print(
                f"  round {r + 1}: lean {n_seeds / spent[True]:6.2f} replays/CPU s, "
                f"full {n_seeds / spent[False]:6.2f} ({n_seeds} seeds each)"
            )
        lean_rate, full_rate = n_seeds / best[True], n_seeds / best[False]
        print(
            f"  best of {rounds} (least CPU): lean {lean_rate:.2f}, full {full_rate:.2f} "
            f"replays/CPU s; lean / full {lean_rate / full_rate:.3f}"
        )
        print(f"  load average after : {os.getloadavg()[0]:.1f}")


def main() -> None:
    if sys.argv[1:2] == ["--lean-vs-full"]:
        args = sys.argv[2:]
        lean_vs_full(
            args[0] if args else "flodden_1513",
            int(args[1]) if len(args) > 1 else 3,
            int(args[2]) if len(args) > 2 else 10,
        )
        return
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
