"""Engine speed: bounds per second for 2 x 60 formations (~500 bases) on real ground.

The battle is on the shipped Minden DEM (SRTM, data/SOURCES.md): two lines of 60 formations of
3-5 bases (infantry, archers, cavalry, skirmishers), 700 m apart, every formation ordered to
attack. Target: a 30-bound battle in under 2 s on one core (~66 ms per bound).

That battle is decided (a side routs, victory.rout_fraction 0.5) after 7 bounds, so two figures:
- "decided": the battle to its decision, as ms per bound (x 30 for a 30-bound battle);
- "to the last": the same armies with ``rout_fraction: 1.0`` (fight until a side is gone), which
  keeps them fighting, routing, rallying and pursuing for the whole 30 bounds.

Times are CPU seconds of this process (the machine is shared; wall time is printed beside).

Run with pytest-benchmark:   python -m pytest benchmarks/bench_engine.py --benchmark-enable
or as a script:              python benchmarks/bench_engine.py
one size, machine-readable:  python benchmarks/bench_engine.py --per-side N --json [--repeat K]
    prints {"per_side", "bases", "bounds", "cpu_s"} for N formations a side fought to the last
    (rout_fraction 1.0), instant orders, 30 bounds, on Minden (the scale work's growth benchmark;
    ``--profile FILE`` writes cProfile stats of the fight; ``--calls`` adds "calls", the calls
    of Python functions in the fight, built-ins left out, counted by cProfile). The set-up's
    objects are frozen out of the garbage collector's walks before the clock starts, as
    ``scenario-builder run`` does. ``--repeat K`` fights it K times, each in a fresh process,
    and reports the least CPU, with every run in "cpu_s_runs". ``--log-write`` then writes
    ``battle_log.json`` once, as ``scenario-builder run`` does, and adds "log_write_s" (CPU),
    "log_write_share" (of the fight's CPU), "log_bytes" and "log_sha256" (16 hex digits), and
    the end-of-bound record's part of the fight: "record_s" / "record_share" (``Battle._record``,
    every bound's snapshot) and "fog_s" / "fog_share" (``engine.battle.seen_by_side`` inside it,
    what each side sees), CPU timed around each call.
growth over sizes:           python benchmarks/bench_engine.py --growth [--sizes 30,60,120,240]
                                 [--repeat 3] [--json]
    fights every size in a fresh process, the sizes interleaved round by round so a shared
    host's slow spells fall on all of them, and fits the exponent of the least CPU time of each
    size against N (least squares on the logs). The host's speed is read before every round (a
    fixed 10 M-step Python loop, "loop_s"), and the count of Python function calls per size is
    fitted too: it does not depend on the host, so it is the figure to compare across sittings
    (it leaves out the work inside numpy calls and built-ins, which grows faster: read it beside
    the times).
against another checkout:    python benchmarks/bench_engine.py --against DIR [--per-side 60]
                                 [--repeat 3] [--json]
    the same battle (this checkout's scenario and troop lists) fought by the engine of DIR (a
    checkout of another commit, e.g. ``git worktree add ../base 38c05b7``, the commit before
    the scale work; its ``../shared`` must hold the data) and by this one, alternated in fresh
    processes (this, DIR, DIR, this, ...), so both meet the same spells of a shared host: the
    least CPU of each, their ratio, and each one's Python calls. The ratio, not a time from
    another sitting, is what says how much faster a change made the engine (the 10 M-step loop
    is a poor gauge of the host: Debian's PGO build of CPython runs it 1.4x faster than this
    machine's pyenv build but the engine only 4 % faster, docs/performance.md). With
    ``--log-write`` each run also writes its log (the write's share of the fight, and
    the two logs' hashes, which must agree).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import os
import pstats
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from engine.battle import Battle

# The engine and the ground are imported where they are used, not here: a bad argument is a
# one-line error at once, not after a second of imports (tests/test_bench_growth.py), and
# ``measure`` builds the ground, which imports them, before its clock starts.

ROOT = Path(__file__).resolve().parents[1]
ARMIES = (
    str(ROOT / "tests/data/troops/rules_red.yaml"),
    str(ROOT / "tests/data/troops/rules_blue.yaml"),
)
PROFILES = ["inf", "inf", "archers", "cav", "skirm"]
BOUNDS = 30
#: the ruleset the battle is fought under (--ruleset; None: the scenario's, 2mm Earth v0.9)
RULESET: str | None = None


def scenario(bf, per_side: int = 60):
    """Two lines of ``per_side`` formations (30 to a row, rows 120 m apart), 700 m apart, all
    ordered to attack."""
    from engine.testing import make_scenario

    minx, miny, maxx, maxy = bf.bounds
    origin = ((minx + maxx) / 2.0, (miny + maxy) / 2.0)

    def side(y: float, facing: float, tag: str) -> list[dict]:
        out = []
        for i in range(per_side):
            row, col = divmod(i, 30)
            out.append(
                {
                    "id": f"{tag}{i}",
                    "profile": PROFILES[i % len(PROFILES)],
                    "bases": 3 + i % 3,
                    "frontage": 3,
                    "facing": facing,
                    "order": "attack",
                    "at": (-3000 + col * 200.0, y + (row * 120.0 if y > 0 else -row * 120.0)),
                }
            )
        return out

    return make_scenario(
        side(-350.0, 0.0, "r"),
        side(350.0, 180.0, "b"),
        armies=ARMIES,
        origin=origin,
        max_bounds=BOUNDS + 1,
    )


def last_stand(sc):
    """``sc`` fought until a side is gone (victory.rout_fraction 1.0): 30 busy bounds."""
    new = sc.model_copy(update={"victory": sc.victory.model_copy(update={"rout_fraction": 1.0})})
    new._path = sc.path
    new._armies = dict(sc._armies)
    return new


def fight(bf, sc, seed: int = 1, battle: Battle | None = None) -> Battle:
    if battle is None:
        from engine.battle import Battle
        from engine.dice import Dice
        from engine.orders import InstantDelivery

        battle = Battle(bf, sc, Dice(seed), delivery=InstantDelivery())
    b = battle
    for _ in range(BOUNDS):
        if b.finished:
            break
        b.step()
    return b


def test_bench_engine_30_bounds(benchmark) -> None:
    from scenario_builder.build import build_site

    bf = build_site("minden").battlefield
    sc = scenario(bf)
    benchmark.pedantic(fight, args=(bf, sc), rounds=3, iterations=1)


def test_bench_engine_30_bounds_to_the_last(benchmark) -> None:
    from scenario_builder.build import build_site

    bf = build_site("minden").battlefield
    sc = last_stand(scenario(bf))
    benchmark.pedantic(fight, args=(bf, sc), rounds=1, iterations=1)


def write_log(log: object, path: Path) -> None:
    """``battle_log.json`` written as ``scenario-builder run`` writes it
    (``scenario_builder.run_folder.write_run``); an older checkout (``--against``) has no
    ``to_bytes``: its text, encoded."""
    to_bytes = getattr(log, "to_bytes", None)
    if to_bytes is not None:
        path.write_bytes(to_bytes())
    else:
        path.write_text(log.to_json(), encoding="utf-8")  # type: ignore[attr-defined]


def measure(
    per_side: int, profile: str | None = None, calls: bool = False, log_write: bool = False
) -> dict[str, float | int | str]:
    """CPU seconds of a 2 x ``per_side`` battle fought to the last (instant orders) for at most
    ``BOUNDS`` bounds; set-up (ground, deployment) excluded. The engine is whichever ``import
    engine`` finds (``--engine-root`` puts another checkout's first)."""
    # the engine imports scipy.spatial on first need, and only above a size (engine/spatial.py
    # BRUTE_PAIRS): a one-off import per process is not battle work, and timing it at some sizes
    # and not others would bend the growth fit, so it is paid before the clock at every size
    import scipy.spatial  # noqa: F401

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery
    from scenario_builder.build import build_site

    try:
        from scenario_builder.heap import freeze_setup
    except ImportError:  # an older checkout (--against): what freeze_setup does, plainly
        import gc

        def freeze_setup() -> bool:
            gc.freeze()
            return True

    spent = {"record": 0.0, "fog": 0.0}
    if log_write:  # the end-of-bound record's CPU, and the fog of war's inside it
        import engine.battle as battle_module

        def timed(fn: Callable[..., Any], key: str) -> Callable[..., Any]:
            def run(*a: Any, **k: Any) -> Any:
                t = time.process_time()
                try:
                    return fn(*a, **k)
                finally:
                    spent[key] += time.process_time() - t

            return run

        battle_module.Battle._record = timed(battle_module.Battle._record, "record")
        battle_module.seen_by_side = timed(battle_module.seen_by_side, "fog")
    bf = build_site("minden").battlefield
    sc = last_stand(scenario(bf, per_side))
    b = (
        Battle(bf, sc, Dice(1), delivery=InstantDelivery())
        if RULESET is None
        else Battle(bf, sc, Dice(1), delivery=InstantDelivery(), ruleset=RULESET)
    )
    # as ``scenario-builder run`` does once the armies are deployed (scenario_builder.battle's
    # fight): the set-up's objects out of the full garbage collections' walks (heap.freeze_setup)
    freeze_setup()
    spent["record"] = spent["fog"] = 0.0  # the fight's, not bound 0's (taken at deployment)
    prof = cProfile.Profile() if profile or calls else None
    t0 = time.process_time()
    if prof is not None:
        prof.enable()
    fight(bf, sc, battle=b)
    if prof is not None:
        prof.disable()
    cpu = time.process_time() - t0
    if prof is not None and profile:
        prof.dump_stats(profile)
    n_bases = sum(f.bases for s in sc.sides for f in s.formations)
    out: dict[str, float | int | str] = {
        "per_side": per_side,
        "bases": n_bases,
        "bounds": b.state.bound,
        "cpu_s": round(cpu, 3),
    }
    if log_write:
        # once, as the CLI writes it after the fight (garbage collector on, as there)
        import hashlib
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "battle_log.json"
            t0 = time.process_time()
            write_log(b.log, path)
            out["log_write_s"] = round(time.process_time() - t0, 4)
            data = path.read_bytes()
        out["log_write_share"] = round(float(out["log_write_s"]) / cpu, 4)
        for key in ("record", "fog"):
            out[f"{key}_s"] = round(spent[key], 4)
            out[f"{key}_share"] = round(spent[key] / cpu, 4)
        out["log_bytes"] = len(data)
        out["log_sha256"] = hashlib.sha256(data).hexdigest()[:16]
    if prof is not None and calls:
        # the calls of Python functions (each a frame, the interpreter's unit of work), not
        # of built-ins such as abs or a dict's get, which cost a tenth as much and would
        # weigh the few-rectangle float sums far above their share of the time
        stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
        out["calls"] = sum(int(v[1]) for k, v in stats.items() if k[0] != "~")
    return out


def growth_exponent(sizes: list[int], values: list[float]) -> float:
    """The exponent ``k`` of ``values ~ c * sizes ** k``, least squares on the logs.

    >>> round(growth_exponent([30, 60, 120, 240], [1.0, 2.0, 4.0, 8.0]), 6)
    1.0
    >>> round(growth_exponent([30, 240], [0.5, 0.5 * 8 ** 1.15]), 6)
    1.15
    """
    if len(sizes) != len(values) or len(sizes) < 2:
        raise ValueError(f"expected two or more sizes with a value each, got {sizes} / {values}")
    slope, _ = np.polyfit(np.log(sizes), np.log(values), 1)
    return float(slope)


def loop_seconds() -> float:
    """CPU seconds of a fixed 10 M-step Python loop: how fast the (shared) host runs now."""
    t0 = time.process_time()
    s = 0
    for i in range(10_000_000):
        s += i
    return round(time.process_time() - t0, 3)


def _one(
    per_side: int, calls: bool = False, root: Path | None = None, log_write: bool = False
) -> dict[str, float | int | str]:
    """``measure(per_side)`` in a fresh interpreter (no state warmed by a larger battle), with
    the engine of the checkout ``root`` if given."""
    cmd = [sys.executable, __file__, "--per-side", str(per_side), "--json"]
    cmd += ["--calls"] if calls else []
    cmd += ["--log-write"] if log_write else []
    cmd += ["--engine-root", str(root)] if root is not None else []
    cmd += ["--ruleset", RULESET] if RULESET is not None else []
    # one string-hash order for every child: the battle's log is the same under any (the
    # determinism tests), but the work is not quite - the order some sets of ids are walked in
    # decides which answers are already held when asked, so the call count at 2 x 240 moved by
    # 0.4 % from one process to the next; with one seed it is the same number every run
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        where = f" (engine of {root})" if root is not None else ""
        last = (done.stderr.strip().splitlines() or ["no output"])[-1][-300:]
        raise SystemExit(f"bench_engine.py --per-side {per_side}{where}: {last}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def use_engine_root(root: Path) -> None:
    """Make ``import engine`` (and the rest of the project) load from the checkout ``root``;
    one-line error when it is not a checkout, or when another copy loaded instead."""
    if not (root / "engine" / "battle.py").is_file():
        raise SystemExit(f"--engine-root {root}: expected a checkout with engine/battle.py")
    sys.path.insert(0, str(root))
    import engine

    got = Path(engine.__file__).resolve().parent.parent
    if got != root.resolve():
        raise SystemExit(f"--engine-root {root}: the engine loaded from {got} instead")


def against(per_side: int, root: Path, repeat: int, log_write: bool = False) -> dict[str, object]:
    """The benchmark battle fought by this checkout's engine and by ``root``'s, alternated in
    fresh processes (ABBA rounds), the least CPU of each, its ratio and each one's calls; with
    ``log_write``, each run's log write too (CPU s, share of its fight, the log's hash)."""
    if not (root / "engine" / "battle.py").is_file():
        raise SystemExit(f"--against {root}: expected a checkout with engine/battle.py")
    here: list[float] = []
    there: list[float] = []
    bounds: dict[str, int] = {}
    writes: dict[str, list[tuple[float, float, str]]] = {"here": [], "there": []}
    shares: dict[str, list[tuple[float, float]]] = {"here": [], "there": []}
    for k in range(repeat):
        for which in ("here", "there") if k % 2 == 0 else ("there", "here"):
            r = _one(per_side, root=root if which == "there" else None, log_write=log_write)
            (here if which == "here" else there).append(float(r["cpu_s"]))
            bounds[which] = int(r["bounds"])
            if log_write:
                w = (float(r["log_write_s"]), float(r["log_write_share"]), str(r["log_sha256"]))
                writes[which].append(w)
                shares[which].append((float(r["record_share"]), float(r["fog_share"])))
    calls_here = int(_one(per_side, calls=True)["calls"])
    calls_there = int(_one(per_side, calls=True, root=root)["calls"])
    return {
        "per_side": per_side,
        "against": str(root),
        "cpu_s": here,
        "cpu_s_against": there,
        "ratio_min": round(min(there) / min(here), 3),
        "bounds": bounds["here"],
        "bounds_against": bounds["there"],
        "calls": calls_here,
        "calls_against": calls_there,
        "repeat": repeat,
        **(
            {
                "log_write_s": [w[0] for w in writes["here"]],
                "log_write_s_against": [w[0] for w in writes["there"]],
                "log_write_share": [w[1] for w in writes["here"]],
                "log_write_share_against": [w[1] for w in writes["there"]],
                "record_share": [v[0] for v in shares["here"]],
                "record_share_against": [v[0] for v in shares["there"]],
                "fog_share": [v[1] for v in shares["here"]],
                "fog_share_against": [v[1] for v in shares["there"]],
                "log_sha256": sorted({w[2] for w in writes["here"]}),
                "log_sha256_against": sorted({w[2] for w in writes["there"]}),
            }
            if log_write
            else {}
        ),
    }


def repeated(per_side: int, repeat: int) -> dict[str, object]:
    """``measure(per_side)`` ``repeat`` times, each in a fresh process: the least CPU as
    ``cpu_s`` (a shared host's slow spells only ever add time), every run as ``cpu_s_runs``."""
    runs = [_one(per_side) for _ in range(repeat)]
    out: dict[str, object] = dict(runs[0])
    out["cpu_s"] = min(float(r["cpu_s"]) for r in runs)
    out["cpu_s_runs"] = [float(r["cpu_s"]) for r in runs]
    return out


def growth(sizes: list[int], repeat: int) -> dict[str, object]:
    """The least CPU time of each size over ``repeat`` interleaved rounds, each size's Python
    calls (one profiled run each), and both growth exponents."""
    best: dict[int, float] = {}
    bounds: dict[int, int] = {}
    loops: list[float] = []
    for _ in range(repeat):
        loops.append(loop_seconds())
        for n in sizes:
            r = _one(n)
            best[n] = min(best.get(n, math.inf), float(r["cpu_s"]))
            bounds[n] = int(r["bounds"])
    counts = {n: int(_one(n, calls=True)["calls"]) for n in sizes}
    cpu = [best[n] for n in sizes]
    return {
        "sizes": sizes,
        "bounds": [bounds[n] for n in sizes],
        "cpu_s_min": cpu,
        "exponent": round(growth_exponent(sizes, cpu), 3),
        "calls": [counts[n] for n in sizes],
        "calls_exponent": round(growth_exponent(sizes, [counts[n] for n in sizes]), 3),
        "repeat": repeat,
        "loop_s": loops,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-side", type=int, help="formations a side (one battle to the last)")
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    ap.add_argument("--profile", metavar="FILE", help="write cProfile stats of the fight")
    ap.add_argument("--calls", action="store_true", help="count the fight's Python calls")
    ap.add_argument(
        "--log-write",
        action="store_true",
        help="time writing battle_log.json after the fight (--per-side, --against)",
    )
    ap.add_argument("--growth", action="store_true", help="fit the growth over --sizes")
    ap.add_argument("--sizes", default="30,60,120,240", help="formations a side, comma-separated")
    ap.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="runs, each in a fresh process, least kept (--per-side 1, --growth / --against 3)",
    )
    ap.add_argument(
        "--against", type=Path, metavar="DIR", help="alternate with the engine of checkout DIR"
    )
    ap.add_argument(
        "--ruleset",
        help="fight under another ruleset of the 2mm Earth family (2mm-earth-v0.9+wc-morale)",
    )
    ap.add_argument("--engine-root", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ruleset is not None:
        if args.against is not None:
            raise SystemExit("--ruleset: not with --against (an older checkout may not know it)")
        from engine.rulesets import get_ruleset

        try:
            get_ruleset(args.ruleset)
        except Exception as exc:  # the registry's one-line message
            raise SystemExit(f"--ruleset: {exc}") from None
        if not args.ruleset.startswith("2mm-earth"):
            # the benchmark's armies are 2mm Earth troop lists (bench_medieval_d10.py and
            # bench_dark_age.py fight the other rulebooks)
            raise SystemExit(f"--ruleset: expected a 2mm Earth ruleset, got {args.ruleset!r}")
        global RULESET
        RULESET = args.ruleset
    if args.engine_root is not None:
        use_engine_root(args.engine_root)
    if args.repeat is not None and args.repeat < 1:
        raise SystemExit(f"--repeat: expected a whole number >= 1, got {args.repeat}")
    repeat = args.repeat if args.repeat is not None else 3
    if args.against is not None:
        if args.per_side is not None and args.per_side < 1:
            raise SystemExit(f"--against: expected --per-side >= 1, got {args.per_side}")
        a = against(args.per_side or 60, args.against, repeat, args.log_write)
        print(json.dumps(a) if args.json else "\n".join(f"{k}: {v}" for k, v in a.items()))
        return
    if args.growth:
        try:
            sizes = [int(v) for v in args.sizes.split(",")]
        except ValueError:
            raise SystemExit(
                f"--sizes: expected whole numbers like 30,60,120, got {args.sizes!r}"
            ) from None
        if len(sizes) < 2 or min(sizes) < 1:
            raise SystemExit(f"--growth: expected two or more sizes >= 1, got {args.sizes!r}")
        g = growth(sizes, repeat)
        print(json.dumps(g) if args.json else "\n".join(f"{k}: {v}" for k, v in g.items()))
        return
    if args.per_side is not None:
        if args.repeat is not None and args.repeat > 1:
            if args.profile or args.calls or args.log_write:
                raise SystemExit("--repeat: one run only with --profile, --calls or --log-write")
            out = repeated(args.per_side, args.repeat)
        else:
            out = measure(args.per_side, args.profile, args.calls, args.log_write)
        print(json.dumps(out) if args.json else out)
        return
    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery
    from scenario_builder.build import build_site

    bf = build_site("minden").battlefield
    sc = scenario(bf)
    n_bases = sum(f.bases for s in sc.sides for f in s.formations)
    print(f"{n_bases} bases, 120 formations on Minden; target 30 bounds < 2 s (66 ms/bound)")
    runs = (
        ("decided, instant orders", sc, InstantDelivery()),
        ("decided, messengers", sc, None),
        ("to the last, instant orders", last_stand(sc), InstantDelivery()),
        ("to the last, messengers", last_stand(sc), None),
    )
    for label, s, delivery in runs:
        t0 = time.process_time()
        b = Battle(bf, s, Dice(1), delivery=delivery)
        t1, w1 = time.process_time(), time.perf_counter()
        fight(bf, s, battle=b)
        dt, wall = time.process_time() - t1, time.perf_counter() - w1
        bounds = b.state.bound
        ms = dt / bounds * 1000
        print(
            f"{label}: deploy {t1 - t0:.2f} s, {bounds} bounds in {dt:.2f} s CPU ({wall:.2f} s "
            f"wall) = {ms:.0f} ms/bound "
            f"(30 bounds ~ {ms * 30 / 1000:.1f} s); LOS pairs {b.sight.los_calls}; "
            f"losses {b.state.losses()}; {b.result and b.result['reason']}"
        )


if __name__ == "__main__":
    main()
