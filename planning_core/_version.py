"""planning-core's version: the one place it is written (``pyproject.toml`` reads it, as
``[tool.setuptools.dynamic]``), so ``planning-core --version`` needs no look-up of the
installed distribution (:mod:`importlib.metadata` was ~0.15 s of CPU, issue 32)."""

__version__ = "0.1.0"
