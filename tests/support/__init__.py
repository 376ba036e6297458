"""Helpers the test modules share (not tests, not references): tests/ is no package, so they are
imported as ``tests.support.*`` (the repository root is on sys.path, pyproject.toml)."""
