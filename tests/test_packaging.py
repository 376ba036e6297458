"""Packaging: the wheel carries every package and the whole data/ folder.

``pyproject.toml`` lists its packages (find cannot rename data/ to scenario_builder_data), so a
new package folder must be added there; these checks fail when one is missing. The wheel itself
is built, installed into a fresh venv (which sees the installed dependencies, not the package)
and run from an empty folder by ``.ci/run``.
"""

from __future__ import annotations

import glob
import subprocess
import tomllib
from pathlib import Path

import pytest

from scenario_builder.errors import DataSourceError
from scenario_builder.paths import ENV_VAR, data_dir

ROOT = Path(__file__).resolve().parents[1]


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(_setuptools()["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("scenario_builder", "engine", "maps")
        for init in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - found == {"scenario_builder_data"}


def test_data_folder_ships_as_a_package_with_its_notices():
    cfg = _setuptools()
    assert cfg["package-dir"]["scenario_builder_data"] == "data"
    assert (ROOT / "data" / "__init__.py").is_file()
    assert cfg["package-data"]["scenario_builder_data"] == ["**/*"]
    # provenance and licence notices travel with the data (SOURCES.md, per-site sources)
    assert (ROOT / "data" / "SOURCES.md").is_file()


def test_data_dir_is_the_checkout_when_run_from_source(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert data_dir() == ROOT / "data"


def test_environment_variable_overrides_and_must_be_a_folder(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    with pytest.raises(DataSourceError, match=r"expected a data folder with codes/features\.csv"):
        data_dir()  # an empty folder would list nothing and exit 0
    (tmp_path / "codes").mkdir()
    (tmp_path / "codes" / "features.csv").write_text("code,feature,priority,description\n")
    assert data_dir() == tmp_path
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "missing"))
    with pytest.raises(DataSourceError, match=f"missing: {ENV_VAR} is not a folder"):
        data_dir()


def test_cli_names_a_bad_data_folder_in_one_line(run_cli, monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    code, out, err = run_cli("sites")
    assert code == 1 and out == ""
    assert err.strip().splitlines() == [f"Error: {tmp_path / 'nowhere'}: {ENV_VAR} is not a folder"]


def test_every_tracked_data_file_of_the_packages_is_package_data():
    """What setuptools globs from package-data (per package folder) covers every file git
    tracks in the packages, so a wheel never lacks one (leaflet.css once went missing)."""
    cfg = _setuptools()
    patterns = cfg["package-data"]
    shipped: set[Path] = set()
    for pkg in cfg["packages"]:
        folder = ROOT / cfg["package-dir"].get(pkg, pkg.replace(".", "/"))
        for pattern in [*patterns.get("*", []), *patterns.get(pkg, [])]:
            shipped |= {Path(p) for p in glob.glob(str(folder / pattern), recursive=True)}
    tracked = subprocess.run(
        ["git", "ls-files", "scenario_builder", "engine", "maps", "data"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    missing = [f for f in tracked if not f.endswith(".py") and ROOT / f not in shipped]
    assert missing == []


def test_ci_runs_the_readme_test_command_with_its_parallel_plugin():
    """.ci/run ends with the README's test command; the plugin that command needs (-n:
    pytest-xdist) is in the test extra .ci/run installs."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    said = re.search(r"then\s+`python -m pytest ([^`]+)`", readme)
    assert said, "README: the two commands' paragraph names the test command"
    last = [ln for ln in ci.splitlines() if ln.strip() and not ln.startswith("#")][-1]
    assert last == f"python3 -m pytest {said.group(1)}"
    assert "-n auto" in said.group(1)
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(r.startswith("pytest-xdist") for r in extra["optional-dependencies"]["test"])
