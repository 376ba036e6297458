"""Dice: seeded, recording, replayable; DiceResult text round-trip; scripted dice."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.dice import Dice, DiceExhaustedError, DiceResult, ScriptedDice
from scenario_builder.errors import ScenarioError, ScenarioFileError


def test_same_seed_same_rolls() -> None:
    a, b = Dice(42), Dice(42)
    rolls_a = [a.roll(n, f"r{n}") for n in (1, 2, 3, 5, 8) * 20]
    rolls_b = [b.roll(n, f"r{n}") for n in (1, 2, 3, 5, 8) * 20]
    assert rolls_a == rolls_b
    assert a.history == b.history == rolls_a
    other = Dice(43)
    assert [r.faces for r in rolls_a] != [other.roll(n, "x").faces for n in (1, 2, 3, 5, 8) * 20]


def test_faces_follow_random_random_the_portable_generator() -> None:
    # The one sequence Python promises across versions: random() after seed(s).
    rng = random.Random(2024)
    expected = tuple(int(rng.random() * 6) + 1 for _ in range(50))
    assert Dice(2024).roll(50, "x").faces == expected


def test_faces_are_uniform_over_1_to_6() -> None:
    faces = Dice(5).roll(60_000, "bulk").faces
    counts = [faces.count(k) for k in range(1, 7)]
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    # 6 sigma of a binomial(60000, 1/6) is ~550: a fixed seed, so this is deterministic anyway.
    assert all(abs(c - 10_000) < 550 for c in counts)


def test_d10_and_choice_faces_in_range() -> None:
    d = Dice(1)
    assert all(1 <= f <= 10 for f in d.roll(500, "d10", sides=10).faces)
    picks = [d.choice("abc", "pick") for _ in range(300)]
    assert set(picks) == {"a", "b", "c"}
    assert all(r.sides == 3 and r.purpose == "pick" for r in d.history[1:])


def test_history_records_purpose_in_order() -> None:
    d = Dice(9)
    d.roll(2, "panic sc_pikes")
    d.roll(3, "shoot eng_archers->sc_pikes")
    d.random("tie break")
    assert [r.purpose for r in d.history] == [
        "panic sc_pikes",
        "shoot eng_archers->sc_pikes",
        "tie break",
    ]


def test_random_is_recorded_and_replayable() -> None:
    d = Dice(11)
    x = d.random("tie")
    assert x == random.Random(11).random()
    (face,) = d.history[-1].faces
    assert ScriptedDice([face]).random("tie") == x


def test_getstate_setstate_replays_from_a_point() -> None:
    d = Dice(77)
    d.roll(4, "before")
    state = d.getstate()
    after = [d.roll(3, "after") for _ in range(10)]
    d.setstate(state)
    assert len(d.history) == 1
    assert [d.roll(3, "after") for _ in range(10)] == after
    # a second generator restored from the state continues identically
    e = Dice(0)
    e.setstate((state[0], 0))
    assert e.roll(3, "after") == after[0]


def test_unseeded_dice_pick_and_keep_a_seed() -> None:
    d = Dice()
    assert isinstance(d.seed, int)
    first = d.roll(10, "x")
    assert Dice(d.seed).roll(10, "x") == first


def test_zero_dice_and_bad_requests() -> None:
    d = Dice(1)
    assert d.roll(0, "none").faces == ()
    with pytest.raises(ValueError, match="expected n >= 0"):
        d.roll(-1, "neg")
    with pytest.raises(ValueError, match="empty"):
        d.choice([], "nothing")


def test_scripted_dice_yield_in_order_then_raise() -> None:
    s = ScriptedDice([6, 1, 3, 2])
    assert s.roll(1, "a").faces == (6,)
    assert s.roll(2, "b").faces == (1, 3)
    assert s.remaining == 1
    with pytest.raises(DiceExhaustedError, match="expected 2 more face"):
        s.roll(2, "c")
    assert isinstance(DiceExhaustedError(None, "x"), ScenarioError)
    assert s.roll(1, "d").faces == (2,)
    assert [str(r) for r in s.history] == ["1d6[6] a", "2d6[1,3] b", "1d6[2] d"]


def test_scripted_face_must_fit_the_die() -> None:
    with pytest.raises(ValueError, match="do not fit a d2"):
        ScriptedDice([6]).choice(["x", "y"], "pick")


def test_scripted_dice_rewind() -> None:
    s = ScriptedDice([1, 2, 3])
    state = s.getstate()
    s.roll(2, "x")
    s.setstate(state)
    assert s.roll(3, "x").faces == (1, 2, 3)
    assert len(s.history) == 1


def test_dice_result_text_examples() -> None:
    r = DiceResult((3, 5), "panic sc_pikes")
    assert str(r) == "2d6[3,5] panic sc_pikes"
    assert DiceResult.from_text("2d6[3,5] panic sc_pikes") == r
    assert DiceResult.from_text("0d6[]") == DiceResult(())
    assert r.to_dict() == {"purpose": "panic sc_pikes", "faces": [3, 5]}
    assert DiceResult((7,), "", 10).to_dict() == {"purpose": "", "faces": [7], "sides": 10}


@pytest.mark.parametrize(
    "text", ["", "2d6", "2d6[3,5]x", "d6[3]", "2d6[3,5,1] too many", "1d6[7] off die", "1d0[]"]
)
def test_dice_result_from_bad_text(text: str) -> None:
    with pytest.raises(ScenarioFileError, match="expected"):
        DiceResult.from_text(text)


@given(
    st.integers(1, 20).flatmap(
        lambda sides: st.tuples(
            st.lists(st.integers(1, sides), max_size=12).map(tuple),
            st.text(st.characters(blacklist_categories=("Cs",)), max_size=30),
            st.just(sides),
        )
    )
)
def test_dice_result_round_trip(parts: tuple[tuple[int, ...], str, int]) -> None:
    faces, purpose, sides = parts

    r = DiceResult(faces, purpose, sides)
    assert DiceResult.from_text(str(r)) == r


def test_rolled_results_are_ordinary_frozen_values() -> None:
    # Dice.roll builds DiceResult without its __init__ (speed): it must still be the same value
    import dataclasses

    r = Dice(1).roll(2, "x")
    same = DiceResult(r.faces, "x", 6)
    assert r == same and hash(r) == hash(same) and repr(r) == repr(same)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.faces = (1, 1)  # type: ignore[misc]
