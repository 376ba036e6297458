"""Monte Carlo replays of a battle on Dask: outcome odds with confidence intervals.

Each replay is the same scenario with a different seed (``seed0 + i``), so any single replay can
be re-run alone with ``scenario-builder run SCENARIO --seed N``. The battlefield is built once on
the head; it and the scenario's files travel to the workers as bytes
(:mod:`scenario_builder.mc_bundle`), so a worker needs the package installed and nothing of the
head's file system; replays run on a ``dask.distributed`` cluster: a ``LocalCluster`` of
single-threaded worker processes by default (the engine is pure Python and holds the GIL), or
any scheduler given by address.

Scaling: each task carries a run of seeds (:func:`replay_many`), so the scheduler's
per-task cost is paid a few times per worker rather than once per replay; a worker plugin
(``scenario_builder.mc_preload.Preload``) writes the bundle into the worker's scratch folder,
loads the scenario and battlefield and builds the routing graph once per worker process when it
joins, before any task; results stream back
task by task (``as_completed``) for the progress bar. A local cluster's workers are forked from a
fork server (:func:`start_worker_server`) that the CLI starts before anything else, so their
imports are done on the other core while the main process builds the ground.

>>> lo, hi = wilson_interval(7, 10)
>>> round(lo, 3), round(hi, 3)
(0.397, 0.892)
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from scenario_builder.mc_bundle import Bundle

#: seconds to wait for a ``--scheduler`` address to answer
CONNECT_TIMEOUT_S = 10
#: two-sided 95 % normal quantile
Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (better than the normal one near 0 or 1)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


#: ``--plan SIDE=FILE`` pairs: plan files in place of the scenario's plans for those sides
Plans = tuple[tuple[str, str], ...]


@functools.lru_cache(maxsize=4)
def _load(scenario_path: str, battlefield_dir: str, plans: Plans = ()) -> tuple[Any, Any]:
    """Per worker process: load the scenario and battlefield once, reuse for every replay."""
    from engine.scenario import load_scenario
    from scenario_builder.battlefield import Battlefield

    scenario = load_scenario(scenario_path)
    scenario.use_plan_files(plans)
    return scenario, Battlefield.load(battlefield_dir)


def warm(
    scenario_path: str, battlefield_dir: str, ruleset: str | None = None, plans: Plans = ()
) -> None:
    """Load what every replay of this process shares (scenario, battlefield, the ruleset's view
    of the ground, the messengers' routing graph, imports): one bound of a battle, thrown away.
    The caches are per process (``_load``; the ground view and the graph are cached by
    battlefield), so the replays that follow start at once."""
    from engine.rulesets import get_ruleset
    from scenario_builder.battle import LoadedBattlefield, fight

    scenario, bf = _load(scenario_path, battlefield_dir, plans)
    fight(scenario, LoadedBattlefield(bf), 0, ruleset=ruleset, max_bounds=1, snapshots=False)
    # bound 1 is the briefing (9.1: orders arrive at once), so no messenger has built the
    # routing graph yet: build it here, on the ground view and delivery a replay will use
    rs = get_ruleset(ruleset or scenario.ruleset)
    prepare = getattr(rs.delivery(rs.ground(bf), scenario), "prepare", None)
    if callable(prepare):  # a delivery with something to build (2mm Earth's messengers)
        prepare()


def replay_many(
    scenario_path: str,
    battlefield_dir: str,
    seeds: Sequence[int],
    ruleset: str | None = None,
    plans: Plans = (),
) -> list[dict[str, Any]]:
    """:func:`replay` of each seed in turn: one Dask task for a run of seeds."""
    return [replay(scenario_path, battlefield_dir, s, ruleset, plans) for s in seeds]


#: the bundles this worker process has written and loaded: key -> the scenario file, battlefield
#: folder and ``--plan`` files of its own copy (:func:`prepare`)
_prepared: dict[str, tuple[str, str, Plans]] = {}
#: how many runs' plugins hold each bundle here: two heads may send one cluster the same battle
#: at once, and the first to end must not take it from the other
_holders: dict[str, int] = {}


def prepare(bundle: Bundle, under: Path, ruleset: str | None = None) -> None:
    """Per worker process: write ``bundle`` under ``under`` (the worker's scratch folder) and
    :func:`warm` from that copy; the files it read from the worker's installed data must be
    the head's (:meth:`Bundle.check_reads`)."""
    from engine.yamlio import recording_reads
    from scenario_builder.mc_bundle import materialise

    root = materialise(bundle, under)
    scenario_path, battlefield_dir, plans = bundle.local(root)
    with recording_reads() as reads:
        warm(scenario_path, battlefield_dir, ruleset, plans)
    bundle.check_reads(root, reads)
    _prepared[bundle.key] = (scenario_path, battlefield_dir, plans)
    _holders[bundle.key] = _holders.get(bundle.key, 0) + 1


def forget(bundle: Bundle, under: Path) -> None:
    """Per worker process: drop what :func:`prepare` loaded and wrote, once no run holds it."""
    import shutil

    held = _holders.pop(bundle.key, 0) - 1
    if held > 0:
        _holders[bundle.key] = held
        return
    if _prepared.pop(bundle.key, None) is not None:
        _load.cache_clear()
    shutil.rmtree(bundle.folder(under), ignore_errors=True)


def replay_prepared(
    key: str, seeds: Sequence[int], ruleset: str | None = None
) -> list[dict[str, Any]]:
    """:func:`replay_many` on this worker's copy of the bundle ``key`` (:func:`prepare`): the
    task names the battle by its content hash, never by a path of the head's."""
    from scenario_builder.errors import ScenarioError

    if key not in _prepared:
        raise ScenarioError("dask worker", f"no Monte Carlo bundle {key[:16]} (its plugin is gone)")
    scenario_path, battlefield_dir, plans = _prepared[key]
    return replay_many(scenario_path, battlefield_dir, seeds, ruleset, plans)


def chunks(
    seeds: Sequence[int], workers: int, per_worker: int = 4, largest: int = 8
) -> list[list[int]]:
    """Seeds cut into tasks for ``workers`` by guided self-scheduling: each task takes the
    seeds left over ``workers * per_worker``, at most ``largest`` and at least one. Early tasks
    are large, so the scheduler's cost per task vanishes; they shrink towards the end, so when
    the last task ends the other workers have at most a replay or two left (Dask hands out a
    map's tasks in order), not a full task (1,000 Flodden replays in tasks of 8: ~1.6 s of one
    core idle at the end). The cap bounds the tail of a slow first task too.

    >>> [len(c) for c in chunks(range(30), 2)]
    [4, 4, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1]
    >>> cs = chunks(range(1000), 2)
    >>> len(cs), max(len(c) for c in cs), [len(c) for c in cs[-9:]]
    (138, 8, [2, 1, 1, 1, 1, 1, 1, 1, 1])
    """
    seeds = list(seeds)
    share = max(1, workers) * per_worker
    out: list[list[int]] = []
    k = 0
    while k < len(seeds):
        size = max(1, min(largest, math.ceil((len(seeds) - k) / share)))
        out.append(seeds[k : k + size])
        k += size
    return out


def replay(
    scenario_path: str,
    battlefield_dir: str,
    seed: int,
    ruleset: str | None = None,
    plans: Plans = (),
) -> dict[str, Any]:
    """Run one replay, exactly as ``scenario-builder run SCENARIO --seed SEED [--ruleset R]``
    would."""
    from scenario_builder.battle import LoadedBattlefield, fight
    from scenario_builder.losses import counted

    scenario, bf = _load(scenario_path, battlefield_dir, plans)
    start = time.perf_counter()
    # no per-bound snapshots: a replay keeps only the result, which is the same without them
    # (tests/test_montecarlo_replay.py), and they were ~15 % of a Flodden replay
    log, _ = fight(scenario, LoadedBattlefield(bf), seed, ruleset=ruleset, snapshots=False)
    result = dict(log.result or {})
    result["seed"] = seed
    result["seconds"] = time.perf_counter() - start
    sides = [s["id"] for s in log.header["sides"]]
    result["strength"] = {
        side: sum(1 for b in log.header["bases"] if b["side"] == side) for side in sides
    }
    # men per base, so losses can be set against the sources' bands in men
    from engine.rulesets import get_ruleset

    figures = get_ruleset(log.header["ruleset"]).counts_figures  # its figures' men
    result["men_per_base"] = {side: scenario.representation(side, figures) for side in sides}
    # the lost bases as men and pieces by kind (scenario_builder.losses)
    result.update(counted(result, scenario, figures))
    return result


def comparable_bases(run: dict[str, Any], side: str, kinds: Sequence[str]) -> int:
    """A replay's lost bases of ``side`` in ``kinds`` (engine.casualties), kind by kind:
    killed with killed, captured with captured (docs/rules-interpretations.md, "Killed,
    wounded, captured and dispersed")."""
    cas = (run.get("casualties") or {}).get(side)
    if cas is None:  # a result from before the split: dead bases are all it has
        return int(run["losses"].get(side, 0)) if "killed" in kinds else 0
    return int(sum(cas.get(k, 0) for k in kinds))


def _inside(arr: np.ndarray, band: Sequence[float]) -> float:
    lo, hi = band
    return round(float(((arr >= lo) & (arr <= hi)).mean()), 4) if arr.size else 0.0


def _versus_history(
    runs: Sequence[dict[str, Any]], sides: Sequence[str], historical: dict[str, Any]
) -> dict[str, Any]:
    """Per side the simulated losses in men against the sources' band, kind by kind, and its
    guns in pieces against the guns the sources count lost; the loser's to the winner's loss
    ratio in men against the band the sources allow (low / high and high / low)."""
    from engine.scenario import SideLosses
    from scenario_builder.losses import compared_kinds, lost_in, men_by_kind, pieces_lost

    bands: dict[str, SideLosses] = {
        side: SideLosses.model_validate(v) for side, v in (historical.get("losses") or {}).items()
    }
    per_side: dict[str, Any] = {}
    guns: dict[str, Any] = {}
    men: dict[str, np.ndarray] = {}
    for side in sides:
        hist = bands.get(side)
        if hist is None:
            per_side[side] = {"band": None, "note": "the sources give no figure"}
            continue
        if hist.guns is not None:
            pieces = [pieces_lost(r, side) for r in runs]
            if any(v is None for v in pieces):
                guns[side] = {"band": list(hist.guns), "note": "no pieces_per_base stated"}
            else:
                arr = np.array(pieces, dtype=float)
                guns[side] = {
                    "band": list(hist.guns),
                    "simulated_pieces": _describe(arr),
                    "share_in_band": _inside(arr, hist.guns),
                }
        if not hist.given():
            continue  # guns only
        kinds = compared_kinds(hist)
        by_kind = [men_by_kind(r, side) for r in runs]
        if any(v is None for v in by_kind):
            per_side[side] = {"band": list(hist.band()), "note": "no men_per_base stated"}
            continue
        rows = [v for v in by_kind if v is not None]
        arr = np.array([lost_in(v, kinds) for v in rows], dtype=float)
        men[side] = arr
        per_side[side] = {
            "categories": list(kinds),
            "band": list(hist.band()),
            "simulated_men": _describe(arr),
            "share_in_band": _inside(arr, hist.band()),
            # each kind the sources give apart, against the replays' same kind
            "by_kind": {
                kind: {
                    "band": list(band),
                    "simulated_men": _describe(k_arr := np.array([v.get(kind, 0.0) for v in rows])),
                    "share_in_band": _inside(k_arr, band),
                }
                for kind, band in hist.bands().items()
            },
        }
    out: dict[str, Any] = {"losses_in_men": per_side, "guns_in_pieces": guns, "loss_ratio": None}
    winner = historical.get("winner")
    losers = [s for s in sides if s != winner]
    if winner in men and len(losers) == 1 and losers[0] in men:
        loser = losers[0]
        wl, wh = bands[winner].band()
        ll, lh = bands[loser].band()
        band = (ll / wh if wh else math.inf, lh / wl if wl else math.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(
                men[winner] > 0,
                men[loser] / np.maximum(men[winner], 1e-9),
                np.where(men[loser] > 0, math.inf, math.nan),
            )
        finite = ratio[~np.isnan(ratio)]
        inside = (finite >= band[0]) & (finite <= band[1])
        out["loss_ratio"] = {
            "of": f"{loser}:{winner}",
            "band": [round(band[0], 3), round(band[1], 3) if math.isfinite(band[1]) else None],
            "median": float(np.median(finite)) if finite.size else None,
            "share_in_band": round(float(inside.sum()) / len(runs), 4) if runs else 0.0,
        }
    return out


def losses_by_kind(runs: Sequence[dict[str, Any]], sides: Sequence[str]) -> dict[str, Any]:
    """Per side, each kind's distribution over the replays: bases, men and pieces (a unit
    left out where a lost base of it has no stated representation)."""
    from engine.casualties import LOSS_KINDS

    out: dict[str, Any] = {}
    for side in sides:
        row: dict[str, Any] = {}
        cas = [(r.get("casualties") or {}).get(side) or {} for r in runs]
        row["bases"] = {
            k.value: _describe(np.array([c.get(k.value, 0) for c in cas], dtype=float))
            for k in LOSS_KINDS
        }
        for unit, key in (("men", "lost_men"), ("pieces", "lost_pieces")):
            vals = [(r.get(key) or {}).get(side) for r in runs]
            if runs and all(v is not None for v in vals):
                row[unit] = {
                    k.value: _describe(np.array([v[k.value] for v in vals if v], dtype=float))
                    for k in LOSS_KINDS
                }
            else:
                row[unit] = None
        out[side] = row
    return out


@dataclass
class MonteCarloResult:
    """Replays' results and their summary."""

    scenario: str
    runs: list[dict[str, Any]]
    sides: list[str]
    historical: dict[str, Any] | None
    workers: int
    wall_seconds: float
    summary: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.summary = summarize(self.runs, self.sides, self.historical)
        self.summary.update(
            scenario=self.scenario,
            workers=self.workers,
            wall_seconds=round(self.wall_seconds, 3),
            runs_per_second=round(len(self.runs) / self.wall_seconds, 3)
            if self.wall_seconds > 0
            else None,
        )


def summarize(
    runs: Sequence[dict[str, Any]], sides: Sequence[str], historical: dict[str, Any] | None
) -> dict[str, Any]:
    """Win odds (Wilson 95 % intervals), loss distributions, bounds to a decision, vs history."""
    n = len(runs)
    winners = [r.get("winner") for r in runs]
    odds: dict[str, Any] = {}
    # a replay in which formations stalled (engine.jams: stuck by each other for 3 bounds) is
    # an engine failure, not a draw: counted apart, whatever its result
    stalled = [bool(r.get("stall")) for r in runs]
    for side in [*sides, None, "stalled"]:
        if side == "stalled":
            k = sum(stalled)
        elif side is None:
            k = sum(1 for w, st in zip(winners, stalled, strict=True) if w is None and not st)
        else:
            k = sum(1 for w in winners if w == side)
        lo, hi = wilson_interval(k, n)
        odds["draw" if side is None else side] = {
            "wins": k,
            "p": k / n if n else 0.0,
            "ci95": [round(lo, 4), round(hi, 4)],
        }
    losses: dict[str, Any] = {}
    for side in sides:
        vals = np.array([r["losses"].get(side, 0) for r in runs], dtype=float)
        strength = np.array([r.get("strength", {}).get(side, 0) for r in runs], dtype=float)
        frac = np.divide(vals, strength, out=np.zeros_like(vals), where=strength > 0)
        losses[side] = _describe(vals) | {"mean_fraction": round(float(frac.mean()), 4)}
    bounds = np.array([r["bounds"] for r in runs], dtype=float)
    decided = [r for r in runs if r.get("winner")]
    out: dict[str, Any] = {
        "runs": n,
        "seeds": [min(r["seed"] for r in runs), max(r["seed"] for r in runs)] if runs else [],
        "win_odds": odds,
        "losses": losses,
        "losses_by_kind": losses_by_kind(runs, sides),
        "bounds": _describe(bounds),
        "decided_fraction": len(decided) / n if n else 0.0,
    }
    if historical:
        hw = historical.get("winner")
        row = odds.get(str(hw), {"p": 0.0, "ci95": [0.0, 0.0]})
        loss_ratio = None
        if len(sides) == 2:
            a, b = sides
            la, lb = losses[a]["mean"], losses[b]["mean"]
            loss_ratio = {f"{a}:{b}": round(la / lb, 3) if lb else None}
        out["historical"] = {
            "winner": hw,
            "replays_won_by_historical_winner": row["p"],
            "ci95": row["ci95"],
            "reproduces_history": bool(hw and row["p"] > 0.5),
            "historical_losses": historical.get("losses"),
            "simulated_mean_loss_ratio": loss_ratio,
            "sources": historical.get("sources", []),
        }
        if historical.get("losses") and isinstance(next(iter(historical["losses"].values())), dict):
            out["historical"].update(_versus_history(runs, sides, historical))
    return out


def _describe(values: np.ndarray) -> dict[str, float]:
    if values.size == 0:
        return {"mean": 0.0, "median": 0.0, "p5": 0.0, "p95": 0.0, "min": 0.0, "max": 0.0}
    q = np.percentile(values, [5, 50, 95])
    return {
        "mean": round(float(values.mean()), 3),
        "median": float(q[1]),
        "p5": float(q[0]),
        "p95": float(q[2]),
        "min": float(values.min()),
        "max": float(values.max()),
    }


def run_replays(
    bundle: Bundle,
    seeds: Iterable[int],
    *,
    workers: int = 2,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    ruleset: str | None = None,
    dashboard: Callable[[str], None] | None = None,
) -> tuple[list[dict[str, Any]], int, float]:
    """Run replays of the battle in ``bundle`` (:func:`scenario_builder.mc_bundle.pack`) on
    Dask; returns (results sorted by seed, worker count, wall seconds).

    The wall seconds run from the first task submitted to the last result: cluster start-up
    (and the workers' preload) is not in them.

    The local cluster's workers ignore SIGINT (:func:`start_worker_server`), so Ctrl-C reaches
    only this process, which then closes the cluster; the shutdown's connection errors are not
    logged. No dashboard unless ``dashboard`` is given: then one on a free port (never a clash
    with one already on 8787), its address passed to ``dashboard``.
    """
    import dask
    from dask.distributed import Client, LocalCluster, as_completed

    seeds = list(seeds)
    cluster: Any = None
    client: Any = None
    with contextlib.ExitStack() as stack:
        stack.callback(lambda: _quiet_close(client, cluster))
        if scheduler:
            # a scheduler that is there answers at once; don't leave a typo hanging for 30 s
            client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        else:
            # workers forked from the fork server, imports done (for the cluster's life: a
            # nanny restarting its worker forks it too)
            method = "forkserver" if start_worker_server() else "spawn"
            stack.enter_context(
                dask.config.set({"distributed.worker.multiprocessing-method": method})
            )
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0" if dashboard is not None else None,
                # the scheduler's HTTP server (health, metrics) runs even without a dashboard,
                # by default on 8787: a free port instead, so a taken 8787 warns no one
                scheduler_kwargs={"dashboard_address": ":0"},
                silence_logs=logging.CRITICAL,
            )
            client = Client(cluster)
            if dashboard is not None:
                dashboard(str(client.dashboard_link))
        n_workers = len(client.scheduler_info().get("workers", {})) or workers
        # every worker, now and joining later, writes the bundle and loads the battle's ground
        # once before any task; the plugin is dropped at the end, so a long-lived cluster does
        # not keep every battle it was sent
        from scenario_builder.mc_preload import Preload

        plugin = Preload(bundle, ruleset)
        if scheduler:  # a local cluster goes with its plugins; before: a worker may refuse it
            stack.callback(_unregister, client, plugin.name)
        client.register_plugin(plugin)
        start = time.perf_counter()
        tasks = chunks(seeds, n_workers)
        futures = client.map(
            replay_prepared,
            [bundle.key] * len(tasks),
            tasks,
            [ruleset] * len(tasks),
            pure=False,
        )
        results: list[dict[str, Any]] = []
        for fut in as_completed(futures):
            results += fut.result()
            if progress:
                progress(len(results), len(seeds))
        wall = time.perf_counter() - start
    results.sort(key=lambda r: r["seed"])
    return results, n_workers, wall


#: what a replay imports (:func:`warm`: the library's fight, the engine and its rulesets, the
#: battlefield, the messengers' routing graph) and what :func:`plot` does (matplotlib),
#: loaded once by the fork server a local cluster's workers are forked from
#: (:func:`start_worker_server`)
SERVER_MODULES = (
    "distributed",
    "scenario_builder.mc_preload",
    "scenario_builder.battle",
    "scenario_builder.losses",  # a replay's result counted in men and pieces
    "engine.rulesets",
    "engine.battle",
    "engine.rulesets.preload",  # the rulesets' parts their hooks import on first use
    "scenario_builder.battlefield",
    "scenario_builder.routing.graph",
    "scipy.spatial",  # the nearest-enemy k-d tree (engine.spatial imports it on first use)
    "shapely.ops",
    "matplotlib.figure",
    "matplotlib.backends.backend_agg",
)
#: whether this process started the fork server (:func:`plotting` draws in a fork of it)
_server_started = False


def start_worker_server() -> bool:
    """Start this process's multiprocessing fork server, which imports :data:`SERVER_MODULES`
    in the background, for a local cluster's workers to be forked from; returns at once, and
    whether workers will come from it (POSIX; elsewhere they are spawned, as by default).

    Call it early (the CLI does, before it loads the scenario and builds the ground): the
    server's imports then run on another core while this process works, and every worker
    forked from it starts with them done (spawned, each worker imported them itself, after the
    ground was built: ~2 s of the fixed cost of a run). Once per process; later
    calls find it running. Started with SIGINT ignored, which it and the workers forked from it
    keep, so a Ctrl-C (sent by the terminal to every process in the foreground group) reaches
    only this process, which then closes the cluster; workers interrupted on their own would
    each print a traceback.
    """
    global _server_started
    if os.name != "posix" or "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload(list(SERVER_MODULES))
    # "ignore" is the one signal setting that survives exec: the server starts with it (and
    # the forkserver module gives its children the setting it started with)
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
    try:
        forkserver.ensure_running()
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    _server_started = True
    return True


def _unregister(client: Any, name: str) -> None:
    """Drop the worker plugin ``name`` from a cluster that outlives this run (a closing or
    closed connection has nothing left to drop)."""
    with contextlib.suppress(Exception):
        client.unregister_worker_plugin(name)


def _quiet_close(client: Any, cluster: Any) -> None:
    """Close the client and the local cluster without logging the comm errors of a shutdown
    under way (an interrupt or a failed replay closes connections mid-task)."""
    loggers = [logging.getLogger(n) for n in ("distributed", "tornado", "asyncio")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


@contextlib.contextmanager
def plotting(result: MonteCarloResult, path: str | Path) -> Iterator[None]:
    """:func:`plot` drawn while the body runs, in a process forked from the worker server when
    this process started one (:func:`start_worker_server`), which imported matplotlib while
    this process built the ground (its import is half a second); else here on leaving. Waits
    for the figure on leaving; its errors are raised here."""
    if not _server_started:
        yield
        plot(result, path)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver")) as pool:
        drawn = pool.submit(plot, result, path)
        yield
        drawn.result()


def plot(result: MonteCarloResult, path: str | Path) -> None:
    """A one-page figure: win odds with intervals, loss distributions, bounds to a decision."""
    # a Figure of its own (no pyplot: no global state, no GUI backend), PNG by Agg; margins
    # fixed rather than constrained_layout, which draws the figure over to place them
    from matplotlib.figure import Figure

    s = result.summary
    fig = Figure(figsize=(13, 4.2))
    fig.subplots_adjust(left=0.05, right=0.99, bottom=0.12, top=0.92, wspace=0.22)
    axes = fig.subplots(1, 3)
    names = list(s["win_odds"])
    p = [s["win_odds"][k]["p"] for k in names]
    err = np.array(
        [
            [s["win_odds"][k]["p"] - s["win_odds"][k]["ci95"][0] for k in names],
            [s["win_odds"][k]["ci95"][1] - s["win_odds"][k]["p"] for k in names],
        ]
    ).clip(min=0)
    ax = axes[0]
    ax.bar(names, p, yerr=err, capsize=6, color="#7f8c8d")
    hist = s.get("historical", {}).get("winner")
    if hist in names:
        ax.bar([hist], [s["win_odds"][hist]["p"]], color="#c0392b", label="historical winner")
        ax.legend(loc="upper right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("P(win), 95 % Wilson interval")
    ax.set_title(f"{result.scenario}: {s['runs']} replays")
    ax = axes[1]
    for side in result.sides:
        vals = [r["losses"].get(side, 0) for r in result.runs]
        ax.hist(vals, bins=min(20, max(5, len(set(vals)))), alpha=0.6, label=side)
    ax.set_xlabel("bases lost")
    ax.set_ylabel("replays")
    ax.set_title("Losses per side")
    ax.legend()
    ax = axes[2]
    ax.hist([r["bounds"] for r in result.runs], bins=15, color="#2c3e50")
    ax.set_xlabel("bounds")
    ax.set_title("Bounds to a decision")
    fig.savefig(path, dpi=110)
