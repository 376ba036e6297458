"""Dark Age formations and movement (``003_e8e36df29227b52b.txt``, chapter 5): the ``dark-age``
movement module. The seed has no combat, morale or turn chapter; those come from other games.
"""
