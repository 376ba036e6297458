"""The playback's colours as a reader sees them: every shipped scenario's armies legible on the
hillshade (WCAG 3:1 for graphics) and apart from each other and from the shot and melee lines
for colour-blind readers (Machado 2009 simulation through colorspacious)."""

from __future__ import annotations

import itertools

import pytest
import yaml

from maps.colours import (
    HILLSHADE_GREY,
    contrast_ratio,
    cvd_distance,
    distinct_colour,
    side_palette,
)
from scenario_builder.paths import data_dir

SCENARIOS = sorted((data_dir() / "scenarios").glob("*.yaml"))


def _colours(path) -> list[str]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [str(s.get("colour", "#555555")) for s in doc["sides"]]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_shipped_armies_read_on_the_hillshade_and_apart(path) -> None:
    palette = side_palette(_colours(path))
    for colour in palette:
        assert contrast_ratio(colour, HILLSHADE_GREY) >= 3.0, colour
    for a, b in itertools.combinations(palette, 2):
        assert cvd_distance(a, b) >= 20.0, (a, b)
    shot = distinct_colour(palette)
    melee = distinct_colour([*palette, shot])
    for colour in palette:  # shot lines never in an army's colour (the English red)
        assert cvd_distance(shot, colour) >= 20.0, (shot, colour)
        assert cvd_distance(melee, colour) >= 20.0, (melee, colour)
    assert cvd_distance(shot, melee) >= 20.0


def test_confederate_grey_is_made_legible() -> None:
    """Gettysburg's Confederates (#7f7f7f) vanish on the grey hillshade (1.95:1) unless
    darkened; the Union blue is already legible and is kept as the scenario gives it."""
    union, confederate = side_palette(["#1f4e9c", "#7f7f7f"])
    assert union == "#1f4e9c"
    assert contrast_ratio("#7f7f7f", HILLSHADE_GREY) < 3.0
    assert contrast_ratio(confederate, HILLSHADE_GREY) >= 3.0


def test_english_red_shot_lines_are_gone() -> None:
    """Flodden: the shot lines were #d50000, a hair from the English #c0392b."""
    palette = side_palette(["#1f4e9c", "#c0392b"])
    assert cvd_distance("#d50000", palette[1]) < 20.0  # the old colour: indistinguishable
    assert cvd_distance(distinct_colour(palette), palette[1]) >= 20.0
