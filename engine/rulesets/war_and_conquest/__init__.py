"""War & Conquest: the resolution, morale and command module (``wc-morale``).

Only the morale and command chapter of the book is in the project
(``/work/shared/rules/004_3e419fecf92d7f8f.txt``); it is a module other rulesets compose with,
not a whole game. See :mod:`engine.rulesets.war_and_conquest.morale`.
"""
