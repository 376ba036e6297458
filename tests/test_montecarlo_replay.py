"""A Monte Carlo replay fights without the per-bound snapshots it never writes.

``Battle(..., snapshots=False)`` (what :func:`scenario_builder.montecarlo.replay` uses) keeps
each bound's events and the result but not the snapshot of bases, formations, messengers and
what each side sees (6.2), which only the written log needs. These tests pin that leaving the
snapshots out changes nothing a replay reports: the result (winner, bounds, losses, casualties
split by the book's categories, the pursuit) and every bound's events are byte for byte those of
the recorded battle with the same seed, under each shipped ruleset, on real ground.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.log import BattleLog, dumps
from engine.scenario import Scenario, load_scenario
from scenario_builder.battle import LoadedBattlefield, build_battlefield, fight
from scenario_builder.montecarlo import replay

# flodden_dir, built_flodden: the built Flodden, once per session (tests/conftest.py)


def _events(log: BattleLog) -> list[str]:
    return [dumps([e.to_dict() for e in b.events]) for b in log.bounds]


def _both(sc: Scenario, built: Any, seed: int, ruleset: str | None) -> tuple[BattleLog, BattleLog]:
    recorded, _ = fight(sc, built, seed, ruleset=ruleset)
    bare, _ = fight(sc, built, seed, ruleset=ruleset, snapshots=False)
    return recorded, bare


def test_replay_result_is_the_recorded_battles(flodden_dir: Path) -> None:
    """replay() (no snapshots) reports exactly the result of the recorded run of its seed."""
    path = str(Path("data/scenarios/flodden_1513.yaml").resolve())
    sc = load_scenario(path)
    recorded, _ = fight(sc, LoadedBattlefield(_load_bf(flodden_dir)), 4)
    assert recorded.bounds[-1].snapshot["seen"], "the recorded run has its snapshots"
    r = replay(path, str(flodden_dir), 4)
    assert r.pop("seconds") > 0
    assert r.pop("seed") == 4
    r.pop("strength"), r.pop("men_per_base")
    r.pop("lost_men"), r.pop("lost_pieces")  # the result counted in men and pieces
    assert dumps(r) == dumps(recorded.result)


def _load_bf(directory: Path) -> Any:
    from scenario_builder.battlefield import Battlefield

    return Battlefield.load(directory)


@pytest.fixture(scope="module")
def grounds(built_flodden: Any) -> Iterator[dict[str, Any]]:
    """Each scenario's built ground, built once for the module (Flodden from the session)."""
    cache: dict[str, Any] = {"flodden_1513": built_flodden}

    def get(name: str) -> Any:
        if name not in cache:
            cache[name] = build_battlefield(load_scenario(name))
        return cache[name]

    yield {"get": get}


@pytest.mark.slow  # 14 battles fought twice each: ~15 s on 2 cores
@pytest.mark.parametrize(
    ("scenario", "ruleset", "seeds"),
    [
        ("flodden_1513", None, (1, 7, 12)),  # 2mm Earth v0.9: messengers in flight (9.1-9.2)
        ("flodden_1513", "2mm-earth-v0.7", (2, 5)),  # its army morale phase
        ("flodden_1513", "2mm-earth-v0.9+wc-morale", (3, 9)),  # composed: W&C morale
        ("maldon_991", None, (1, 2, 6)),  # dark-age: DPs and formation types in the record
        ("towton_1461", None, (1, 4)),  # medieval-d10: d10 procedures, the pursuit
    ],
)
def test_no_snapshots_same_result_and_events(
    grounds: dict[str, Any], scenario: str, ruleset: str | None, seeds: tuple[int, ...]
) -> None:
    sc = load_scenario(scenario)
    built = grounds["get"](scenario)
    for seed in seeds:
        recorded, bare = _both(sc, built, seed, ruleset)
        assert recorded.result is not None and bare.result is not None
        assert dumps(bare.result) == dumps(recorded.result), (scenario, ruleset, seed)
        assert _events(bare) == _events(recorded), (scenario, ruleset, seed)
        # what was left out: every bound's snapshot, and nothing else
        assert all(b.snapshot == {} for b in bare.bounds)
        assert all("seen" in b.snapshot and b.snapshot["bases"] for b in recorded.bounds)
        assert bare.header == recorded.header


def test_worker_preload_builds_the_routing_graph(flodden_dir: Path) -> None:
    """The worker preload (montecarlo.warm) leaves the messengers' routing graph (9.1) built
    for the ground a replay reads, although its one bound (the briefing) sends no messenger."""
    from engine.rulesets import get_ruleset
    from scenario_builder import montecarlo as mc
    from scenario_builder.routing import graph as routing

    path = str(Path("data/scenarios/flodden_1513.yaml").resolve())
    mc._load.cache_clear()  # a battlefield loaded afresh: no graph from an earlier test
    mc.warm(path, str(flodden_dir))
    sc, bf = mc._load(path, str(flodden_dir), ())  # the key warm() and replay() use
    ground = get_ruleset(sc.ruleset).ground(bf)
    assert routing._memory_cache.get(ground), "no routing graph built for the replays' ground"


def test_fork_server_preloads_everything_a_replay_imports(flodden_dir: Path) -> None:
    """The fixed cost of a replay: the local workers are forked from a fork server that imported
    ``SERVER_MODULES`` (the fork server skips a module it cannot import without a word, so a
    misspelt name would only show as a slow start). In a fresh process that imports them, the
    worker preload (``warm``) and a replay import nothing more."""
    code = f"""
import importlib, sys
from scenario_builder import montecarlo as mc
for name in mc.SERVER_MODULES:
    importlib.import_module(name)
before = set(sys.modules)
path = {str(Path("data/scenarios/flodden_1513.yaml").resolve())!r}
mc.warm(path, {str(flodden_dir)!r})
mc.replay(path, {str(flodden_dir)!r}, 1)
print(sorted(set(sys.modules) - before))
"""
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
