"""The lm-evaluation-harness task package: ``lm_eval --include_path <this folder>``.

Eight generative ACPBench Hard tasks (``planning_core_acp_<task>_gen``) and their group
``planning_core_acp_hard``. The YAML files hold the harness settings; ``utils.py`` loads
the questions from a local file (no download) and scores with planning_core's scorers.
``planning-core acp lm-eval-tasks`` prints this folder.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["GROUP", "task_folder"]

GROUP = "planning_core_acp_hard"


def task_folder() -> Path:
    """The installed folder holding the YAML files (for ``--include_path``)."""
    return Path(__file__).resolve().parent
