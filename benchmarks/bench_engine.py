"""Engine speed: bounds per second for 2 x 60 formations (~500 bases) on real ground.

The battle is on the shipped Minden DEM (SRTM, data/SOURCES.md): two lines of 60 formations of
3-5 bases (infantry, archers, cavalry, skirmishers), 700 m apart, every formation ordered to
attack, 30 bounds. Target (issue 3): a 30-bound battle in under 2 s on one core.

Run with pytest-benchmark:   python -m pytest benchmarks/bench_engine.py --benchmark-enable
or as a script:              python benchmarks/bench_engine.py
"""

from __future__ import annotations

import time
from pathlib import Path

from engine.battle import Battle
from engine.dice import Dice
from engine.orders import InstantDelivery
from engine.testing import make_scenario
from scenario_builder.build import build_site

ROOT = Path(__file__).resolve().parents[1]
ARMIES = (str(ROOT / "tests/data/troops/rules_red.yaml"),
          str(ROOT / "tests/data/troops/rules_blue.yaml"))  # fmt: skip
PROFILES = ["inf", "inf", "archers", "cav", "skirm"]
BOUNDS = 30


def scenario(bf):
    minx, miny, maxx, maxy = bf.bounds
    origin = ((minx + maxx) / 2.0, (miny + maxy) / 2.0)

    def side(y: float, facing: float, tag: str) -> list[dict]:
        out = []
        for i in range(60):
            row, col = divmod(i, 30)
            out.append({"id": f"{tag}{i}", "profile": PROFILES[i % len(PROFILES)],
                        "bases": 3 + i % 3, "frontage": 3, "facing": facing, "order": "attack",
                        "at": (-3000 + col * 200.0, y + (row * 120.0 if y > 0 else -row * 120.0))})
        return out  # fmt: skip

    return make_scenario(side(-350.0, 0.0, "r"), side(350.0, 180.0, "b"), armies=ARMIES,
                         origin=origin, max_bounds=BOUNDS + 1)  # fmt: skip


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


def main() -> None:
    bf = build_site("minden").battlefield
    sc = scenario(bf)
    n_bases = sum(f.bases for s in sc.sides for f in s.formations)
    for label, delivery in (("instant orders", InstantDelivery()), ("messengers", None)):
        t0 = time.perf_counter()
        b = Battle(bf, sc, Dice(1), delivery=delivery)
        t1 = time.perf_counter()
        fight(bf, sc, battle=b)
        dt = time.perf_counter() - t1
        bounds = b.state.bound
        print(f"{label}: {n_bases} bases, 120 formations: deploy {t1 - t0:.2f} s, {bounds} "
              f"bounds in {dt:.2f} s = {bounds / dt:.1f} bounds/s ({dt / bounds * 1000:.0f} "
              f"ms/bound); LOS pairs {b.sight.los_calls}; {b.result and b.result['reason']}")


if __name__ == "__main__":
    main()
