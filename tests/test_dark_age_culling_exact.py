"""The Dark Age moves' culling (pairwise work grows with neighbours) changes no
battle: ``engine.movement.swept_rows`` leaves out only rectangles no pose along a move can
overlap, so 5.27 interpenetrations and a move's halt short of the friends it passes through
(``_clear_end``) are the same with every friend a candidate; 5.8's "enemy to their front"
(``range_halts``) is the same with every enemy a candidate of its numpy cut. Played on real
ground: Maldon (data/scenarios/maldon_991.yaml) and a 2 x 30 unit battle of the Maldon troop
lists on Minden."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import OBB, obb_array, separation
from engine.movement import obb_at, swept_rows
from engine.scenario import load_scenario
from engine.testing import make_scenario
from scenario_builder.paths import data_dir
from tests.reference import culling as culling_ref


def _log(bf, sc, seed: int) -> str:
    log = Battle(bf, sc, Dice(seed)).run()
    return json.dumps([(r.bound, r.events, r.snapshot) for r in log.bounds], default=str)


def _line_battle(bf, per_side: int):
    minx, miny, maxx, maxy = bf.bounds
    troops = data_dir() / "troops"

    def side(types: list[str], y: float, facing: float, tag: str) -> list[dict]:
        return [
            {
                "id": f"{tag}{i}",
                "profile": types[i % len(types)],
                "bases": 4,
                "frontage": 4,
                "facing": facing,
                "order": "attack",
                "at": (-1500 + 200.0 * (i % 15), y + (250.0 if y > 0 else -250.0) * (i // 15)),
            }
            for i in range(per_side)
        ]

    return make_scenario(
        side(["fyrd", "heorthwerod", "bowmen"], -400.0, 0.0, "r"),
        side(["lith", "hird", "archers"], 400.0, 180.0, "b"),
        armies=(str(troops / "english_991.yaml"), str(troops / "viking_991.yaml")),
        origin=((minx + maxx) / 2.0, (miny + maxy) / 2.0),
        ruleset="dark-age",
        max_bounds=20,
        victory={"rout_fraction": 1.0},
    )


@pytest.mark.parametrize("battle", ["maldon", "lines"])
def test_culled_moves_fight_the_same_battle(battle: str, built_minden, monkeypatch) -> None:
    import engine.rulesets.dark_age.battle as da

    if battle == "maldon":
        from scenario_builder.build import build_site

        sc = load_scenario("maldon_991")
        bf = build_site(sc.battlefield.slug).battlefield
    else:
        bf = built_minden.battlefield
        sc = _line_battle(bf, 30)
    culled = _log(bf, sc, 7)
    monkeypatch.setattr("engine.movement.swept_rows", culling_ref.every_row)
    monkeypatch.setattr(da, "_rough_front", culling_ref.every_foe)
    every = _log(bf, sc, 7)
    assert culled == every
    # the culled questions were asked and mattered: friends passed through, fronts halted
    assert "RangeHalt(" in culled
    assert "Interpenetration(" in culled or battle == "maldon"


def test_swept_rows_misses_no_rectangle_a_pose_overlaps() -> None:
    rng = np.random.default_rng(15)
    for _ in range(200):
        n = 40
        arr = obb_array(
            [
                OBB(
                    float(rng.uniform(-300, 300)),
                    float(rng.uniform(-300, 300)),
                    float(rng.uniform(2, 40)),
                    float(rng.uniform(2, 20)),
                    float(rng.uniform(0, 360)),
                )
                for _ in range(n)
            ]
        )
        box = tuple(float(v) for v in (*rng.uniform(-10, 10, 2), *rng.uniform(2, 40, 2)))
        x0, y0, x1, y1 = (float(v) for v in rng.uniform(-200, 200, 4))
        th0, dth = float(rng.uniform(0, 360)), float(rng.uniform(-90, 90))
        keep = set(swept_rows(box, x0, y0, x1, y1, arr).tolist())
        steps = max(2, math.ceil(math.hypot(x1 - x0, y1 - y0) / 2.0))
        for k in range(steps + 1):
            t = k / steps
            pose = obb_at(box, x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, th0 + dth * t)
            hit = set((separation(pose, arr) < 0.0).nonzero()[0].tolist())
            assert hit <= keep
