"""Time a 30-turn medieval-d10 battle of 2 x 20 units on the shipped Minden ground.

Each side: 20 units of 15 figures (one figure = one base) from the Flodden troop lists (bills,
pike, longbows, horse, guns), in two lines 1 km apart, all ordered to attack; the battle is
played to 30 game turns (victory checks off: ``rout_fraction`` 1.0). Prints CPU seconds.

    PYTHONPATH=$PWD python benchmarks/bench_medieval_d10.py [seed]
"""

from __future__ import annotations

import sys
import time

from engine.battle import Battle
from engine.dice import Dice
from engine.testing import make_scenario
from scenario_builder.build import build_site
from scenario_builder.paths import data_dir

TROOPS = data_dir() / "troops" / "medieval"


def main(seed: int = 1) -> float:
    bf = build_site("minden").battlefield
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
    ) -> list[dict]:
        out = []
        for i in range(20):
            kind = types[i % len(types)]
            n = 3 if kind.endswith("guns") else 15
            out.append(
                {
                    "id": ids.get(i, f"{prefix}{i}"),
                    "profile": kind,
                    "bases": n,
                    "frontage": min(n, 5),
                    "at": (-1900.0 + 200.0 * i, y + (120.0 if i % 2 else 0.0)),
                    "facing": facing,
                    "order": "attack",
                }
            )
        return out

    sc = make_scenario(
        # the English list's banner of St Cuthbert stands with the Admiral's vanguard (its
        # ``inspirational`` entry names the formation): red's first billmen are that vanguard
        side(red_types, -500.0, 0.0, "r", {0: "en_admiral"}),
        side(blue_types, 500.0, 180.0, "b", {}),
        armies=(str(TROOPS / "english_1513.yaml"), str(TROOPS / "scots_1513.yaml")),
        origin=origin,
        ruleset="medieval-d10",
        max_bounds=30,
        victory={"rout_fraction": 1.0},
    )
    battle = Battle(bf, sc, Dice(seed), ruleset="medieval-d10")
    t0 = time.process_time()
    log = battle.run(max_bounds=30)
    cpu = time.process_time() - t0
    print(
        f"medieval-d10 2 x 20 units, {log.result['bounds']} turns: {cpu:.2f} s CPU "
        f"({len(list(log.events()))} events; result {log.result['reason']})"
    )
    return cpu


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
