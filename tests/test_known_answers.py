"""Known-answer battles (STYLE.md item 7): scenario + seed -> the same battle, byte for byte.

Every file in ``tests/known_answers/`` is one case: a shipped scenario fought exactly as
``scenario-builder run SCENARIO --seed N`` fights it, or the engine benchmark's scenario at a
small size. Each holds the sha256 of the ``battle_log.json`` bytes, the winner, bounds, losses per
side and the morale of every formation at the end. A speed-up must leave them all unchanged; a
rules change that alters outcomes shows here first.

After a *deliberate* rules change, regenerate them and commit the new files with the reason::

    python benchmarks/regen_known_answers.py              # every case
    python benchmarks/regen_known_answers.py teutoburg_ad9_seed7

(the cases and the answer format are in ``benchmarks/known_answers.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from known_answers import ANSWERS, cases, differences, path_of

CASES = cases()


def test_every_answer_file_has_a_case() -> None:
    files = sorted(p.stem for p in ANSWERS.glob("*.json"))
    assert files == sorted(CASES), "tests/known_answers/ and benchmarks/known_answers.py disagree"


# Gettysburg's battles (the largest ground, 7.5 m cells, and the longest fights) are pinned in the
# full run; every other case runs in the quick lane too.
HEAVY = ("gettysburg_1863_day2",)


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.slow) if c.startswith(HEAVY) else c for c in sorted(CASES)],
)
def test_known_answer(case: str) -> None:
    path = path_of(case)
    assert path.exists(), f"{path} missing: run python benchmarks/regen_known_answers.py {case}"
    expected = json.loads(path.read_text(encoding="utf-8"))
    got = CASES[case]()
    changed = differences(expected, got)
    assert not changed, (
        f"{case} fought differently from {path.name}:\n  "
        + "\n  ".join(changed)
        + "\n(a deliberate rules change? python benchmarks/regen_known_answers.py "
        + case
        + ")"
    )
