"""The project's exception hierarchy.

Library code raises these and never prints or exits; the CLI layer (``planning_core.cli``)
maps them to exit codes. Every error that stems from a user's file carries the file, line
and column so that a message can be acted on without reading a traceback.
"""
from __future__ import annotations


class PlanningError(Exception):
    """Root of every error planning_core raises on purpose."""

    def __init__(self, message: str, *, file: str | None = None,
                 line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column

    def location(self) -> str:
        parts = [self.file or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        return f"{self.location()}: {self.message}"

    def to_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.column,
                "message": self.message}


class PDDLSyntaxError(PlanningError):
    """Text that is not PDDL (or not a plan): says what was found and what was expected."""


class SemanticError(PlanningError):
    """Well-formed text that names undeclared things, breaks arity or types, and so on."""


class UnsupportedFeature(PlanningError):
    """Valid PDDL using a feature this engine does not implement (e.g. durative actions)."""


class EngineError(PlanningError):
    """An external engine (Fast Downward) failed in a way that is not a planning answer."""


class InputError(PlanningError):
    """A file that cannot be read at all: missing, a directory, not text."""
