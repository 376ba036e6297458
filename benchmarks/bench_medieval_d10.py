"""Time a 30-turn medieval-d10 battle of 2 x N units on the shipped Minden ground.

Each side: N units (20 unless ``--per-side``) of 15 figures (one figure = one base; guns 3)
from the Flodden troop lists (bills, pike, longbows, horse, guns), 20 to a row, the two front
rows 1 km apart and each further row 250 m behind its front, all ordered to attack; the battle
is played to 30 game turns (victory checks off: ``rout_fraction`` 1.0). Prints CPU seconds of
the fight (the ground and the deployment are made before the clock starts).

    PYTHONPATH=$PWD python benchmarks/bench_medieval_d10.py [seed] [--per-side N] [--json]
    PYTHONPATH=$PWD python benchmarks/bench_medieval_d10.py --growth [--sizes 20,40,80]

``--growth`` fights each size in turn and fits the exponent k of CPU ~ N^k (least squares on
the logs, as ``bench_engine.py --growth``); ``--log-hash`` adds the first 16 hex digits of the
SHA-256 of battle_log.json's bytes (events and snapshots), so a change meant to keep results can be
checked to keep them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from typing import Any

TURNS = 30
ROW = 20  # units to a row


def scenario(bf: Any, per_side: int = 20) -> Any:
    from engine.testing import make_scenario
    from scenario_builder.paths import data_dir

    troops = data_dir() / "troops" / "medieval"
    minx, miny, maxx, maxy = bf.bounds
    origin = ((minx + maxx) / 2.0, (miny + maxy) / 2.0)
    red_types = ["en_bills", "en_archers", "en_bills_retinue", "en_border_horse", "en_guns"]
    blue_types = [
        "sc_pike_border",
        "sc_highlanders",
        "sc_pike_nobles",
        "sc_pike_reserve",
        "sc_guns",
    ]

    def side(
        types: list[str], y: float, facing: float, prefix: str, ids: dict[int, str]
    ) -> list[dict[str, Any]]:
        out = []
        back = 250.0 if y > 0 else -250.0  # each further row, away from the enemy
        for i in range(per_side):
            row, col = divmod(i, ROW)
            kind = types[i % len(types)]
            n = 3 if kind.endswith("guns") else 15
            out.append(
                {
                    "id": ids.get(i, f"{prefix}{i}"),
                    "profile": kind,
                    "bases": n,
                    "frontage": min(n, 5),
                    "at": (-1900.0 + 200.0 * col, y + (120.0 if col % 2 else 0.0) + back * row),
                    "facing": facing,
                    "order": "attack",
                }
            )
        return out

    return make_scenario(
        # the English list's banner of St Cuthbert stands with the Admiral's vanguard (its
        # ``inspirational`` entry names the formation): red's first billmen are that vanguard
        side(red_types, -500.0, 0.0, "r", {0: "en_admiral"}),
        side(blue_types, 500.0, 180.0, "b", {}),
        armies=(str(troops / "english_1513.yaml"), str(troops / "scots_1513.yaml")),
        origin=origin,
        ruleset="medieval-d10",
        max_bounds=TURNS,
        victory={"rout_fraction": 1.0},
    )


def log_hash(log: Any) -> str:
    # the whole log as battle_log.json holds it: each bound's events and its snapshot (bases,
    # formations, what is seen). Before the faster writer the records in memory were hashed; their
    # snapshots now hold rounded values, so earlier sittings' hashes are another sum
    data = log.to_bytes() if hasattr(log, "to_bytes") else log.to_json().encode()
    return hashlib.sha256(data).hexdigest()[:16]


def measure(per_side: int = 20, seed: int = 1, with_hash: bool = False) -> dict[str, Any]:
    from engine.battle import Battle
    from engine.dice import Dice
    from scenario_builder.build import build_site

    bf = build_site("minden").battlefield
    battle = Battle(bf, scenario(bf, per_side), Dice(seed), ruleset="medieval-d10")
    t0 = time.process_time()
    log = battle.run(max_bounds=TURNS)
    cpu = time.process_time() - t0
    out: dict[str, Any] = {
        "per_side": per_side,
        "turns": log.result["bounds"],
        "cpu_s": round(cpu, 3),
        "events": len(list(log.events())),
        "result": log.result["reason"],
    }
    if with_hash:
        out["log_hash"] = log_hash(log)
    return out


def growth_exponent(sizes: list[int], values: list[float]) -> float:
    xs = [math.log(s) for s in sizes]
    ys = [math.log(v) for v in values]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def _report(m: dict[str, Any]) -> str:
    line = (
        f"medieval-d10 2 x {m['per_side']} units, {m['turns']} turns: {m['cpu_s']:.2f} s CPU "
        f"({m['events']} events; result {m['result']})"
    )
    return line + (f" log {m['log_hash']}" if "log_hash" in m else "")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", nargs="?", type=int, default=1)
    ap.add_argument("--per-side", type=int, default=20, help="units a side")
    ap.add_argument("--growth", action="store_true", help="fit the growth over --sizes")
    ap.add_argument("--sizes", default="20,40,80", help="units a side, comma-separated")
    ap.add_argument("--log-hash", action="store_true", help="hash each battle's events")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    if args.growth:
        try:
            sizes = [int(s) for s in args.sizes.split(",")]
        except ValueError:
            ap.error(f"--sizes: expected integers separated by commas, got {args.sizes!r}")
        if len(sizes) < 2 or min(sizes) < 1:
            ap.error(f"--sizes: expected two or more sizes of 1 or more, got {args.sizes!r}")
        runs = [measure(n, args.seed, args.log_hash) for n in sizes]
        k = growth_exponent(sizes, [r["cpu_s"] for r in runs])
        if args.json:
            print(json.dumps({"runs": runs, "exponent": round(k, 3)}))
        else:
            for r in runs:
                print(_report(r))
            print(f"growth N^{k:.2f} over {args.sizes} units a side")
        return
    if args.per_side < 1:
        ap.error(f"--per-side: expected 1 or more, got {args.per_side}")
    m = measure(args.per_side, args.seed, args.log_hash)
    print(json.dumps(m) if args.json else _report(m))


if __name__ == "__main__":
    sys.exit(main())
