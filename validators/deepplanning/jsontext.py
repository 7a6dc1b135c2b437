"""JSON from untrusted text (a model's answer, its tool arguments, a results or query file)
that fails the way ``json.loads`` documents, whatever the text holds.

``json.loads`` can also raise ``RecursionError`` (arrays nested some thousand deep) and a
plain ``ValueError`` (an integer of more than 4,300 digits); either used to escape the
readers as an internal error.  :func:`loads` turns both, and any value nested more than
:data:`MAX_DEPTH` deep (which later ``repr``/``json.dumps`` calls could not handle), into
``json.JSONDecodeError``, so every existing ``except json.JSONDecodeError`` records them.
"""
from __future__ import annotations

import json
from typing import Any

from planning_core import safe_json

__all__ = ["loads", "MAX_DEPTH"]

MAX_DEPTH = 100


def _too_deep(obj: Any, limit: int) -> bool:
    stack = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``; ``json.JSONDecodeError`` for anything it cannot return safely."""
    doc = text if isinstance(text, str) else text.decode("utf-8", errors="replace")
    obj = safe_json.loads(doc)      # long integers and deep nesting: JSONDecodeError too
    if _too_deep(obj, MAX_DEPTH):
        raise json.JSONDecodeError(f"nested more than {MAX_DEPTH} deep", doc, 0)
    return obj
