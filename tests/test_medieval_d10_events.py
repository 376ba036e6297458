"""medieval-d10's events: each of its own declared class (no catch-all ``medieval`` type), read
back from the log as it was written, and worded with the dice a player would roll: Towton
(the shipped medieval-d10 scenario) fought for 14 game turns, into its melees."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.log import Draw
from engine.rulesets import get_ruleset
from engine.rulesets.medieval_d10 import events as ev
from engine.scenario import load_scenario
from scenario_builder.battle import build_battlefield

NAME = "medieval-d10"
#: the game's modules (game.py and its phase modules): every ``game.log`` call is in one
GAME_PY = sorted(Path(ev.__file__).parent.glob("*.py"))
#: the fields that hold dice: every face of them is in the event's words
DICE_FIELDS = ("faces", "faces_a", "faces_b", "dice", "face", "die", "rolls")


@pytest.fixture(scope="module")
def towton() -> Battle:
    sc = load_scenario("towton_1461")
    battle = Battle(build_battlefield(sc).battlefield, sc, Dice(1), ruleset=NAME)
    battle.run(max_bounds=14)
    return battle


def _faces(value: Any) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if isinstance(value, (list, tuple)):
        return [f for v in value for f in _faces(v)]
    return []


def test_every_towton_event_is_typed_and_reads_in_words_with_its_dice(towton: Battle) -> None:
    events = towton.log.events()
    assert len(events) > 100
    assert not [e for e in events if e.type == "medieval"]
    assert {e.type for e in events} <= {c.type for c in ev.EVENTS}
    # the turn reaches its fighting: shooting (FIRING CHART), melee (MELEE CHART), tests
    kinds = {e.type for e in events}
    for kind in ("d10_fire", "d10_melee", "d10_morale", "d10_initiative", "d10_charge"):
        assert kind in kinds, kind
    for e in events:
        assert isinstance(e, ev.MedievalEvent)
        words = e.describe()
        assert words and re.search(r"[a-z]{3,} [a-z]{2,}", words), (e, words)
        assert "{" not in words and "None" not in words, words
        d = e.to_dict()
        for key in DICE_FIELDS:
            for face in _faces(d.get(key)):
                assert re.search(rf"\b{face}\b", words), (key, face, words)
        if "need" in d:
            assert f"need {d['need']}" in words, words


def test_the_log_reads_back_into_the_same_events(towton: Battle) -> None:
    """Small frozen values that print to the log and parse back (STYLE.md item 4): the JSON
    the log writes gives the same events through the ruleset's own classes."""
    types = get_ruleset(NAME).event_types()
    log = json.loads(towton.log.to_json())
    written = [e for b in log["bounds"] for e in b["events"]]
    assert written
    for raw, event in zip(written, towton.log.events(), strict=True):
        assert types[raw["type"]].from_dict(raw) == event


def test_shooting_and_melee_name_both_ends_for_the_lines(towton: Battle) -> None:
    forms = set(towton.state.formations)
    drawn = [e for e in towton.log.events() if e.draw in (Draw.SHOT, Draw.MELEE)]
    assert {type(e) for e in drawn} >= {ev.Fire, ev.Melee}
    for e in drawn:
        assert e.actor_id() in forms and e.target_id() in forms, e


def test_fire_words_as_a_player_reads_them() -> None:
    """FIRING CHART: the kill score needed, the d10s rolled, the kills."""
    fire = ev.Fire("12", "yk_archers_left", "ln_centre", ev.RangeBand.LONG, 8, (3,), 0, False)
    names = {"yk_archers_left": "Yorkist archers (left)", "ln_centre": "Somerset's battle"}
    assert fire.describe(names.__getitem__) == (
        "Yorkist archers (left) shoot at Somerset's battle (long range): need 8, rolled 3, no kills"
    )
    melee = ev.Melee("13", None, "a", "b", 2, 0, 4, (10, 9), None, None)
    assert melee.describe() == "melee, a v b: a need 4, rolled 10 and 9, 2 kills; b do not strike"


def test_every_record_the_game_writes_has_its_class() -> None:
    """Each ``game.log("<kind>", ...)`` in the game's modules names a kind with a declared
    class, so no record reaches the log as a free dict (``from_record`` would refuse it)."""
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in GAME_PY]
    kinds = set()
    for node in (n for tree in trees for n in ast.walk(tree)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "log"
            and node.args
        ):
            first = node.args[0]
            if isinstance(first, ast.Constant):
                kinds.add(first.value)
            elif isinstance(first, ast.IfExp):  # "limber" if limber else "unlimber"
                kinds |= {first.body.value, first.orelse.value}  # type: ignore[attr-defined]
    assert len(kinds) > 20
    assert kinds <= set(ev.BY_KIND), kinds - set(ev.BY_KIND)
    with pytest.raises(TypeError):
        ev.from_record(
            "13",
            {"type": "melee", "a": "x", "b": "y", "kills_by_a": 0, "kills_by_b": 0, "surprise": 1},
        )
