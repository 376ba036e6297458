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
- :mod:`.game`: the battle over units of figures on a built battlefield, its questions (gaps,
  sight, flanks) and the game turn as the GAME TURN SEQUENCE's table of phases
  (:data:`~.game.PHASES`)
- :mod:`.state`: the units', figures' and modes' state the phases read and write: this book's
  fields on the core's formations (a unit's place, figures and morale are its formation's)
- the phases, one module a concept: :mod:`.initiative` (1), :mod:`.weather` (2),
  :mod:`.compulsory` (3), :mod:`.charges` (4-9), :mod:`.morale` (10, 15), :mod:`.normal`
  (11-12) with :mod:`.fire`, :mod:`.melee` (13), :mod:`.control` (16); :mod:`.moves` (moves over
  the ground) and :mod:`.commanders` (Commander and Inspirational Figures) serve them
- :mod:`.ruleset`: the registered ``medieval-d10`` on the ruleset seam
"""

from engine.rulesets.medieval_d10 import ruleset as _ruleset  # noqa: F401  (registers)
