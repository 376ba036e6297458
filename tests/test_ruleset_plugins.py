"""Rulesets as plug-ins: a rulebook in a package of its own, found through the entry-point group
``scenario_builder.rulesets`` (engine.rulesets.load_plugins). The toy package in
``tests/data/plugin_ruleset`` is installed into a fresh venv (which sees this install's
packages), where the CLI lists it, ``check_ruleset`` passes on it and a battle is fought under
it on shipped ground; a broken plug-in is left out with one warning line, never a traceback.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

TOY = Path(__file__).parent / "data" / "plugin_ruleset"


@pytest.fixture(scope="module")
def toy_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plugin")
    env_dir = root / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    # installed as pip lays a wheel out (the package, and a dist-info with its entry points),
    # without building one: no build backend or download at test time
    site = _site(py)
    shutil.copytree(TOY / "toy_ruleset", site / "toy_ruleset")
    dist = site / "toy_ruleset-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-ruleset\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text(
        "[scenario_builder.rulesets]\ntoy = toy_ruleset:ToyRuleset\n"
    )
    return py


def _site(py: Path) -> Path:
    out = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


def _run(py: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(py), "-c", code], capture_output=True, text=True, timeout=600, cwd=cwd
    )


def test_an_installed_plugin_is_listed_checked_and_fought(toy_venv: Path, tmp_path: Path) -> None:
    code = """
from engine.rulesets import available_rulesets, get_ruleset
from engine.scenario import load_scenario
from engine.testing import check_ruleset
from scenario_builder.battle import build_battlefield, fight
assert "toy-2mm-plugin" in available_rulesets(), available_rulesets()
rs = get_ruleset("toy-2mm-plugin")
print(type(rs).__module__)
from engine.testing import attack_everything
sc = load_scenario("teutoburg_ad9")
built = build_battlefield(sc)
# the invariants every bound (its hooks are v0.9's, checked in tests/test_engine_battle.py)
report = check_ruleset(
    "toy-2mm-plugin", attack_everything(sc), seed=3, battlefield=built.battlefield, hooks=False
)
assert report.result is not None and report.bounds >= 1
log, _ = fight(sc, built, 3, ruleset="toy-2mm-plugin", max_bounds=4)
print(log.header["ruleset"], len(log.bounds))
"""
    done = _run(toy_venv, code, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.split()
    assert lines[0] == "toy_ruleset" and lines[1] == "toy-2mm-plugin" and int(lines[2]) >= 2
    listed = subprocess.run(
        [str(toy_venv), "-m", "scenario_builder", "rulesets"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert listed.returncode == 0 and "toy-2mm-plugin" in listed.stdout, listed.stderr
    # its odds question: an option of its own on the one command, bounds checked, answered
    odds = [str(toy_venv), "-m", "scenario_builder", "odds"]
    helped = subprocess.run([*odds, "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert "--toy-need" in helped.stdout and "--arming" in helped.stdout, helped.stderr
    asked = subprocess.run(
        [*odds, "--ruleset", "toy-2mm-plugin", "--toy-need", "5", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout) == {
        "mode": "toy-need",
        "need": 5,
        "p": 1 / 3,
        "fraction": "1/3",
    }
    out_of_range = subprocess.run(
        [*odds, "--toy-need", "9"], capture_output=True, text=True, cwd=tmp_path
    )
    assert out_of_range.returncode == 1
    assert out_of_range.stderr.strip() == "Error: odds: expected --toy-need 1..6, got 9"


def test_a_broken_plugin_is_left_out_with_one_warning(toy_venv: Path, tmp_path: Path) -> None:
    # an entry point whose module does not import: the shipped rulesets still work
    dist = _site(toy_venv) / "broken_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[scenario_builder.rulesets]\nbroken = no_such_module_here:Ruleset\n"
    )
    code = """
import warnings
warnings.simplefilter("ignore", RuntimeWarning)
from engine.rulesets import load_plugins, get_ruleset
said = load_plugins()
print(len(said)); print(said[0] if said else "")
print(get_ruleset("2mm-earth-v0.9").name)
"""
    done = _run(
        toy_venv, code.replace('warnings.simplefilter("error", RuntimeWarning)', ""), tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout.splitlines()
    assert out[0] == "1" and "ruleset plug-in 'broken'" in out[1] and "not loaded" in out[1]
    assert out[2] == "2mm-earth-v0.9"
    shutil.rmtree(dist)
