"""Reference implementations: the slow, obviously correct code the fast code must agree with.

A reference is one of two things: the plain reading of a rule (``sight.rule_6_2`` samples a line
of sight point by point, as 6.2 reads) or the code as it stood before an optimisation (the
movement sweep over the whole table before its culling, the ``json`` module's battle log before
orjson). The rule: a reference is kept only to pin the fast code byte for byte (``==`` on floats,
the sign of a zero included, the same log bytes), so it is never "improved" towards the fast
code; a fast path that changes is checked against the reference it replaced, and a reference is
deleted only with the test that used it.

Each function's docstring names the fast code it pins and the rule section it plays. The tests
that use them (``tests/test_*_matches_reference.py`` and others) import them as
``from tests.reference import movement as movement_ref``; the repository root is on the import
path (pyproject's ``[tool.pytest.ini_options] pythonpath``). One module per concept:

- ``geometry``: rectangle gaps, contacts and slab tests (``engine.geometry``);
- ``movement``: the move phase's sweep, footprints, turns and retreats (``engine.movement``,
  ``engine.state.Formation``, the 2mm Earth movement phase);
- ``sight``: line of sight, troops in the way and hearing (``scenario_builder.los``,
  ``engine.sight``);
- ``morale``: the 2mm Earth morale triggers and the friends seen (``two_mm_earth.morale``);
- ``plans``: the planning phases' questions (``two_mm_earth.phases``);
- ``distances``: the pair-by-pair gap kernel (``engine.geometry.distance_pairs``);
- ``log_json``: ``battle_log.json`` as the ``json`` module wrote it (``engine.log``);
- ``culling``: stand-ins that cull nothing (every row, every foe, every unit a candidate), for
  the rulesets' culled neighbour searches.
"""
