"""The battle log keeps bound 0 whole and of each later bound what changed (docs/battle-log.md):
the playback drawn from that file must be the playback of a whole record.

The whole record here is taken apart from the battle's own: after every bound, the public
``engine.battle.snapshot`` of the state as it stands (no reuse of the last record's entries,
no memo of rounded positions), on Flodden 1513 under 2mm Earth. The file is read back as the
maps read it (``maps.battlelog.load_battle_log``: ``engine.log.expanded``).
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine.battle import Battle, snapshot
from engine.dice import Dice
from engine.log import FORMAT, expanded, snapshot_changes
from engine.scenario import load_scenario
from maps.battlelog import load_battle_log
from maps.playback import playback_data

SEED = 7


@pytest.fixture(scope="module")
def flodden(built_flodden: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Flodden fought to its end: the file, and each bound's whole snapshot taken apart."""
    bf = built_flodden.battlefield
    sc = load_scenario("flodden_1513")
    battle = Battle(bf, sc, Dice(SEED))
    assert battle.ruleset.name == "2mm-earth-v0.9"

    def whole() -> dict[str, Any]:
        ctx, rs = battle.ctx, battle.ruleset
        snap = snapshot(
            battle.state, battle.delivery, battle.sight, lambda f: rs.formation_record(ctx, f)
        )
        return json.loads(json.dumps(snap, sort_keys=True))  # as a file holds it

    record = [whole()]
    while not battle.finished:
        battle.step()
        record.append(whole())
    path = tmp_path_factory.mktemp("flodden_log") / "battle_log.json"
    path.write_bytes(battle.log.to_bytes())
    raw = json.loads(path.read_bytes())
    full = {k: v for k, v in raw.items() if k != "bounds"}
    full["bounds"] = [
        {**{k: v for k, v in b.items() if k != "changes"}, "snapshot": s}
        for b, s in zip(raw["bounds"], record, strict=True)
    ]
    return {"bf": bf, "path": path, "raw": raw, "full": full}


def test_the_file_holds_bound_0_whole_and_then_changes_only(flodden: dict[str, Any]) -> None:
    raw = flodden["raw"]
    assert raw["format"] == FORMAT == "battlelog/2"
    first, later = raw["bounds"][0], raw["bounds"][1:]
    assert "snapshot" in first and "changes" not in first
    assert later and all("changes" in b and "snapshot" not in b for b in later)
    n_bases = len(first["snapshot"]["bases"])
    # some bases stand still in some bound: those bounds write fewer than all of them
    assert any(len(b["changes"].get("bases", {})) < n_bases for b in later)
    assert sum(len(b["changes"].get("bases", {})) for b in later) < n_bases * len(later)


def test_snapshots_read_back_are_the_whole_record(flodden: dict[str, Any]) -> None:
    read = load_battle_log(flodden["path"])
    got = [b["snapshot"] for b in read["bounds"]]
    want = [b["snapshot"] for b in flodden["full"]["bounds"]]
    assert len(got) == len(want) > 5
    for n, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g == w, f"bound {n}"
        # in the order a whole snapshot from the file has: sorted keys
        assert list(g["bases"]) == list(w["bases"]), f"bound {n}"


def test_playback_frames_from_the_changes_equal_those_of_the_whole_record(
    flodden: dict[str, Any],
) -> None:
    bf = flodden["bf"]
    frames = playback_data(bf, load_battle_log(flodden["path"]))
    want = playback_data(bf, flodden["full"])
    assert frames["fogSource"] == "engine"
    assert frames == want


def test_a_changed_base_left_out_of_the_file_shows_in_the_frames(
    flodden: dict[str, Any], tmp_path: Path
) -> None:
    """The comparison above can fail: one base that moved, dropped from one bound's changes,
    makes the frames from the file differ from the whole record's."""
    raw = copy.deepcopy(flodden["raw"])
    bound, base = next(
        (b, bid)
        for b in raw["bounds"][1:]
        for bid in sorted(b["changes"].get("bases", {}))
        if bid in raw["bounds"][0]["snapshot"]["bases"]
    )
    del bound["changes"]["bases"][base]
    path = tmp_path / "battle_log.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    bf = flodden["bf"]
    assert playback_data(bf, load_battle_log(path)) != playback_data(bf, flodden["full"])


def _random_snapshot(rng: random.Random) -> dict[str, Any]:
    ids = [f"b{k}" for k in rng.sample(range(12), rng.randint(0, 8))]
    out: dict[str, Any] = {
        "bases": {i: {"x": float(rng.randint(0, 3)), "state": rng.choice("ok dead")} for i in ids},
        "seen": {s: sorted(rng.sample(ids, min(len(ids), 2))) for s in ("a", "b")},
        "losses": {"a": rng.randint(0, 2)},
    }
    if rng.random() < 0.7:
        out["messengers"] = [{"id": "m", "at": rng.randint(0, 2)}] if rng.random() < 0.5 else []
    return out


def test_changes_and_their_reading_round_trip() -> None:
    # entries and sections that come, change, go and come back, in any order of bounds
    rng = random.Random(5)
    for _ in range(200):
        snaps = [_random_snapshot(rng) for _ in range(rng.randint(1, 6))]
        log = {"bounds": [{"bound": 0, "snapshot": snaps[0]}]}
        log["bounds"] += [
            {"bound": n, "changes": snapshot_changes(snaps[n - 1], snaps[n])}
            for n in range(1, len(snaps))
        ]
        text = json.dumps(log, sort_keys=True)
        got = [b["snapshot"] for b in expanded(json.loads(text))["bounds"]]
        assert got == snaps
        for g in got:  # sorted, as a whole snapshot read from the file is
            assert list(g) == sorted(g) and list(g["bases"]) == sorted(g["bases"])


def test_a_bound_changed_by_a_reader_leaves_the_next_alone(flodden: dict[str, Any]) -> None:
    read = load_battle_log(flodden["path"])
    side = next(iter(read["bounds"][1]["snapshot"]["seen"]))
    after = list(read["bounds"][2]["snapshot"]["seen"][side])
    read["bounds"][1]["snapshot"]["seen"][side] = []
    assert read["bounds"][2]["snapshot"]["seen"][side] == after
