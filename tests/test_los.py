"""6.2 line of sight: known-answer grids pinning our reading (docs/rules-interpretations.md, 6.2).

These are rule pins on tiny hand-made grids, like chess perft positions; the same queries are
exercised on the real Gettysburg battlefield in ``tests/test_terrain_*.py``.
"""

from __future__ import annotations

import affine
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenario_builder.battlefield import Battlefield, MoveClass
from scenario_builder.errors import OffMapError

RES = 10.0
X0, Y0 = 500_000.0, 6_000_000.0


def field(levels: list[int], woods: set[int] = frozenset()) -> Battlefield:
    """A one-row battlefield, one 10 m cell per entry, woods (blocking) at the given columns."""
    n = len(levels)
    lv = np.array([levels], dtype=np.int16)
    blocks = np.zeros((1, n), bool)
    move = np.zeros((1, n), np.uint8)
    for c in woods:
        blocks[0, c] = True
        move[0, c] = MoveClass.WOODS
    z = lv.astype(np.float32) * 2
    layers = {
        "elevation": z,
        "slope": np.zeros_like(z),
        "level": lv,
        "move": move,
        "cover": move.copy(),
        "blocks_sight": blocks,
        "feature": np.zeros((1, n), np.uint8),
    }
    return Battlefield(layers, affine.Affine(RES, 0, X0, 0, -RES, Y0 + RES), "EPSG:32630", 2.0)


def at(col: float) -> tuple[float, float]:
    return (X0 + (col + 0.5) * RES, Y0 + RES / 2)


def test_6_2_flat_ground_is_clear() -> None:
    assert field([0] * 20).line_of_sight(at(0), at(19))


def test_6_2_higher_ground_between_blocks() -> None:
    assert not field([0] * 8 + [1] + [0] * 8).line_of_sight(at(0), at(16))


def test_6_2_lower_ground_is_seen_over() -> None:
    # Both on level 2, a level-0 valley between: "anything on a lower level can be seen over".
    assert field([2, 2, 0, 0, 0, 0, 2, 2]).line_of_sight(at(0), at(7))


def test_6_2_ridge_no_higher_than_the_higher_end_is_seen_over() -> None:
    # Observer on level 3 sees a target on level 0 across a level-2 rise.
    f = field([3, 3, 2, 2, 0, 0, 0, 0])
    assert f.line_of_sight(at(0), at(7))
    assert f.line_of_sight(at(7), at(0)), "sight is symmetric"


def test_6_2_ridge_higher_than_both_ends_blocks() -> None:
    assert not field([1, 1, 2, 2, 0, 0]).line_of_sight(at(0), at(5))


def test_6_2_woods_between_block() -> None:
    assert not field([0] * 20, woods={9, 10}).line_of_sight(at(0), at(19))


def test_6_2_troops_within_25m_of_the_wood_edge_see_out() -> None:
    # Woods from column 0 to 4; the spotter at column 2 is 25 m inside, the target in the open.
    f = field([0] * 20, woods={0, 1, 2, 3, 4})
    assert f.line_of_sight(at(2), at(15)), "within 25 m of the edge"
    assert not f.line_of_sight(at(0), at(15)), "45 m deep in the wood"


def test_6_2_woods_on_lower_level_are_seen_over() -> None:
    f = field([2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2], woods={5, 6})
    assert f.line_of_sight(at(0), at(12))
    assert not field([0] * 13, woods={5, 6}).line_of_sight(at(0), at(12))


def test_6_2_eye_levels_raise_an_end() -> None:
    f = field([0, 0, 1, 0, 0])
    assert not f.line_of_sight(at(0), at(4))
    assert f.line_of_sight(at(0), at(4), eye_a=1)


def test_line_of_sight_many_matches_single() -> None:
    f = field([0, 1, 0, 2, 2, 0, 0, 1, 3, 0, 0, 0], woods={5, 10})
    cols = [(i, j) for i in range(12) for j in range(12) if i != j]
    a = np.array([at(i) for i, _ in cols])
    b = np.array([at(j) for _, j in cols])
    many = f.line_of_sight_many(a, b)
    single = [f.line_of_sight(at(i), at(j)) for i, j in cols]
    assert many.tolist() == single


def test_off_map_point_raises() -> None:
    with pytest.raises(OffMapError, match="off the battlefield"):
        field([0] * 5).line_of_sight(at(0), at(9))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=3, max_size=30), st.data())
def test_6_2_sight_is_symmetric_and_flat_is_clear(levels: list[int], data: st.DataObject) -> None:
    n = len(levels)
    woods = set(data.draw(st.sets(st.integers(0, n - 1), max_size=n // 3)))
    f = field(levels, woods)
    i = data.draw(st.integers(0, n - 1))
    j = data.draw(st.integers(0, n - 1))
    assert f.line_of_sight(at(i), at(j)) == f.line_of_sight(at(j), at(i))
    if not woods and max(levels) == levels[i] == levels[j]:
        assert f.line_of_sight(at(i), at(j))
