"""Known-answer battles (STYLE.md item 7, python-chess perft style): scenario + seed -> outcome.

Each case is fought exactly as ``scenario-builder run SCENARIO --seed N`` fights it
(:func:`scenario_builder.battle.build_battlefield` + :func:`scenario_builder.battle.fight`),
plus the engine benchmark's scenario (benchmarks/bench_engine.py) at a small size: decided (with
messengers) and fought to the last for 30 bounds (instant orders). The answer is
the sha256 of the ``battle_log.json`` bytes, the winner, bounds, losses per side and the morale of
every formation at the end; ``tests/known_answers/<case>.json`` holds one per case.

Regenerate after a deliberate rules change (and say why in the commit)::

    python benchmarks/regen_known_answers.py            # every case
    python benchmarks/regen_known_answers.py flodden_1513_seed7
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ROOT / "tests" / "known_answers"
SCENARIOS = ("flodden_1513", "teutoburg_ad9", "gettysburg_1863_day2", "towton_1461")
SEEDS = (1, 7)
BENCH_FORMATIONS = 8  # per side: small, so the case takes about a second
BENCH_SEED = 3
#: (scenario, ruleset, seed): shipped scenarios fought under another registered ruleset
OTHER_RULESETS = (
    ("flodden_1513", "medieval-d10", 1),
    ("flodden_1513", "2mm-earth-v0.7", 1),
    ("teutoburg_ad9", "2mm-earth-v0.7", 1),
)
LAST_STAND_FORMATIONS = 20  # per side, fought to the last for 30 bounds with instant orders
#: composed rulesets (engine/rulesets/compose.py), each on a shipped scenario: case -> (scenario,
#: ruleset), fought as ``scenario-builder run SCENARIO --ruleset RULESET --seed 1``
COMPOSED = {
    "flodden_1513_wc-morale": ("flodden_1513", "2mm-earth-v0.9+wc-morale"),
    "teutoburg_ad9_dark-age": ("teutoburg_ad9", "dark-age"),
    # the Dark Age battle on real ground, under its own ruleset
    "maldon_991_dark-age": ("maldon_991", "dark-age"),
}


@cache
def _built(slug_or_id: str) -> Any:
    from engine.scenario import load_scenario
    from scenario_builder.battle import build_battlefield

    return build_battlefield(load_scenario(slug_or_id))


def _scenario_case(scenario_id: str, seed: int, ruleset: str | None = None) -> dict[str, Any]:
    from engine.scenario import load_scenario
    from scenario_builder.battle import fight

    sc = load_scenario(scenario_id)
    log, _ = fight(sc, _built(scenario_id), seed, ruleset=ruleset)
    head: dict[str, Any] = {"scenario": scenario_id, "seed": seed}
    if ruleset is not None:
        head["ruleset"] = ruleset
    return _answer(log, head)


@cache
def _minden() -> Any:
    """Minden built once per process (the benchmark's ground for every bench case)."""
    from scenario_builder.build import build_site

    return build_site("minden").battlefield


def _bench_case(seed: int) -> dict[str, Any]:
    import bench_engine  # benchmarks/ is on sys.path when this module is imported from there

    from engine.battle import Battle
    from engine.dice import Dice

    bf = _minden()
    sc = bench_engine.scenario(bf, per_side=BENCH_FORMATIONS)
    battle = Battle(bf, sc, Dice(seed))  # messengers, as a scenario without --orders runs
    log = battle.run()
    return _answer(log, {"scenario": f"bench_engine x{BENCH_FORMATIONS}", "seed": seed})


def _last_stand_case(seed: int) -> dict[str, Any]:
    import bench_engine

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = _minden()
    sc = bench_engine.last_stand(bench_engine.scenario(bf, per_side=LAST_STAND_FORMATIONS))
    battle = Battle(bf, sc, Dice(seed), delivery=InstantDelivery())
    log = battle.run(bench_engine.BOUNDS)
    return _answer(
        log, {"scenario": f"bench_engine x{LAST_STAND_FORMATIONS} to the last", "seed": seed}
    )


def _answer(log: Any, head: dict[str, Any]) -> dict[str, Any]:
    text = log.to_json()
    result = log.result or {}
    last = log.bounds[-1].snapshot
    return {
        **head,
        "log_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "log_bytes": len(text.encode("utf-8")),
        "winner": result.get("winner"),
        "bounds": result.get("bounds"),
        "reason": result.get("reason"),
        "losses": result.get("losses"),
        "morale": {fid: f["morale"] for fid, f in sorted(last["formations"].items())},
    }


def cases() -> dict[str, Callable[[], dict[str, Any]]]:
    """Case name -> a function fighting it and returning its answer."""
    out: dict[str, Callable[[], dict[str, Any]]] = {}
    for sid in SCENARIOS:
        for seed in SEEDS:
            out[f"{sid}_seed{seed}"] = lambda sid=sid, seed=seed: _scenario_case(sid, seed)
    for case, (sid, ruleset) in COMPOSED.items():
        out[f"{case}_seed1"] = lambda sid=sid, ruleset=ruleset: _scenario_case(sid, 1, ruleset)
    for sid, rs, seed in OTHER_RULESETS:
        out[f"{sid}_{rs.replace('-', '_')}_seed{seed}"] = lambda sid=sid, rs=rs, seed=seed: (
            _scenario_case(sid, seed, rs)
        )
    out[f"bench_engine_x{BENCH_FORMATIONS}_seed{BENCH_SEED}"] = lambda: _bench_case(BENCH_SEED)
    out[f"bench_engine_x{LAST_STAND_FORMATIONS}_last_stand_seed{BENCH_SEED}"] = lambda: (
        _last_stand_case(BENCH_SEED)
    )
    return out


def path_of(case: str) -> Path:
    return ANSWERS / f"{case}.json"


def to_text(answer: dict[str, Any]) -> str:
    return json.dumps(answer, sort_keys=True, indent=1) + "\n"


def differences(expected: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """What changed, one line per field, the morale of each formation separately."""
    out: list[str] = []
    for key in sorted(set(expected) | set(got)):
        if key == "morale":
            continue
        if expected.get(key) != got.get(key):
            out.append(f"{key}: expected {expected.get(key)!r}, got {got.get(key)!r}")
    em, gm = expected.get("morale", {}), got.get("morale", {})
    for fid in sorted(set(em) | set(gm)):
        if em.get(fid) != gm.get(fid):
            out.append(f"morale of {fid}: expected {em.get(fid)!r}, got {gm.get(fid)!r}")
    return out
