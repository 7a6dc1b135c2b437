"""Prompt templates for CoPE's planner and PDDL formalizer settings.

The templates (``prompts/*.txt``) follow the structure of the paper's prompts (Huang et al.,
"Language Model as Planner and Formalizer under Constraints"), in this project's own
wording: a role line, the domain description, the problem description, the constraint, the
task, the available action heads, and the answer format (a JSON object with a ``plan`` list,
or with ``domain file`` and ``problem file``). The editing formalizer is two prompts: first
the unconstrained task (``pddl_edit_original``), then "change these files so that they also
enforce" the constraint (``pddl_edit``). A revision shows the error and the current files
(``pddl_revise``). The SMT formalizer is asked for a z3 Python program that prints the plan
(``smt_generate``, revised with ``smt_revise``), the LTL formalizer for the constraint as an
LTLf formula over the unconstrained task's PDDL, which it is shown (``ltl_generate``,
``ltl_revise``).

Templates are :class:`string.Template` texts (``$name``), so the JSON braces in them need no
escaping; a missing value raises ``KeyError`` rather than leaving a hole in a prompt.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from string import Template

from planning_core.validators.cope.dataset import Pair

__all__ = ["TEMPLATES", "template", "render", "pair_fields"]

TEMPLATES = ("planner", "pddl_generate", "pddl_edit_original", "pddl_edit", "pddl_revise",
             "smt_generate", "smt_revise", "ltl_generate", "ltl_revise")


@lru_cache(maxsize=None)
def template(name: str) -> Template:
    if name not in TEMPLATES:
        raise KeyError(f"no prompt template {name!r}; known: {', '.join(TEMPLATES)}")
    text = resources.files("planning_core.validators.formalizations").joinpath("prompts", f"{name}.txt")
    return Template(text.read_text(encoding="utf-8"))


def _base_heads(pair: Pair) -> str:
    """The unconstrained dataset's action heads (``action_heads/action_heads.txt``)."""
    if pair.base_domain_path is not None:
        path = Path(pair.base_domain_path).parent.parent / "action_heads" / "action_heads.txt"
        from planning_core.errors import InputError
        from planning_core.pddl.files import read_bytes

        try:   # the shared bounded reader: a regular file only
            return read_bytes(path).decode("utf-8").strip()
        except (OSError, InputError, UnicodeDecodeError):
            pass
    return (pair.action_heads_text or "").strip()


def _base_file(path: Path | None) -> str:
    """The unconstrained task's PDDL (the LTL prompt's vocabulary; not the ground truth)."""
    if path is None:
        return ""
    from planning_core.errors import InputError
    from planning_core.pddl.files import read_bytes

    try:   # the shared bounded reader: a regular file only
        return read_bytes(Path(path)).decode("utf-8", errors="replace").strip()
    except (OSError, InputError):
        return ""


def pair_fields(pair: Pair) -> dict[str, str]:
    """Values every template may use, taken from the pair as the model is shown it."""
    heads = (pair.action_heads_text or "").strip()
    example = "\n".join("(" + " ".join((h.name,) + h.params) + ")"
                        for h in pair.action_heads[:2])
    return {
        "domain_description": (pair.domain_description or "").strip(),
        "problem_description": (pair.problem_description or "").strip(),
        "constraint_description": pair.constraint_text.strip(),
        "action_heads": heads,
        "base_action_heads": _base_heads(pair),
        "example": example,
        "base_domain": _base_file(pair.base_domain_path),
        "base_problem": _base_file(pair.base_problem_path),
    }


def render(name: str, pair: Pair, **extra: str) -> str:
    """Fill template ``name`` with the pair's fields and ``extra`` (files, error)."""
    return template(name).substitute({**pair_fields(pair), **extra})
