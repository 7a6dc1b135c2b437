"""Tool arguments checked against the tool's JSON schema before the tool runs.

A model's call whose arguments break the schema (a missing required parameter, a value of
the wrong JSON type, a value outside an ``enum``) is refused with an error naming the
parameter, as the released tools refuse a bad call -- never turned into text and looked up
(``origin: 5`` is not the city "5").  The subset checked is the one our schemas use:
``type`` (string, integer, number, boolean, array, object), ``items``, ``enum``,
``required``.  JSON Schema counts ``2.0`` as an integer; booleans are never numbers.
"""
from __future__ import annotations

import json
from typing import Any

from planning_core.validators.deepplanning.jsontext import loads

__all__ = ["call_arguments", "check_arguments"]

_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
          list: "an array", dict: "an object", type(None): "null"}

_KINDS = {"string": "a string", "integer": "an integer", "number": "a number",
          "boolean": "a boolean", "array": "an array", "object": "an object"}


def _what(value: Any) -> str:
    return _NAMES.get(type(value), type(value).__name__)


def _fits(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or \
            (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True     # a type our schemas do not use: not checked


def _check(value: Any, schema: dict, where: str) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, str) and not _fits(value, kind):
        return f"argument {where!r} must be {_KINDS.get(kind, kind)}, not {_what(value)}"
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        return f"argument {where!r} must be one of {enum}, not {str(value)[:80]!r}"
    items = schema.get("items")
    if kind == "array" and isinstance(items, dict):
        for i, v in enumerate(value):
            err = _check(v, items, f"{where}[{i}]")
            if err:
                return err
    return None


def check_arguments(arguments: dict[str, Any], parameters: dict) -> str | None:
    """The first way ``arguments`` break ``parameters`` (an object schema), or ``None``.
    Integral floats given for an ``integer`` parameter are made ints in place, and a
    ``null`` is taken as the parameter not given (models often send ``null`` for the
    optional parameters they leave out; for a required one it is a missing argument)."""
    for name in [k for k, v in arguments.items() if v is None]:
        del arguments[name]
    required = [k for k in parameters.get("required") or [] if k not in arguments]
    if required:
        return f"missing required argument {required[0]!r}" + \
            (f" (and {required[1:]})" if required[1:] else "")
    props = parameters.get("properties") or {}
    for name, value in arguments.items():
        schema = props.get(name)
        if not isinstance(schema, dict):
            continue        # unknown arguments are ignored, as the schemas do not forbid them
        err = _check(value, schema, name)
        if err:
            return err
        if schema.get("type") == "integer" and isinstance(value, float):
            arguments[name] = int(value)
    return None


def call_arguments(arguments: str | dict, parameters: dict) -> tuple[dict | None, str | None]:
    """A tool call's arguments as the model sent them (a JSON text or an object), read and
    checked against the tool's ``parameters``: ``(arguments, None)``, or ``(None, why)``
    for the error the tool answers with. Both sandboxes' tools start every call here."""
    if isinstance(arguments, str):
        try:
            arguments = loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as err:
            return None, f"arguments are not JSON: {err}"
    if not isinstance(arguments, dict):
        return None, "arguments must be a JSON object"
    bad = check_arguments(arguments, parameters)
    return (None, bad) if bad else (arguments, None)
