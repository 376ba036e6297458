"""2mm Earth's notes across the phases of one bound (plans, shots, hits, contacts, caches)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.context import BoundContext
from engine.state import Formation

if TYPE_CHECKING:
    from engine.movement import MovePlan, MoveRules
    from engine.orders import Delivery
    from engine.rulesets.two_mm_earth.rulesets import TwoMmEarth
    from engine.rulesets.two_mm_earth.shooting import ShotPlan

__all__ = ["TwoMmContext"]


@dataclass(slots=True)
class TwoMmContext(BoundContext):
    plans: dict[str, MovePlan] = field(default_factory=dict)  # fid -> this bound's move plan
    shots: dict[str, ShotPlan] = field(default_factory=dict)  # fid -> this bound's shot
    pending_hits: list[tuple[str, int, tuple[float, float], str]] = field(default_factory=list)
    base_pairs: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    allowances: dict[str, float] = field(default_factory=dict)  # fid -> metres this bound
    start_poses: dict[str, dict[str, tuple[float, float, float]]] = field(default_factory=dict)
    cover_cache: dict[tuple[str, int], list[int]] = field(default_factory=dict)
    has_walls: bool = False
    #: bases destroyed by 11.1 for touching an enemy at the end of their rout bound: caught by
    #: the enemy, counted as captured (docs/rules-interpretations.md, "Killed, wounded and
    #: captured")
    caught: set[str] = field(default_factory=set)
    #: 5.1: groups 11.1 parted from their formation (group id -> the original's id): they move
    #: only towards an enemy or a friend from their original formation (phases._separated_plan)
    separated: dict[str, str] = field(default_factory=dict)
    #: fid -> the bound in whose melee attacks on it get +1 (War & Conquest: a unit that failed
    #: its morale test while its combat goes on gives its enemy +1 next round; 2mm Earth sets
    #: none)
    melee_bonus_against: dict[str, int] = field(default_factory=dict)
    #: this bound's charges (special rule shock_of_charge): charged formation -> the enemy whose
    #: move ended in contact with it, the contact still holding after the moves
    charged: dict[str, str] = field(default_factory=dict)
    #: a composed morale module's flee move, called for a ROUTING mover in place of
    #: ``engine.movement.execute_move`` with the same arguments (War & Conquest: fleeing troops
    #: pass through friends, ``war_and_conquest.battle.flee_move``); None: 2mm Earth's own
    #: (a friend blocks the way)
    flee_move: Any = None
    #: a composed morale module's notes kept across the battle (War & Conquest:
    #: ``war_and_conquest.battle.WCNotes``); 2mm Earth keeps none
    morale_notes: Any = None

    #: this bound's movement rules with special rule exhaustion's slowing (bound, rules)
    tired_rules: tuple[int, MoveRules] | None = None

    @property
    def move_rules(self) -> MoveRules:
        """The movement rules of this bound: the ruleset's (a composed ruleset whose moves are
        rolled each bound, such as ``dark-age``, gives a context of its own that overrides this),
        an exhausted formation's speed scaled (special rule exhaustion)."""
        own = self.ruleset.move_rules
        if self.special.exhaustion is None or not self.special.tired_formations:
            return own
        kept = self.tired_rules
        if kept is None or kept[0] != self.state.bound:
            kept = self.tired_rules = (self.state.bound, _tired_rules(self, own))
        return kept[1]

    @property
    def rs(self) -> TwoMmEarth:
        """The ruleset as 2mm Earth's own class (the core types it as a ``Ruleset``)."""
        return self.ruleset  # type: ignore[return-value]  # TwoMmEarth.new_context made it

    @property
    def orders_delivery(self) -> Delivery:
        assert self.delivery is not None, "Battle always sets a delivery"
        return self.delivery

    def cover_classes(self, f: Formation) -> list[int]:
        """7.1 cover classes of a formation's footprint, kept while the formation stays as
        it is (``Formation.revision``: its place, bases and their places; the ground does not
        change), across bounds."""
        key = (f.id, f.revision)
        hit = self.cover_cache.get(key)
        if hit is None:
            from engine.movement import footprint_classes
            from engine.rulesets.two_mm_earth.sieges import cover_override

            hit, _ = footprint_classes(self.bf, f, "cover")
            if self.has_walls:
                hit = cover_override(self.bf, f, hit)
            self.cover_cache[key] = hit
        return hit

    def cover_class(self, f: Formation, kind: str) -> int:
        """The one cover class used for ``f``: the applicable class that helps it most (7.2)."""
        classes = self.cover_classes(f)
        if not classes:
            return 0
        return max(
            classes,
            key=lambda c: (self.rs.cover_modifier(f.unit_type, c, kind), c),
        )


def _tired_rules(ctx: TwoMmContext, own: MoveRules) -> MoveRules:
    """``own`` with each exhausted formation's speed times the rule's ``speed_factor`` (on top
    of 1.1 / 2.4's halving: the two are different causes)."""
    import dataclasses

    bound = ctx.state.bound
    special = ctx.special
    base_speed = own.speed_m

    def speed_m(f: Formation) -> Any:
        fn = base_speed(f)
        spec = special.exhausted(f, bound)
        if spec is None:
            return fn
        k = spec.speed_factor

        def slowed(move_class: int) -> float | None:
            s = fn(move_class)
            return None if s is None else s * k

        return slowed

    return dataclasses.replace(own, speed_m=speed_m)
