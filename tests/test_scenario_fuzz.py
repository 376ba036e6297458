"""Scenario loader: fuzzed for clean errors (hypothesis) and load -> save -> load round-trips.

Every shipped scenario is the seed of the fuzzing: a random field is deleted or replaced by a
value of the wrong shape, or the text is truncated or corrupted. Whatever happens, the loader
either returns a Scenario or raises a ScenarioError naming the file; never another exception.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.scenario import Scenario, load_scenario
from scenario_builder.errors import ScenarioError
from scenario_builder.paths import data_dir

SCENARIOS = sorted((data_dir() / "scenarios").glob("*.yaml"))
TEXTS = {p.name: p.read_text() for p in SCENARIOS}

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


def _load_text(text: str) -> Scenario | None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fuzzed.yaml"
        path.write_text(text)
        try:
            return load_scenario(path)
        except ScenarioError as exc:
            assert "fuzzed.yaml" in str(exc), f"error does not name the file: {exc}"
            assert "\n" not in str(exc).strip(), f"error is not one line: {exc!r}"
            return None


def test_there_are_shipped_scenarios() -> None:
    assert len(SCENARIOS) >= 2


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_load_save_load_round_trips(path: Path, tmp_path: Path) -> None:
    first = load_scenario(path)
    out = tmp_path / path.name
    first.save(out)
    second = load_scenario(out)
    assert second == first
    # a plan file is written relative to the new folder: the same file, another path
    for side in first.sides:
        if first.plan_file(side.id) is not None:
            again = second.plan_file(side.id)
            assert again is not None and again.resolve() == first.plan_file(side.id).resolve()
            second.side(side.id).plan = side.plan
    assert second.to_yaml() == first.to_yaml()


@pytest.mark.slow  # 150 validations of real scenarios: ~3 min on 2 loaded cores
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(TEXTS)), st.data())
def test_fuzzed_fields_give_clean_errors(name: str, data: st.DataObject) -> None:
    doc = yaml.safe_load(TEXTS[name])
    mutated = copy.deepcopy(doc)
    path = data.draw(st.sampled_from(_paths(mutated)[1:]))
    parent = mutated
    for key in path[:-1]:
        parent = parent[key]
    if data.draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(junk)
    _load_text(yaml.safe_dump(mutated, sort_keys=False))


@pytest.mark.slow  # 80 examples: ~30 s on 2 loaded cores
@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(TEXTS)), st.data())
def test_fuzzed_text_gives_clean_errors(name: str, data: st.DataObject) -> None:
    text = TEXTS[name]
    cut = data.draw(st.integers(0, len(text)))
    noise = data.draw(st.text(alphabet=":-[]{}\t\"'&*!|>%@`#\n ", max_size=6))
    _load_text(text[:cut] + noise + text[cut + len(noise) :])


def test_error_names_line_and_field(tmp_path: Path) -> None:
    text = TEXTS["flodden_1513.yaml"].replace("max_bounds:", "max_bounds: -5\nold_max_bounds:", 1)
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    msg = str(info.value)
    assert "bad.yaml" in msg and "line" in msg
