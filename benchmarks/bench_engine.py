"""Engine speed: bounds per second for 2 x 60 formations (~500 bases) on real ground.

The battle is on the shipped Minden DEM (SRTM, data/SOURCES.md): two lines of 60 formations of
3-5 bases (infantry, archers, cavalry, skirmishers), 700 m apart, every formation ordered to
attack. Target (issue 3): a 30-bound battle in under 2 s on one core (~66 ms per bound).

That battle is decided (a side routs, victory.rout_fraction 0.5) after 7 bounds, so two figures:
- "decided": the battle to its decision, as ms per bound (x 30 for a 30-bound battle);
- "to the last": the same armies with ``rout_fraction: 1.0`` (fight until a side is gone), which
  keeps them fighting, routing, rallying and pursuing for the whole 30 bounds.

Times are CPU seconds of this process (the machine is shared; wall time is printed beside).

Run with pytest-benchmark:   python -m pytest benchmarks/bench_engine.py --benchmark-enable
or as a script:              python benchmarks/bench_engine.py
one size, machine-readable:  python benchmarks/bench_engine.py --per-side N --json
    prints {"per_side", "bases", "bounds", "cpu_s"} for N formations a side fought to the last
    (rout_fraction 1.0), instant orders, 30 bounds, on Minden (issue 15's growth benchmark;
    ``--profile FILE`` writes cProfile stats of the fight). The set-up's objects are frozen out
    of the garbage collector's walks before the clock starts, as ``scenario-builder run`` does.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import time
from pathlib import Path

from engine.battle import Battle
from engine.dice import Dice
from engine.orders import InstantDelivery
from engine.testing import make_scenario
from scenario_builder.build import build_site
from scenario_builder.heap import freeze_setup

ROOT = Path(__file__).resolve().parents[1]
ARMIES = (
    str(ROOT / "tests/data/troops/rules_red.yaml"),
    str(ROOT / "tests/data/troops/rules_blue.yaml"),
)
PROFILES = ["inf", "inf", "archers", "cav", "skirm"]
BOUNDS = 30


def scenario(bf, per_side: int = 60):
    """Two lines of ``per_side`` formations (30 to a row, rows 120 m apart), 700 m apart, all
    ordered to attack."""
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
    b = battle or Battle(bf, sc, Dice(seed), delivery=InstantDelivery())
    for _ in range(BOUNDS):
        if b.finished:
            break
        b.step()
    return b


def test_bench_engine_30_bounds(benchmark) -> None:
    bf = build_site("minden").battlefield
    sc = scenario(bf)
    benchmark.pedantic(fight, args=(bf, sc), rounds=3, iterations=1)


def test_bench_engine_30_bounds_to_the_last(benchmark) -> None:
    bf = build_site("minden").battlefield
    sc = last_stand(scenario(bf))
    benchmark.pedantic(fight, args=(bf, sc), rounds=1, iterations=1)


def measure(per_side: int, profile: str | None = None) -> dict[str, float | int]:
    """CPU seconds of a 2 x ``per_side`` battle fought to the last (instant orders) for at most
    ``BOUNDS`` bounds; set-up (ground, deployment) excluded."""
    # the engine imports scipy.spatial on first need, and only above a size (engine/spatial.py
    # BRUTE_PAIRS): a one-off import per process is not battle work, and timing it at some sizes
    # and not others would bend the growth fit, so it is paid before the clock at every size
    import scipy.spatial  # noqa: F401

    bf = build_site("minden").battlefield
    sc = last_stand(scenario(bf, per_side))
    b = Battle(bf, sc, Dice(1), delivery=InstantDelivery())
    # as ``scenario-builder run`` does once the armies are deployed (cli/run.py fight): the
    # set-up's objects out of the full garbage collections' walks (scenario_builder.heap)
    freeze_setup()
    prof = cProfile.Profile() if profile else None
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
    return {"per_side": per_side, "bases": n_bases, "bounds": b.state.bound, "cpu_s": round(cpu, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-side", type=int, help="formations a side (one battle to the last)")
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    ap.add_argument("--profile", metavar="FILE", help="write cProfile stats of the fight")
    args = ap.parse_args()
    if args.per_side is not None:
        out = measure(args.per_side, args.profile)
        print(json.dumps(out) if args.json else out)
        return
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
