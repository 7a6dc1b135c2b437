"""Helpers the Dask tests run *on a worker* (``client.run``): they must live in an
importable module, since LocalCluster workers are spawned, not forked."""
from __future__ import annotations

import os


def set_env(name: str, value: str | None) -> None:
    """Set (or, with None, remove) an environment variable of the worker process."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def get_env(name: str) -> str | None:
    return os.environ.get(name)
