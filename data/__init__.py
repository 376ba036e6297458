"""The shipped data, installed as the package ``scenario_builder_data`` (see data/SOURCES.md).

Read it with ``scenario_builder.paths.data_dir()``; this file only makes the folder a package so
``importlib.resources`` finds it in wheels and editable installs alike.
"""
