"""The medieval d10 game (``/work/shared/rules/002_ab38124a85c18dc4.txt``) as ruleset
``medieval-d10``: units of figures, a d10 per five figures, game turns of the book's phases
1-13, 15 and 16.

- :mod:`.charts`: every chart of the quick reference as printed, parsed into lookups
- :mod:`.procedures`: the dice procedures (firing, melee, misfires, morale, control, initiative)
  as pure functions of one :class:`engine.dice.Dice`
- :mod:`.odds`: the procedures' exact odds (``Fraction``) and seeded simulations
- :mod:`.units`: the unit of figures and this ruleset's troop-list schema
- :mod:`.terrain`: the Battlefield's ``feature`` vocabulary -> this ruleset's terrain, slopes
- :mod:`.scale`: ground scale per figure scale (15 mm, 25 mm)
- :mod:`.battle`: the game turn's phases over units of figures on a built battlefield
- :mod:`.ruleset`: the registered ``medieval-d10`` on the ruleset seam
"""

from engine.rulesets.medieval_d10 import ruleset as _ruleset  # noqa: F401  (registers)
