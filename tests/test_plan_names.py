"""Every name in a scenario's plan is checked at load time (file, line, nearest name).

Before, a typo in a trigger's or an objective's formation list, or ``objective_taken: nowhere``,
loaded and ran with exit 0: the trigger never fired. The fuzz test takes every shipped scenario,
puts a wrong name into one name slot of its deployment or plans (or adds one to a trigger's
condition), and requires a one-line ScenarioFileError naming the file, the slot's line and the
wrong name. The second does the same to plan files (``plan: plans/x.yaml``): the shipped ones and
one using every slot a plan has (formation plans' formations, arrival edges and points,
waypoints, steps, hold-fire and feint names, trigger ids); the error names the plan file.
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

from engine.scenario import Scenario, load_scenario, unknown_name
from engine.yamlio import load_yaml_with_lines
from scenario_builder.errors import ScenarioFileError
from scenario_builder.paths import data_dir

# libyaml's loader and dumper where PyYAML has them: the fuzz's own cost, not the code's
LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
SCENARIOS = {
    p.name: yaml.load(p.read_text(), Loader=LOADER)
    for p in (data_dir() / "scenarios").glob("*.yaml")
}
WHEN_KEYS = ("formation", "routs", "objective_taken")


def _slots(data: dict[str, Any]) -> list[tuple[str | int, ...]]:
    """Key paths of every name the plans and the deployment refer to, plus trigger conditions
    that could name one (added by the test)."""
    out: list[tuple[str | int, ...]] = []
    for si, side in enumerate(data["sides"]):
        at = ("sides", si)
        for ci, c in enumerate(side.get("characters", [])):
            if "formation" in c:
                out.append((*at, "characters", ci, "formation"))
        for fi, f in enumerate(side.get("formations", [])):
            if "target_formation" in f:
                out.append((*at, "formations", fi, "target_formation"))
        plan = side.get("plan") or {}
        if isinstance(plan, str):
            continue  # a plan file: its names are fuzzed by the plan-file test below
        for oi, ob in enumerate(plan.get("objectives", [])):
            out += [
                (*at, "plan", "objectives", oi, "formations", k)
                for k in range(len(ob.get("formations", [])))
            ]
        for ti, trig in enumerate(plan.get("triggers", [])):
            tl = (*at, "plan", "triggers", ti)
            out += [(*tl, "formations", k) for k in range(len(trig.get("formations", [])))]
            if "target_formation" in trig:
                out.append((*tl, "target_formation"))
            out += [(*tl, "when", key) for key in WHEN_KEYS]
    return out


def _names(data: dict[str, Any]) -> set[str]:
    names = {s["id"] for s in data["sides"]}
    for s in data["sides"]:
        names |= {f["id"] for f in s.get("formations", [])}
        names |= {c["id"] for c in s.get("characters", [])}
        plan = s.get("plan") or {}
        if isinstance(plan, dict):
            names |= {o["id"] for o in plan.get("objectives", [])}
    return names


def _put(data: dict[str, Any], path: tuple[str | int, ...], value: str) -> None:
    node: Any = data
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value


ID = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=14)


def _near_miss(name: str) -> st.SearchStrategy[str]:
    """One edit away from a real name: the typo a user makes."""
    n = len(name)
    return st.one_of(
        st.integers(0, n - 1).map(lambda i: name[:i] + name[i + 1 :]),
        st.tuples(st.integers(0, n), st.sampled_from("aeiorstx_1")).map(
            lambda t: name[: t[0]] + t[1] + name[t[0] :]
        ),
    )


@st.composite
def broken(draw: st.DrawFn) -> tuple[str, dict[str, Any], tuple[str | int, ...], str]:
    name = draw(st.sampled_from(sorted(SCENARIOS)))
    data = copy.deepcopy(SCENARIOS[name])
    slot = draw(st.sampled_from(_slots(data)))
    known = _names(data)
    wrong = draw(st.one_of(ID, st.sampled_from(sorted(known)).flatmap(_near_miss)))
    wrong = wrong.strip("_") or "x"
    if wrong in known:
        wrong = wrong + "_typo"
    _put(data, slot, wrong)
    return name, data, slot, wrong


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken())
def test_a_wrong_name_in_any_plan_fails_at_load_time_with_one_line(case: Any) -> None:
    name, data, slot, wrong = case
    text = yaml.dump(data, Dumper=DUMPER, sort_keys=False, allow_unicode=True)
    _, lines = load_yaml_with_lines(text)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ScenarioFileError) as err:
            load_scenario(path, check_armies=False)
    msg = str(err.value)
    assert "\n" not in msg, msg
    field = ".".join(str(x) for x in slot)
    assert msg.startswith(f"{path}: line {lines[slot]}: {field}: expected "), msg
    assert f"got {wrong!r}" in msg, msg


def test_objective_taken_nowhere_names_the_line_and_the_objectives(tmp_path: Path) -> None:
    src = data_dir() / "scenarios" / "teutoburg_ad9.yaml"
    text = src.read_text().replace(
        "- {when: {bound: 3}, order: attack",
        "- {when: {bound: 3, objective_taken: nowhere}, order: attack",
    )
    assert "nowhere" in text
    path = tmp_path / "teutoburg_ad9.yaml"
    path.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "nowhere" in t)
    with pytest.raises(ScenarioFileError) as err:
        load_scenario(path, check_armies=False)
    assert str(err.value) == (
        f"{path}: line {line}: sides.1.plan.triggers.1.when.objective_taken: expected an "
        "objective of side germans (block_the_narrows, hold_the_wall), got 'nowhere'"
    )


def test_a_typo_suggests_the_nearest_formation(tmp_path: Path) -> None:
    src = data_dir() / "scenarios" / "teutoburg_ad9.yaml"
    text = src.read_text().replace("formations: [rm_alae]}", "formations: [rm_ale]}")
    path = tmp_path / "t.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioFileError, match=r"got 'rm_ale' \(did you mean 'rm_alae'\?\)$"):
        load_scenario(path, check_armies=False)


def test_target_formation_must_be_an_enemy() -> None:
    data = copy.deepcopy(SCENARIOS["teutoburg_ad9.yaml"])
    data["sides"][0]["plan"]["triggers"][0]["target_formation"] = "rm_leg_xviii"  # own legion
    with pytest.raises(ValueError, match="an enemy formation of side romans"):
        Scenario.model_validate(data)


def test_shipped_scenarios_have_no_unknown_names() -> None:
    for name, data in SCENARIOS.items():
        assert list(Scenario.model_validate(data).name_problems()) == [], name


def test_unknown_name_lists_valid_names_when_nothing_is_close() -> None:
    assert unknown_name("a formation", "zzz", [f"f{i}" for i in range(10)]).endswith(
        "(f0, f1, f2, f3, f4, f5, f6, f7, ...), got 'zzz'"
    )


# -- plan files ----------------------------------------------------------------------------------

PLAN_FILES: dict[str, tuple[str, str, dict[str, Any]]] = {}  # name -> (scenario, side, plan)
for _name, _scen in SCENARIOS.items():
    for _si, _side in enumerate(_scen["sides"]):
        if isinstance(_side.get("plan"), str):
            _p = data_dir() / "scenarios" / _side["plan"]
            PLAN_FILES[_p.name] = (_name, _side["id"], yaml.safe_load(_p.read_text()))
_EVERY = Path(__file__).parent / "data" / "plans" / "chacabuco_every_field.yaml"
PLAN_FILES[_EVERY.name] = ("chacabuco_1817.yaml", "patriots", yaml.safe_load(_EVERY.read_text()))
COND_KEYS = (*WHEN_KEYS, "trigger_fired")


def _plan_slots(plan: dict[str, Any]) -> list[tuple[str | int, ...]]:
    """Key paths (from the plan's root) of every name a plan file refers to, plus condition
    keys that could name one (added by the test)."""
    out: list[tuple[str | int, ...]] = []
    for oi, ob in enumerate(plan.get("objectives", [])):
        out += [("objectives", oi, "formations", k) for k in range(len(ob.get("formations", [])))]
    for ti, trig in enumerate(plan.get("triggers", [])):
        tl = ("triggers", ti)
        out += [(*tl, "formations", k) for k in range(len(trig.get("formations", [])))]
        if "target_formation" in trig:
            out.append((*tl, "target_formation"))
        out += [(*tl, "when", key) for key in COND_KEYS]
    for fi, fp in enumerate(plan.get("formations", [])):
        fl = ("formations", fi)
        out.append((*fl, "formation"))
        if "arrives" in fp:
            out.append((*fl, "arrives", "edge"))
            if isinstance(fp["arrives"].get("point"), str):
                out.append((*fl, "arrives", "point"))
        out += [
            (*fl, "waypoints", k)
            for k, w in enumerate(fp.get("waypoints", []))
            if isinstance(w, str)
        ]
        for k, step in enumerate(fp.get("steps", [])):
            for key in ("objective", "target_formation"):
                if key in step:
                    out.append((*fl, "steps", k, key))
            if isinstance(step.get("point"), str):
                out.append((*fl, "steps", k, "point"))
        if "hold_fire" in fp:
            out += [(*fl, "hold_fire", "until", key) for key in COND_KEYS]
        if isinstance((fp.get("feint") or {}).get("point"), str):
            out.append((*fl, "feint", "point"))
    return out


def _plan_names(scen: dict[str, Any], plan: dict[str, Any]) -> set[str]:
    names = _names(scen) | set(plan.get("points", {})) | {"north", "south", "east", "west"}
    names |= {o["id"] for o in plan.get("objectives", [])}
    names |= {t["id"] for t in plan.get("triggers", []) if "id" in t}
    return names


@st.composite
def broken_plan(draw: st.DrawFn) -> tuple[str, str, dict[str, Any], tuple[str | int, ...], str]:
    plan_name = draw(st.sampled_from(sorted(PLAN_FILES)))
    scen_name, side, plan0 = PLAN_FILES[plan_name]
    plan = copy.deepcopy(plan0)
    slot = draw(st.sampled_from(_plan_slots(plan)))
    known = _plan_names(SCENARIOS[scen_name], plan)
    wrong = draw(st.one_of(ID, st.sampled_from(sorted(known)).flatmap(_near_miss)))
    wrong = wrong.strip("_") or "x"
    if wrong in known:
        wrong = wrong + "_typo"
    _put(plan, slot, wrong)
    return scen_name, side, plan, slot, wrong


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken_plan())
def test_a_wrong_name_in_a_plan_file_fails_at_load_time_with_one_line(case: Any) -> None:
    scen_name, side, plan, slot, wrong = case
    data = copy.deepcopy(SCENARIOS[scen_name])
    for s in data["sides"]:
        if s["id"] == side:
            s["plan"] = "plans/the_plan.yaml"
    text = yaml.safe_dump(plan, sort_keys=False, allow_unicode=True)
    _, lines = load_yaml_with_lines(text)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / scen_name
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")
        (Path(d) / "plans").mkdir()
        plan_path = Path(d) / "plans" / "the_plan.yaml"
        plan_path.write_text(text, encoding="utf-8")
        with pytest.raises(ScenarioFileError) as err:
            load_scenario(path, check_armies=False)
    msg = str(err.value)
    assert "\n" not in msg, msg
    field = ".".join(str(x) for x in slot)
    assert msg.startswith(f"{plan_path}: line {lines[slot]}: {field}: "), msg
    assert f"got {wrong!r}" in msg, msg


def test_every_plan_file_used_by_the_fuzz_loads() -> None:
    """The fuzz starts from plans that load: a failure there is the wrong name's."""
    for plan_name, (scen_name, side, plan) in PLAN_FILES.items():
        data = copy.deepcopy(SCENARIOS[scen_name])
        for s in data["sides"]:
            if s["id"] == side:
                s["plan"] = plan
        sc = Scenario.model_validate(data)
        assert sc.plan_of(side) is not None, plan_name
