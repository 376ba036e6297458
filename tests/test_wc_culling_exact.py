"""War & Conquest's morale module on 2mm Earth (ruleset ``2mm-earth-v0.9+wc-morale``) culls its
pairwise work without changing a battle: the Morale Tests' fleeing friends beyond
the 5" of their trigger are left out ("Fleeing Friends within 5\\""), the friend triggers come
from the fleeing and destroyed formations alone, and a flight's crossed friends (Command Tests,
"friends flee through it") are sought among those within reach of its way. Fought on real
ground (the engine benchmark's two lines on Minden) with and without the cuts: the whole logs
must be the same."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench_engine import fight, last_stand, scenario

from engine.battle import Battle
from engine.dice import Dice
from engine.orders import InstantDelivery
from tests.reference import culling as culling_ref

WC = "2mm-earth-v0.9+wc-morale"


def _log(bf, sc) -> str:
    b = Battle(bf, sc, Dice(2), ruleset=WC, delivery=InstantDelivery())
    fight(bf, sc, battle=b)
    return json.dumps([(r.bound, r.events, r.snapshot) for r in b.log.bounds], default=str)


def test_culled_wc_battle_is_the_uncut_battle(built_minden, monkeypatch) -> None:
    import engine.rulesets.war_and_conquest.battle as wc

    bf = built_minden.battlefield
    sc = last_stand(scenario(bf, 40))
    culled = _log(bf, sc)
    monkeypatch.setattr(wc, "swept_rows", culling_ref.every_row)
    monkeypatch.setattr(wc, "_beyond_inches", culling_ref.never_beyond_inches)
    monkeypatch.setattr(wc, "_not_steady", culling_ref.every_formation)
    uncut = _log(bf, sc)
    assert culled == uncut
    # the cuts were in play: units fled, and tests were taken
    assert "Rout(" in culled and "WCTest(" in culled
