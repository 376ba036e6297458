"""The playback's colours as a reader sees them: every shipped scenario's armies legible on the
ground beneath their bases (WCAG 3:1 for graphics, on the page's hillshade and tint) and apart
from each other and from the shot and melee lines for colour-blind readers (Machado 2009
simulation through colorspacious)."""

from __future__ import annotations

import itertools

import pytest

from maps.colours import (
    cvd_distance,
    distinct_colour,
    drawn_contrast,
    side_palette,
)
from scenario_builder.paths import data_dir

SCENARIOS = sorted((data_dir() / "scenarios").glob("*.yaml"))


@pytest.fixture(scope="module")
def deployed_grounds() -> dict[str, tuple[list[str], list[str | None]]]:
    """Every shipped scenario deployed on its built ground (bound 0): its sides' colours and the
    darker ground under each side's bases as the web map draws it (hillshade and level tint)."""
    from engine.scenario import load_scenario
    from maps.ground_colour import sides_ground
    from scenario_builder.battle import build_battlefield, fight

    out = {}
    for path in SCENARIOS:
        sc = load_scenario(path.stem)
        built = build_battlefield(sc)
        log, _ = fight(sc, built, seed=0, max_bounds=0)
        d = log.to_dict()
        out[path.stem] = (
            [str(s.get("colour", "#555555")) for s in d["sides"]],
            sides_ground(built.battlefield, d),
        )
    return out


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_shipped_armies_read_on_the_hillshade_and_apart(path, deployed_grounds) -> None:
    """Each army's bases, drawn at their fill opacity, stand 3:1 (WCAG, graphics) off the
    ground beneath them, measured on the page's own hillshade and tint under its bases."""
    colours, grounds = deployed_grounds[path.stem]
    assert all(g is not None for g in grounds), grounds
    palette = side_palette(colours, grounds=grounds)
    for colour, ground in zip(palette, grounds, strict=True):
        assert ground is not None
        assert drawn_contrast(colour, ground) >= 3.0, (colour, ground)
    for a, b in itertools.combinations(palette, 2):
        assert cvd_distance(a, b) >= 20.0, (a, b)
    shot = distinct_colour(palette)
    melee = distinct_colour([*palette, shot])
    for colour in palette:  # shot lines never in an army's colour (the English red)
        assert cvd_distance(shot, colour) >= 20.0, (shot, colour)
        assert cvd_distance(melee, colour) >= 20.0, (melee, colour)
    assert cvd_distance(shot, melee) >= 20.0


def test_confederate_grey_is_made_legible(deployed_grounds) -> None:
    """Gettysburg's Confederates (#7f7f7f) vanish on the grey hillshade of Seminary Ridge
    (1.7:1 as drawn) unless darkened; the Union blue is already legible and is kept as the
    scenario gives it."""
    colours, grounds = deployed_grounds["gettysburg_1863_day2"]
    assert colours == ["#1f4e9c", "#7f7f7f"]
    union, confederate = side_palette(colours, grounds=grounds)
    assert union == "#1f4e9c"
    assert grounds[1] is not None
    assert drawn_contrast("#7f7f7f", grounds[1]) < 2.0
    assert drawn_contrast(confederate, grounds[1]) >= 3.0
    assert confederate.lstrip("#")[0:2] == confederate.lstrip("#")[2:4]  # still a grey


def test_english_red_shot_lines_are_gone() -> None:
    """Flodden: the shot lines were #d50000, a hair from the English #c0392b."""
    palette = side_palette(["#1f4e9c", "#c0392b"])
    assert cvd_distance("#d50000", palette[1]) < 20.0  # the old colour: indistinguishable
    assert cvd_distance(distinct_colour(palette), palette[1]) >= 20.0
