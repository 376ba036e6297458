"""3.2: the candidates update_contacts measures hold every pair in contact.

Contact is a gap of at most CONTACT_M by ``geometry.separation``: the largest gap along the two
rectangles' four axes, which can be less than the distance between them (corner to corner) and
less than the gap between their axis-aligned boxes along x or y. The box pre-filters (numpy for
a few formations, an R-tree above ``_FEW_FORMATIONS``) must not drop such a pair; the cases
here are the ones each filter dropped when it looked only CONTACT_M out.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from engine import movement as mv
from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import CONTACT_M, forward, obb_array, right, separation
from engine.spatial import rect_boxes
from engine.testing import flat_origin, make_scenario

DATA = Path(__file__).parent / "data" / "troops"
ARMIES = (str(DATA / "rules_red.yaml"), str(DATA / "rules_blue.yaml"))


def _pair(built_minden: Any, facing: float, across: float, along: float) -> Any:
    """A battle of one red and one blue one-base formation, both facing ``facing``, blue's
    corner ``across`` metres off red's along red's right axis and ``along`` metres along its
    forward axis (corner to corner, in red's own frame)."""
    bf = built_minden.battlefield
    sc = make_scenario(
        [{"id": "r", "profile": "inf", "bases": 1, "at": (0, 0), "facing": facing}],
        [{"id": "b", "profile": "inf", "bases": 1, "at": (0, 400), "facing": facing}],
        armies=ARMIES,
        origin=flat_origin(bf),
    )
    b = Battle(bf, sc, Dice(1))
    red, blue = b.state.formations["r"], b.state.formations["b"]
    o = red.obb()
    fx, fy = forward(facing)
    rx, ry = right(facing)
    a = 2 * o.hw + across  # centre to centre along right: both bases are the same size
    d = 2 * o.hd + along
    blue.cx, blue.cy = red.cx + a * rx + d * fx, red.cy + a * ry + d * fy
    blue.place()
    return b


CASES = [
    # square to the map, corner to corner 0.8 m off along both axes: 0.8 m by separation,
    # 1.13 m apart (the R-tree's distance between boxes)
    pytest.param(0.0, 0.8, 0.8, id="square-corners"),
    # turned 45 degrees, corners 0.9 m off along both own axes: 0.9 m by separation, their
    # boxes 1.27 m apart along x (the numpy filter's per-axis test)
    pytest.param(45.0, 0.9, 0.9, id="diamond-tips"),
]


@pytest.mark.parametrize(("facing", "across", "along"), CASES)
@pytest.mark.parametrize("few", [True, False], ids=["numpy-boxes", "r-tree"])
def test_3_2_contact_by_separation_is_found_by_both_filters(
    built_minden: Any,
    monkeypatch: pytest.MonkeyPatch,
    facing: float,
    across: float,
    along: float,
    few: bool,
) -> None:
    b = _pair(built_minden, facing, across, along)
    red, blue = b.state.formations["r"], b.state.formations["b"]
    gap = float(separation(red.obb(), obb_array([blue.obb()]))[0])
    assert gap == pytest.approx(min(across, along) if facing else max(across, along))
    assert gap <= CONTACT_M
    # the pair is beyond what a filter looking only CONTACT_M out would hold
    box = rect_boxes(obb_array([red.obb(), blue.obb()]))
    gx = max(box[1, 0] - box[0, 2], box[0, 0] - box[1, 2])
    gy = max(box[1, 1] - box[0, 3], box[0, 1] - box[1, 3])
    assert math.hypot(max(gx, 0.0), max(gy, 0.0)) > CONTACT_M
    monkeypatch.setattr(mv, "_FEW_FORMATIONS", 64 if few else 0)
    pairs = mv.update_contacts(b.state)
    assert b.state.contacts["r"] == ("b",) and b.state.contacts["b"] == ("r",)
    assert pairs[("r", "b")] == [(red.bases[0].id, blue.bases[0].id)]


def test_3_2_candidate_reach_bounds_separation() -> None:
    # rectangles grown by half the gap along their own axes meet: at most sqrt(2) CONTACT_M
    # apart corner to corner, so the filters look that far (and a millimetre) out, no farther
    reach = mv._CANDIDATE_M
    assert reach == pytest.approx(CONTACT_M * math.sqrt(2.0), abs=2e-3)
    assert reach > CONTACT_M * math.sqrt(2.0)
