"""battle_log.json written by orjson, byte for byte as the json module wrote it.

The reference (``tests/reference/log_json.py``) is the older, slower writer (every event through a
loop over ``dataclasses.fields`` with ``_round`` on each value, every snapshot rounded in a walk at
write time, ``json.dumps`` with sorted keys, compact separators and ``allow_nan=False``). The fast
writer must give its bytes on real battles, and take the json module's path for whatever orjson
would write otherwise (floats it formats apart, NaN, non-str keys, unknown types). The known answers
(tests/test_known_answers.py) pin the same bytes by their sha256.
"""

from __future__ import annotations

import json
import math
import random
import struct
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import engine.log as log_module
from engine.battle import Battle
from engine.dice import Dice, DiceResult
from engine.log import (
    BattleLog,
    BoundRecord,
    Moved,
    PanicTest,
    _encode,
    _json_dumps,
    _plain,
    _round,
    dumps,
    round_for_log,
)
from engine.orders import InstantDelivery
from engine.scenario import load_scenario
from tests.reference import log_json as log_json_ref

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench_engine import last_stand, scenario


def _fast_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the json module's path fail, so a test sees the orjson path wrote the log."""

    def refuse(obj: Any) -> str:
        raise AssertionError("the log went down the json path")

    monkeypatch.setattr(log_module, "_json_dumps", refuse)


@pytest.mark.parametrize(
    ("scenario_id", "seed", "ruleset", "bounds"),
    [
        ("flodden_1513", 1, None, 12),
        ("flodden_1513", 7, None, 12),
        ("teutoburg_ad9", 1, "dark-age", 8),
        ("flodden_1513", 1, "2mm-earth-v0.9+wc-morale", 10),
        ("flodden_1513", 1, "medieval-d10", 6),
    ],
)
def test_shipped_battles_write_the_reference_bytes_by_orjson(
    scenario_id: str,
    seed: int,
    ruleset: str | None,
    bounds: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scenario_builder.battle import build_battlefield

    sc = load_scenario(scenario_id)
    bf = build_battlefield(sc).battlefield
    kw = {"ruleset": ruleset} if ruleset is not None else {}
    log = Battle(bf, sc, Dice(seed), **kw).run(bounds)
    want = log_json_ref.battle_log_json(log)
    assert all(b.plain for b in log.bounds)
    _fast_only(monkeypatch)
    got = log.to_bytes()
    assert got == want
    assert log.to_json() == want.decode("ascii")


def test_benchmark_battle_writes_the_reference_bytes(built_minden: Any) -> None:
    # messengers in flight (routes of floats), the last-stand pursuit's routs and rallies
    bf = built_minden.battlefield
    sc = last_stand(scenario(bf, per_side=10))
    for seed in (3, 11):
        log = Battle(bf, sc, Dice(seed)).run(20)
        assert log.to_bytes() == log_json_ref.battle_log_json(log)
    log = Battle(bf, sc, Dice(5), delivery=InstantDelivery()).run(20)
    assert log.to_bytes() == log_json_ref.battle_log_json(log)


def test_the_record_holds_what_the_file_holds(built_minden: Any) -> None:
    # rounding at record time: a snapshot rounded again is itself (the writer's walk is gone)
    bf = built_minden.battlefield
    log = Battle(bf, last_stand(scenario(bf, per_side=6)), Dice(2)).run(10)
    for record in log.bounds:
        assert record.plain
        assert _round(record.snapshot) == record.snapshot
        assert json.loads(json.dumps(record.snapshot)) == record.snapshot  # plain JSON values


def _floats() -> list[float]:
    rng = random.Random(33)
    out = [0.0, -0.0, 1e-4, -1e-4, 1.0000000000000001e-4, 9.999999999999999e15, 1e15, 5e-324]
    out += [math.nextafter(1e-4, 1.0), math.nextafter(1e16, 0.0), 0.1, 0.01, 123.45, 1e-3]
    for _ in range(20_000):
        v = rng.uniform(-1.0, 1.0) * 10.0 ** rng.randint(-8, 18)
        out += [v, round(v, 2), round(v, 1)]
    for _ in range(5_000):  # any bit pattern, NaN and infinity among them
        out.append(struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0])
    return out


def test_a_plain_float_is_written_as_json_writes_it() -> None:
    plain = 0
    for v in _floats():
        if _plain(v):
            plain += 1
            assert _encode([v]).decode() == _json_dumps([v]), v
        if math.isfinite(v):
            assert dumps([v]) == _json_dumps([v]), v
    assert plain > 30_000


def test_a_float_orjson_writes_apart_is_not_plain() -> None:
    # the edges of the range where repr and orjson agree, and the values json refuses
    for v in (1e-5, 9.9e-5, 1e16, -2e16, 1.7976931348623157e308, math.nan, math.inf):
        assert not _plain(v)
    for v in (1e-5, 2e16):
        assert dumps({"v": v}) == _json_dumps({"v": v})
    with pytest.raises(ValueError):
        dumps([math.nan])


@pytest.mark.parametrize(
    "text", ["Mael\u00f0on", "\x7f", '\x00\x01\x1f\t\n\r\b\f"\\/', "\U0001f600 r\u00e9", "\u2028"]
)
def test_strings_are_escaped_as_json_escapes_them(text: str) -> None:
    obj = {text: [text, {"k": text}], "plain": "ascii"}
    assert _encode(obj).decode("ascii") == _json_dumps(obj)
    assert dumps(obj) == _json_dumps(obj)


def _one_bound_log(snapshot: dict[str, Any], events: list[Any], plain: bool) -> BattleLog:
    log = BattleLog({"scenario": "t", "bases": [{"id": "a", "x": 1.234}]})
    log.bounds.append(BoundRecord(1, events, snapshot, plain=plain))
    log.result = {"winner": None, "broken": {"red": 0.333}}
    return log


def test_what_orjson_cannot_vouch_for_goes_down_the_json_path() -> None:
    roll = DiceResult("panic f1", (3, 4))
    moved = Moved("moves", "f1", (0.0, 0.0), (3.14159, 100.004), 90.06, 100.004, 100.0)
    panic = PanicTest("morale", "f1", ("shot", 1.234), 5, 7, "steady", roll)
    cases: list[tuple[dict[str, Any], list[Any]]] = [
        ({"bases": {"a": {"x": 1.5e16, "y": 2.0}}}, [moved]),  # json writes 1.5e+16
        ({"bases": {"a": {"x": np.float64(1.25), "y": 2.0}}}, [panic]),  # a numpy float
        ({"losses": {1: 0}, "seen": {"red": ("f1",)}}, [moved]),  # an int key, a tuple
        ({}, [Moved("m", "f", (0.0, 3e17), (1.0, 2.0), 0.0, 1.0, 1.0)]),
        ({}, [Moved("m", "f", (0.0, 0.0), (1.0, 2.0), np.float64(0.5), 1.0, 1.0)]),
        ({"messengers": [{"route": [[1.23456, 2.0]], "cost_m": 12.345}]}, [panic]),
    ]
    for snap, events in cases:
        # as another producer leaves it (rounded on the way out) and as the battle records it
        for stored, plain in ((snap, False), round_for_log(snap)):
            log = _one_bound_log(stored, events, plain)
            assert log.to_bytes() == log_json_ref.battle_log_json(log), (snap, events)
    log = _one_bound_log({}, [moved, panic], True)
    log.result = {"broken": {"red": 1e-5}}  # unrounded, below orjson's positional range
    assert log.to_bytes() == log_json_ref.battle_log_json(log)


def test_nan_in_the_record_is_refused_as_json_refused_it() -> None:
    stored, plain = round_for_log({"bases": {"a": {"x": math.nan}}})
    assert not plain
    with pytest.raises(ValueError, match="JSON compliant"):
        _one_bound_log(stored, [], plain).to_bytes()
    nan_move = Moved("m", "f", (0.0, 0.0), (1.0, 2.0), 0.0, math.inf, 1.0)
    with pytest.raises(ValueError, match="JSON compliant"):
        _one_bound_log({}, [nan_move], True).to_bytes()


def test_the_generated_to_dict_is_the_generic_one() -> None:
    roll = DiceResult("panic f1", (3, 4), sides=10)
    for e in (
        Moved("moves", "f1", (0.0, 0.0), (3.14159, 100.004), 90.06, 100.004, 100.0, "blocked"),
        PanicTest("morale", "f1", ("shot", 1.234, (2.345, "x")), 5, 7, "steady", roll),
        PanicTest("morale", "f1", (), 5, 7, "steady"),  # no dice: the key left out
        Moved("m", "f", [1.234, {"angle": 1.26}], (1, 2), 7, 1.005, True),  # types as they come
    ):
        assert e.to_dict() == log_json_ref.event_to_dict(e)
        assert list(e.to_dict()) == list(log_json_ref.event_to_dict(e))
