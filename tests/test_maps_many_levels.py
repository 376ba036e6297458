"""Class and level overlays on a site with more height levels than a byte holds.

Chacabuco (SRTM, data/battlefields/chacabuco, provenance in data/SOURCES.md) builds 500+ levels at
its 2 m step; ``map chacabuco_1817`` once failed with an IndexError in the 256-entry colour table.
"""

from __future__ import annotations

import numpy as np
import pytest

from maps.battlefield_map import _levels_rgba, level_colours
from maps.reproject import classes_to_rgba


@pytest.fixture(scope="module")
def chacabuco():
    from scenario_builder.build import build_site

    return build_site("chacabuco").battlefield


@pytest.mark.slow  # builds Chacabuco; the lookup-table test below stays quick
def test_chacabuco_has_more_levels_than_a_byte(chacabuco) -> None:
    lv = chacabuco.layer("level")
    assert int(lv.max()) - int(lv.min()) > 255


@pytest.mark.slow
def test_levels_above_255_keep_their_own_colour(chacabuco) -> None:
    rgba, _ = _levels_rgba(chacabuco)
    colours = level_colours(chacabuco)
    assert rgba.shape[-1] == 4 and (rgba[..., 3] > 0).any()
    # the top levels are painted, and not all in the colour of level 255
    top = max(colours)
    assert colours[top] != colours[min(colours) + 255]


def test_classes_to_rgba_paints_codes_past_255() -> None:
    codes = np.array([[0.0, 300.0], [np.nan, 7.0]], dtype=np.float32)
    out = classes_to_rgba(codes, {300: "#ff0000", 7: "#00ff00"})
    assert tuple(out[0, 1]) == (255, 0, 0, 255)
    assert tuple(out[1, 1]) == (0, 255, 0, 255)
    assert out[1, 0, 3] == 0 and out[0, 0, 3] == 0
