"""Dice throughput: ``Dice.roll``, ``roll_attack``, ``panic_test`` (both rulesets), beside the
PERFORMANCE.md anchor (bare ``random.Random``; numpy one-call-per-roll).

Run with pytest-benchmark:   python -m pytest benchmarks/bench_dice.py --benchmark-enable
or as a script for a rolls/s report:   python benchmarks/bench_dice.py
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.rulesets.two_mm_earth.resolution import panic_test, roll_attack

BATCH = 10_000


def _roll_batch(dice: Dice) -> None:
    for _ in range(BATCH):
        dice.roll(1, "bench")
    dice.history.clear()


def _attack_batch(dice: Dice) -> None:
    for _ in range(BATCH):
        roll_attack(dice, 3, 4, -1, "bench")
    dice.history.clear()


def _panic_batch(dice: Dice) -> None:
    for _ in range(BATCH):
        panic_test(dice, 4, 1, -1, False, "bench")
    dice.history.clear()


def _v07_batch(dice: Dice) -> None:
    rs = get_ruleset("2mm-earth-v0.7")
    for _ in range(BATCH):
        rs.panic_test(dice, 4, 1, 0, False, "bench", seen_fleeing=1)
    dice.history.clear()


def _anchor_batch(rng: random.Random) -> None:
    r = rng.random
    for _ in range(BATCH):
        int(r() * 6) + 1


def test_bench_dice_roll(benchmark) -> None:
    benchmark(_roll_batch, Dice(1))


def test_bench_roll_attack(benchmark) -> None:
    benchmark(_attack_batch, Dice(1))


def test_bench_panic_test(benchmark) -> None:
    benchmark(_panic_batch, Dice(1))


def test_bench_panic_test_v07(benchmark) -> None:
    benchmark(_v07_batch, Dice(1))


def test_bench_anchor_random(benchmark) -> None:
    benchmark(_anchor_batch, random.Random(1))


def _rate(fn: Callable[[], None], per_batch: int, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return per_batch / sorted(times)[len(times) // 2]


def main() -> None:
    import numpy as np

    gen = np.random.default_rng(1)

    def numpy_one_call() -> None:
        for _ in range(BATCH):
            gen.integers(1, 7)

    rows = [
        (
            "anchor: random.Random, int(random()*6)+1",
            _rate(lambda: _anchor_batch(random.Random(1)), BATCH),
            "dice/s",
        ),
        ("anchor: numpy Generator.integers per roll", _rate(numpy_one_call, BATCH), "dice/s"),
        ("Dice.roll(1)", _rate(lambda: _roll_batch(Dice(1)), BATCH), "rolls/s"),
        ("roll_attack 3 dice", _rate(lambda: _attack_batch(Dice(1)), BATCH), "attacks/s"),
        ("panic_test v0.9 (2 dice)", _rate(lambda: _panic_batch(Dice(1)), BATCH), "tests/s"),
        ("panic_test v0.7 (1 die)", _rate(lambda: _v07_batch(Dice(1)), BATCH), "tests/s"),
    ]
    for name, rate, unit in rows:
        print(f"{name:45s} {rate / 1e6:6.2f} M {unit}")


if __name__ == "__main__":
    main()
