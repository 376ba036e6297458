"""Out: folium battlefield maps, battle playback, printable true-scale layouts and cut layers.

``maps`` reads a built :class:`~scenario_builder.battlefield.Battlefield` (and, for playback, a
``battle_log.json``) and writes files for people: HTML that opens with or without a network, PDF
sheets that tape together into a true-scale table, and one SVG/PDF cut layer per height step.
"""
