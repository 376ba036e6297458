"""Time a shipped medieval-d10 battle at the book's figure scale against the same scenario at its
bases (one figure to a base of c. 600 men), interleaved, least of ``--repeat``.

Each round fights the scenario once with its formations' ``figures`` (docs/scenarios.md,
"Figures") and once with them stripped, on the same built ground (built before the clock), with
the same seed; prints CPU seconds of each fight (``time.process_time``), the figures deployed,
the bounds fought and the size of the log (``battle_log.json``'s bytes, snapshots included).

    PYTHONPATH=$PWD python benchmarks/bench_figure_scale.py [SCENARIO] [--seed N]
        [--repeat N] [--ruleset NAME] [--json]

Defaults: ``towton_1461``, seed 1, 3 rounds, the scenario's ruleset (``flodden_1513`` needs
``--ruleset medieval-d10``).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any


def at_bases(scenario: Any) -> Any:
    """``scenario`` without its figures: every formation deploys its bases."""
    sc = scenario.model_copy(update={"men_per_figure": None}, deep=True)
    for side in sc.sides:
        for fs in side.formations:
            fs.figures = fs.figure_frontage = None
    return sc


def fight_once(scenario: Any, built: Any, seed: int, ruleset: str | None) -> dict[str, Any]:
    from scenario_builder.battle import fight

    start = time.process_time()
    log, summary = fight(scenario, built, seed, ruleset=ruleset)
    cpu = time.process_time() - start
    return {
        "cpu_s": cpu,
        "figures": sum(summary["bases"].values()),
        "bounds": summary["bounds"],
        "winner": summary["winner"],
        "log_bytes": len(log.to_bytes()),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?", default="towton_1461")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ruleset", default=None)
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)

    from engine.scenario import load_scenario
    from scenario_builder.battle import build_battlefield

    figures = load_scenario(args.scenario)
    bases = at_bases(figures)
    built = build_battlefield(figures)
    runs: dict[str, list[dict[str, Any]]] = {"figures": [], "bases": []}
    for _ in range(args.repeat):  # interleaved: the host's load falls on both alike
        runs["figures"].append(fight_once(figures, built, args.seed, args.ruleset))
        runs["bases"].append(fight_once(bases, built, args.seed, args.ruleset))
    out = {
        name: {**min(rows, key=lambda r: r["cpu_s"]), "cpu_s_all": [r["cpu_s"] for r in rows]}
        for name, rows in runs.items()
    }
    out["ratio"] = out["figures"]["cpu_s"] / out["bases"]["cpu_s"]
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for name in ("bases", "figures"):
        r = out[name]
        print(
            f"{args.scenario} at its {name}: {r['figures']} figures, {r['bounds']} bounds, "
            f"{r['winner']}: least CPU {r['cpu_s']:.3f} s of {args.repeat}, "
            f"log {r['log_bytes'] / 1e6:.2f} MB"
        )
    print(f"ratio (figures / bases): {out['ratio']:.2f}")


if __name__ == "__main__":
    main()
