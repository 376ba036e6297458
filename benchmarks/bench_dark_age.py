"""Time a Dark Age battle of 2 x N units on the shipped Minden ground (30 bounds at most).

Each side: N units (20 unless ``--per-side``) of 4 stands from the Maldon troop lists
(``data/troops/english_991.yaml``: fyrd, heorthwerod, bowmen; ``viking_991.yaml``: lith, hird,
archers), 20 to a row, the front rows 800 m apart and each further row 250 m behind its front,
all ordered to attack; victory checks off (``rout_fraction`` 1.0). Prints CPU seconds of the
fight (the ground and the deployment are made before the clock starts).

    python benchmarks/bench_dark_age.py [seed] [--per-side N] [--log-hash] [--json]
    python benchmarks/bench_dark_age.py --growth [--sizes 20,40,80]

``--growth`` fits the exponent k of CPU ~ N^k over the sizes; ``--log-hash`` adds the first 16
hex digits of the SHA-256 of the whole log (battle_log.json's bytes: events and snapshots).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from typing import Any

from bench_medieval_d10 import growth_exponent

BOUNDS = 30
ROW = 20


def scenario(bf: Any, per_side: int = 20) -> Any:
    from engine.testing import make_scenario
    from scenario_builder.paths import data_dir

    troops = data_dir() / "troops"
    minx, miny, maxx, maxy = bf.bounds

    def side(types: list[str], y: float, facing: float, tag: str) -> list[dict[str, Any]]:
        back = 250.0 if y > 0 else -250.0
        return [
            {
                "id": f"{tag}{i}",
                "profile": types[i % len(types)],
                "bases": 4,
                "frontage": 4,
                "facing": facing,
                "order": "attack",
                "at": (-1900.0 + 200.0 * (i % ROW), y + back * (i // ROW)),
            }
            for i in range(per_side)
        ]

    return make_scenario(
        side(["fyrd", "heorthwerod", "bowmen"], -400.0, 0.0, "r"),
        side(["lith", "hird", "archers"], 400.0, 180.0, "b"),
        armies=(str(troops / "english_991.yaml"), str(troops / "viking_991.yaml")),
        origin=((minx + maxx) / 2.0, (miny + maxy) / 2.0),
        ruleset="dark-age",
        max_bounds=BOUNDS,
        victory={"rout_fraction": 1.0},
    )


def measure(per_side: int = 20, seed: int = 1, with_hash: bool = False) -> dict[str, Any]:
    from engine.battle import Battle
    from engine.dice import Dice
    from scenario_builder.build import build_site

    bf = build_site("minden").battlefield
    battle = Battle(bf, scenario(bf, per_side), Dice(seed), ruleset="dark-age")
    t0 = time.process_time()
    log = battle.run(max_bounds=BOUNDS)
    cpu = time.process_time() - t0
    out: dict[str, Any] = {
        "per_side": per_side,
        "bounds": log.result["bounds"],
        "cpu_s": round(cpu, 3),
        "events": len(list(log.events())),
        "result": log.result["reason"],
    }
    if with_hash:
        # battle_log.json's bytes (before the faster writer, the records in memory, whose
        # snapshots now hold rounded values: the hashes of earlier sittings are another sum)
        data = log.to_bytes() if hasattr(log, "to_bytes") else log.to_json().encode()
        out["log_hash"] = hashlib.sha256(data).hexdigest()[:16]
    return out


def _report(m: dict[str, Any]) -> str:
    line = (
        f"dark-age 2 x {m['per_side']} units, {m['bounds']} bounds: {m['cpu_s']:.2f} s CPU "
        f"({m['events']} events; result {m['result']})"
    )
    return line + (f" log {m['log_hash']}" if "log_hash" in m else "")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("seed", nargs="?", type=int, default=1)
    ap.add_argument("--per-side", type=int, default=20, help="units a side")
    ap.add_argument("--growth", action="store_true", help="fit the growth over --sizes")
    ap.add_argument("--sizes", default="20,40,80", help="units a side, comma-separated")
    ap.add_argument("--log-hash", action="store_true", help="hash each battle's log")
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
