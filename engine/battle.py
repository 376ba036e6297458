"""A battle: deploy a scenario on a battlefield and fight it bound by bound.

```python
battle = Battle(bf, load_scenario("flodden_1513"), Dice(7))
log = battle.run()      # until a side breaks (victory.rout_fraction) or max_bounds
log.result["winner"]
```

``battle.phases()`` plays one bound and yields after each phase (for side-by-side determinism
tests); ``battle.step()`` plays one bound and returns its :class:`~engine.log.BoundRecord`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine import sieges
from engine.bound import PHASES, run_bound
from engine.context import BoundContext
from engine.deploy import deploy
from engine.dice import Dice
from engine.log import BattleLog, BoundRecord
from engine.movement import update_contacts
from engine.orders import Commander, Delivery, StandingOrders
from engine.rulesets import get_ruleset
from engine.scenario import Scenario
from engine.sight import Sight
from engine.state import BaseStatus, BattleState, Morale

__all__ = ["PHASES", "Battle", "snapshot"]


def snapshot(state: BattleState, delivery: Any = None) -> dict[str, Any]:
    """Every base, formation state, messengers in flight and losses, as the log stores them."""
    bases: dict[str, Any] = {}
    forms: dict[str, Any] = {}
    for f in state.formations.values():
        gone = f.morale is Morale.DESTROYED
        for b in f.bases:
            bases[b.id] = {
                "x": b.x,
                "y": b.y,
                "facing": b.facing,
                "formation": b.formation,
                "state": "dead" if gone and b.status is BaseStatus.DEAD else b.status.value,
            }
        forms[f.id] = {"morale": f.morale.value, "order": f.order, "wing_of": f.wing_of}
    return {
        "bases": bases,
        "formations": forms,
        "messengers": delivery.snapshot() if delivery is not None else [],
        "losses": state.losses(),
    }


class Battle:
    """One fight of ``scenario`` on ``battlefield`` with the one ``dice``."""

    def __init__(
        self,
        battlefield: Any,
        scenario: Scenario,
        dice: Dice,
        ruleset: Any = None,
        commanders: dict[str, Commander] | None = None,
        delivery: Delivery | None = None,
    ) -> None:
        self.bf = battlefield
        self.scenario = scenario
        self.dice = dice
        if ruleset is None or isinstance(ruleset, str):
            ruleset = get_ruleset(ruleset or scenario.ruleset)
        self.ruleset = ruleset
        self.state = deploy(scenario, battlefield)
        self.sight = Sight(
            battlefield,
            self.state,
            weather=scenario.weather,
            time=scenario.time,
            locality=scenario.locality,
            sight_limit=ruleset.sight_limit_m,
        )
        if commanders is None:
            commanders = {
                s.id: StandingOrders.from_scenario(scenario, s.id, battlefield.to_xy)
                for s in scenario.sides
            }
        if delivery is None:  # 9.1-9.2: messengers (engine.messengers) unless told otherwise
            from engine.messengers import MessengerDelivery

            delivery = MessengerDelivery.for_scenario(battlefield, scenario)
        self.delivery = delivery
        self.ctx = BoundContext(
            battlefield,
            self.state,
            dice,
            ruleset,
            self.sight,
            scenario,
            dict(commanders),
            self.delivery,
            has_walls=sieges.has_fortifications(battlefield),
        )
        self.ctx.base_pairs = update_contacts(self.state)  # deployed in contact (3.2)
        self.log = BattleLog(self._header())
        self.log.bounds.append(BoundRecord(0, [], snapshot(self.state, self.delivery)))
        self.result: dict[str, Any] | None = None

    # -- the log header ---------------------------------------------------------------------
    def _header(self) -> dict[str, Any]:
        sc = self.scenario
        st = self.state
        crs = self.bf.crs
        epsg = crs.to_epsg()
        return {
            "ruleset": self.ruleset.name,
            "scenario": sc.id,
            "seed": self.dice.seed,
            "crs": f"EPSG:{epsg}" if epsg else crs.to_string(),
            "battlefield": sc.battlefield.model_dump(exclude_defaults=True, mode="json"),
            # 6.3: what limits each side's sight (maps draw fog of war from these)
            "weather": sc.weather,
            "time": sc.time,
            "locality": sc.locality,
            "sides": [
                {
                    "id": s.id,
                    "name": s.name,
                    "colour": s.colour,
                    "locality": st.sides[s.id].locality,
                }
                for s in sc.sides
            ],
            "formations": [
                {"id": f.id, "side": f.side, "name": f.name, "profile": f.profile.id}
                for f in st.formations.values()
            ],
            "bases": [
                {
                    "id": b.id,
                    "side": b.side,
                    "formation": b.formation,
                    "profile": b.profile.id,
                    "unit_type": b.profile.unit_type.value,
                    "character": b.character,
                    "w": b.w,
                    "d": b.d,
                }
                for f in st.formations.values()
                for b in f.bases
            ],
        }

    # -- playing ----------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.result is not None

    def phases(self) -> Iterator[str]:
        """Play one bound, yielding each phase name after it is done; then record the bound."""
        if self.finished:
            return
        yield from run_bound(self.ctx)
        record = BoundRecord(
            self.state.bound, list(self.ctx.events), snapshot(self.state, self.delivery)
        )
        self.log.bounds.append(record)
        self._check_end()

    def step(self) -> BoundRecord:
        for _ in self.phases():
            pass
        return self.log.bounds[-1]

    def run(self, max_bounds: int | None = None) -> BattleLog:
        limit = max_bounds if max_bounds is not None else self.scenario.max_bounds
        while not self.finished and self.state.bound < limit:
            self.step()
        if not self.finished:
            self._finish(None, f"no decision after {self.state.bound} bounds")
        return self.log

    def _check_end(self) -> None:
        frac = self.scenario.victory.rout_fraction
        broken = {s: self.state.broken_fraction(s) for s in self.state.sides}
        lost = sorted(s for s, v in broken.items() if v >= frac or not self.state.active(s))
        if not lost:
            if self.state.bound >= self.scenario.max_bounds:
                self._finish(None, f"no decision after {self.state.bound} bounds")
            return
        standing = [s for s in self.state.sides if s not in lost]
        if len(standing) == 1:
            names = " and ".join(f"{s} army" for s in lost)
            self._finish(standing[0], f"{names} routed")
        elif not standing:
            best = min(broken.values())
            winners = [s for s, v in broken.items() if v == best]
            self._finish(winners[0] if len(winners) == 1 else None, "both armies broke")

    def _finish(self, winner: str | None, reason: str) -> None:
        self.result = {
            "winner": winner,
            "bounds": self.state.bound,
            "reason": reason,
            "losses": self.state.losses(),
            "broken": {s: round(self.state.broken_fraction(s), 3) for s in self.state.sides},
        }
        self.log.result = self.result
