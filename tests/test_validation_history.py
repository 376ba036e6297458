"""Issue 6 validation: each shipped battle's historical winner wins most of a modest number of
replays (seeds 1..15, run on Dask exactly as ``scenario-builder montecarlo --runs 15`` does).

This is a check of the whole chain (terrain, troop lists, deployments, plans, rules), not a tuned
fit: no number in the scenarios was adjusted to make it pass. Measured odds are reported in the
assertion message so a rules change that shifts them is visible.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.scenario import load_scenario
from scenario_builder.cli.run import build_battlefield
from scenario_builder.montecarlo import run_replays, summarize
from scenario_builder.paths import data_dir

RUNS = 15
SCENARIOS = sorted(p.stem for p in (data_dir() / "scenarios").glob("*.yaml"))


@pytest.mark.slow
@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_historical_winner_wins_most_replays(scenario_id: str, tmp_path: Path) -> None:
    sc = load_scenario(scenario_id)
    hist = sc.historical_outcome or {}
    assert hist.get("winner"), f"{scenario_id} has no historical winner to validate against"
    built_dir = tmp_path / "battlefield"
    build_battlefield(sc).save(built_dir)
    runs, _, _ = run_replays(sc.path, built_dir, range(1, RUNS + 1), workers=2)
    s = summarize(runs, [side.id for side in sc.sides], hist)
    odds = {k: v["wins"] for k, v in s["win_odds"].items()}
    assert odds[hist["winner"]] > RUNS / 2, (
        f"{scenario_id}: historical winner {hist['winner']} won {odds[hist['winner']]}/{RUNS} "
        f"replays; odds {odds}"
    )
