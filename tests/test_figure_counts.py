"""Units of figures: a formation's ``figures`` at the book's own scale, deployed by a ruleset
whose base is one figure (medieval-d10: "Roll one d10 for every five figures"), its ``bases``
under the others; checked at load with one-line errors; a unit smaller than the book's smallest
(10 figures: THE MORALE TEST CHART's "Each full 10% of original unit figure-strength lost -2")
warns. Played on the shipped Flodden and Towton ground (docs/scenarios.md, "Figures";
docs/rules-interpretations.md, "The smallest unit").
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.battle import Battle
from engine.deploy import deploy
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.rulesets.medieval_d10.events import Fire
from engine.rulesets.medieval_d10.unit_size import SMALLEST_UNIT_FIGURES, SmallUnitWarning
from engine.scenario import load_scenario
from scenario_builder.battle import build_battlefield, fight
from scenario_builder.errors import ScenarioFileError

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "scenarios"


@pytest.fixture(scope="module")
def flodden(built_flodden: Any) -> Any:
    return built_flodden.battlefield


def _copy(tmp_path: Path, slug: str, edit: Any) -> Path:
    """The shipped scenario ``slug`` with ``edit(data)`` applied, beside a copy of its troop
    paths (shipped ids: no relative paths to carry)."""
    data = yaml.safe_load((SHIPPED / f"{slug}.yaml").read_text(encoding="utf-8"))
    edit(data)
    out = tmp_path / f"{slug}.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return out


def _formation(data: dict[str, Any], fid: str) -> dict[str, Any]:
    return next(f for s in data["sides"] for f in s["formations"] if f["id"] == fid)


def test_flodden_deploys_figures_under_medieval_d10_and_bases_under_2mm_earth(
    flodden: Any,
) -> None:
    sc = load_scenario("flodden_1513")
    d10 = deploy(sc, flodden, get_ruleset("medieval-d10"))
    earth = deploy(sc, flodden, get_ruleset("2mm-earth-v0.9"))
    for side in sc.sides:
        for fs in side.formations:
            if fs.figures is None:  # the guns: gun models, their bases under both
                assert len(d10.formations[fs.id].bases) == fs.bases, fs.id
            else:
                f = d10.formations[fs.id]
                assert len(f.bases) == fs.figures and f.frontage == fs.figure_frontage, fs.id
            assert len(earth.formations[fs.id].bases) == fs.bases, fs.id
    # the figures keep each formation's front on the ground (whole figure-ranks: within
    # one rank's worth of files)
    for fs in sc.sides[0].formations:
        if fs.figures is None or fs.figure_frontage is None:
            continue
        ranks = math.ceil(fs.figures / fs.figure_frontage)
        front_2mm = fs.frontage * get_ruleset("2mm-earth-v0.9").scales.base_w_m
        front_d10 = d10.formations[fs.id].frontage * get_ruleset("medieval-d10").scales.base_w_m
        assert abs(front_d10 - front_2mm) <= 9.144 * ranks, fs.id


def test_a_line_of_figures_stands_as_deep_as_the_scenario_deploys_it(flodden: Any) -> None:
    # docs/rules-interpretations.md, "A line's depth": figures / figure_frontage ranks (the
    # Scots' pike 5-6 deep, the English bows 3), not the game's 3 for every close-order line
    sc = load_scenario("flodden_1513")
    battle = Battle(flodden, sc, Dice(1), ruleset="medieval-d10")
    next(iter(battle.phases()))
    game = battle.ctx.game
    depths = set()
    for side in sc.sides:
        for fs in side.formations:
            if fs.figures is None or fs.figure_frontage is None:
                continue
            u = game.units[fs.id]
            depths.add(game.ranks(u))
            assert game.ranks(u) == math.ceil(fs.figures / fs.figure_frontage), fs.id
            assert game.files(u) == fs.figure_frontage, fs.id
    assert depths == {3, 4, 5, 6}


def test_a_volley_at_the_books_scale_rolls_one_d10_per_five_figures(flodden: Any) -> None:
    # FIRING CHART: "Roll one d10 for every five infantry or cavalry figures (rounded up)":
    # Stanley's 48 bowmen (2,400 men at 50 a figure) roll ten dice at their first volley,
    # where at one figure to 600 men their 4 figures rolled one
    sc = load_scenario("flodden_1513")
    battle = Battle(flodden, sc, Dice(1), ruleset="medieval-d10")
    log = battle.run()
    first: dict[str, int] = {}
    for e in log.events("d10_fire"):
        assert isinstance(e, Fire)
        if e.unit is not None and e.unit not in first:
            first[e.unit] = len(e.faces)
    bows = {fs.id: fs.figures for fs in sc.sides[1].formations if fs.id.endswith("_bows")}
    shot = {fid: n for fid, n in first.items() if fid in bows}
    assert shot, "no English archers shot"
    for fid, dice in shot.items():
        assert dice <= math.ceil((bows[fid] or 0) / 5), fid
    assert max(shot.values()) >= 5  # more dice than any unit of 15 figures could roll


def test_losses_under_medieval_d10_are_counted_in_men_per_figure(built_flodden: Any) -> None:
    sc = load_scenario("flodden_1513")
    log, summary = fight(sc, built_flodden, 1, ruleset="medieval-d10", snapshots=False)
    assert summary["bases"] == {
        s.id: sum(f.figures or f.bases for f in s.formations) for s in sc.sides
    }
    by_formation = log.result["casualties_by_formation"]  # type: ignore[index]
    for side in sc.sides:
        killed = sum(
            by_formation.get(f.id, {}).get("killed", 0)
            for f in side.formations
            if f.figures is not None
        )
        assert summary["lost_men"][side.id]["killed"] == killed * sc.men_per_figure
    # the same scenario under 2mm Earth counts its bases at 600 men
    _, earth = fight(sc, built_flodden, 1, snapshots=False)
    assert earth["bases"] == {s.id: sum(f.bases for f in s.formations) for s in sc.sides}


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"figures": 40, "figure_frontage": 41}, "expected at most its 40 figures, got 41"),
        ({"figures": 40}, "expected figure_frontage beside figures"),
        ({"figure_frontage": 10}, "expected figures beside figure_frontage"),
        ({"figures": 0, "figure_frontage": 1}, "figures"),
    ],
)
def test_bad_figures_are_one_line_errors_naming_the_file_and_line(
    tmp_path: Path, fields: dict[str, int], problem: str
) -> None:
    def edit(data: dict[str, Any]) -> None:
        f = _formation(data, "en_surrey")
        f.pop("figures", None)
        f.pop("figure_frontage", None)
        f.update(fields)

    path = _copy(tmp_path, "flodden_1513", edit)
    with pytest.raises(ScenarioFileError) as err:
        load_scenario(path)
    text = str(err.value)
    assert "\n" not in text and str(path) in text and "line " in text, text
    assert problem in text, text


def _small_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, SmallUnitWarning)]


def test_towton_at_the_books_scale_loads_without_a_small_unit_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sc = load_scenario("towton_1461")
    assert not _small_warnings(caught)
    smallest = min(fs.figures or 0 for s in sc.sides for fs in s.formations)
    assert smallest >= SMALLEST_UNIT_FIGURES


@pytest.mark.parametrize(("figures", "warns"), [(9, True), (10, False)])
def test_a_unit_under_ten_figures_warns_at_load(tmp_path: Path, figures: int, warns: bool) -> None:
    # the reading (docs/rules-interpretations.md, "The smallest unit"): below 10 figures one
    # figure lost is more than a full 10 % (-2 on THE MORALE TEST CHART); 10 is the smallest
    def edit(data: dict[str, Any]) -> None:
        f = _formation(data, "ln_ambush")
        f["figures"], f["figure_frontage"] = figures, figures

    path = _copy(tmp_path, "towton_1461", edit)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_scenario(path)
    got = _small_warnings(caught)
    if warns:
        assert len(got) == 1 and f"ln_ambush {figures}" in got[0] and "10 figures" in got[0]
        assert "\n" not in got[0] and str(path) in got[0]
    else:
        assert not got


def test_flodden_under_medieval_d10_without_figures_warns_and_plays_its_bases(
    tmp_path: Path, built_flodden: Any
) -> None:
    # the same scenario without figures: one figure a base (600 men), units of 2-15 figures;
    # the guns are gun models and never warn
    def edit(data: dict[str, Any]) -> None:
        data.pop("men_per_figure")
        for s in data["sides"]:
            for f in s["formations"]:
                f.pop("figures", None)
                f.pop("figure_frontage", None)

    path = _copy(tmp_path, "flodden_1513", edit)
    sc = load_scenario(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, summary = fight(sc, build_battlefield(sc), 1, ruleset="medieval-d10", max_bounds=1)
    got = _small_warnings(caught)
    assert len(got) == 2  # one line a side
    assert not any("guns" in g for g in got)
    assert summary["bases"] == {s.id: sum(f.bases for f in s.formations) for s in sc.sides}


def test_run_prints_one_warning_line_for_a_small_unit(tmp_path: Path, run_cli: Any) -> None:
    # `scenario-builder run` on Towton with Trollope's ambush cut to 8 figures: one
    # "Warning:" line (checked at load and again as the game is built, said once), exit 0
    def edit(data: dict[str, Any]) -> None:
        f = _formation(data, "ln_ambush")
        f["figures"], f["figure_frontage"] = 8, 8

    path = _copy(tmp_path, "towton_1461", edit)
    code, _, err = run_cli("run", path, "--max-bounds", "2", "--out", tmp_path / "out")
    warned = [line for line in err.splitlines() if line.startswith("Warning:")]
    assert code == 0 and len(warned) == 1, err
    assert "ln_ambush 8" in warned[0] and "fewer than 10 figures" in warned[0]
