"""Reading questions and answers, and reading and appending result rows.

Questions come as a JSON list (the IBM release's ``dev.gen.json``), JSON Lines, or Hugging
Face parquet in the ``ibm-research/acp_bench`` layout (``acp_<task>_gen/<split>.parquet``,
same columns). A folder is read whole (every ``*.json``, ``*.jsonl`` and ``*.parquet``
below it, in sorted order). Parquet needs pyarrow (``pip install planning-core[data]``);
without it the error says so.

Answers are JSON Lines ``{"id": ..., "response": ...}``, optionally with ``"task"`` to
tell apart questions of different tasks that share an id. Results are JSON Lines
``{"id", "task", "domain", "score", "reason", "evidence"}``, appended one per answer, so a
run that stops can be resumed (:func:`done_keys`).

Every problem with a file is a :class:`DatasetError` with the file and, for JSON Lines,
the line.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from planning_core.errors import InputError, PlanningError

from planning_core.validators.acp.records import BadQuestion, Question

__all__ = ["Answer", "DatasetError", "done_keys", "load_answers", "load_questions", "prepare_out",
           "question_index", "read_results"]

_SUFFIXES = (".json", ".jsonl", ".parquet")


class DatasetError(PlanningError):
    """A question, answer or result file that cannot be used."""


@dataclass(frozen=True, slots=True)
class Answer:
    id: str
    response: str
    task: str | None = None


def _files(path: Path) -> list[Path]:
    if not path.exists():
        raise InputError("no such file or folder", file=str(path))
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in _SUFFIXES)
        if not found:
            raise DatasetError("the folder has no .json, .jsonl or .parquet file",
                               file=str(path))
        return found
    return [path]


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=str(path)) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=str(path)) from None


def _json_lines(path: Path) -> Iterator[tuple[int, object]]:
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as err:
            raise DatasetError(f"not JSON: {err.msg}", file=str(path), line=number,
                               column=err.colno) from None


def _rows(path: Path) -> Iterator[tuple[str, object]]:
    """(location, row) for every record of one question file."""
    if path.suffix == ".parquet":
        yield from _parquet_rows(path)
        return
    text = _read_text(path)
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as err:
            raise DatasetError(f"not JSON: {err.msg}", file=str(path), line=err.lineno,
                               column=err.colno) from None
        for k, row in enumerate(rows):
            yield f"{path}: record {k}", row
        return
    for number, row in _json_lines(path):
        yield f"{path}:{number}", row


def _parquet_rows(path: Path) -> Iterator[tuple[str, object]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise DatasetError("reading parquet needs pyarrow: pip install 'planning-core[data]'",
                           file=str(path)) from None
    try:
        table = pq.read_table(path)
    except Exception as err:  # noqa: BLE001 - pyarrow raises many kinds for a bad file
        raise DatasetError(f"not a readable parquet file: {err}", file=str(path)) from None
    for k, row in enumerate(table.to_pylist()):
        yield f"{path}: row {k}", row


def load_questions(path: str | Path) -> tuple[Question, ...]:
    """Every question in ``path`` (file or folder), in file order."""
    out: list[Question] = []
    for file in _files(Path(path)):
        for where, row in _rows(file):
            try:
                out.append(Question.from_record(row, where=where))
            except BadQuestion as err:
                raise DatasetError(err.message, file=str(file)) from None
    if not out:
        raise DatasetError("no question found", file=str(path))
    return tuple(out)


def question_index(questions: Iterable[Question]) -> dict[tuple[str, str], Question]:
    """``(task, id) -> question``; a repeated pair is an error."""
    index: dict[tuple[str, str], Question] = {}
    for q in questions:
        key = (q.task, q.id)
        if key in index:
            raise DatasetError(f"question id {q.id} appears twice in task {q.task}")
        index[key] = q
    return index


def load_answers(path: str | Path) -> tuple[Answer, ...]:
    """Answers from a JSON Lines file, in file order; an (id, task) may appear once."""
    file = Path(path)
    if file.is_dir() or not file.exists():
        raise InputError("no such file", file=str(file))
    out: list[Answer] = []
    seen: set[tuple[str | None, str]] = set()
    for number, row in _json_lines(file):
        if not isinstance(row, dict) or "id" not in row or "response" not in row:
            raise DatasetError('an answer is a JSON object with "id" and "response"',
                               file=str(file), line=number)
        response = row["response"]
        if response is None:
            response = ""
        if not isinstance(response, str):
            response = json.dumps(response)
        task = row.get("task")
        answer = Answer(str(row["id"]), response, None if task is None else str(task))
        key = (answer.task, answer.id)
        if key in seen:
            raise DatasetError(f"answer id {answer.id} appears twice", file=str(file),
                               line=number)
        seen.add(key)
        out.append(answer)
    return tuple(out)


def read_results(path: str | Path) -> list[dict]:
    """The rows of a results file (missing file: none). A torn last line is ignored."""
    file = Path(path)
    if not file.exists():
        return []
    lines = _read_text(file).splitlines()
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as err:
            if number == len(lines):  # an interrupted write: the answer is scored again
                break
            raise DatasetError(f"not JSON: {err.msg}", file=str(file), line=number) from None
    return rows


def done_keys(rows: Iterable[dict]) -> set[tuple[str, str]]:
    """``(task, id)`` of every result row, for resuming."""
    return {(str(r.get("task")), str(r.get("id"))) for r in rows}


def prepare_out(path: Path) -> None:
    """Make ``path`` appendable: its folder exists, a torn last line is cut off."""
    if path.is_dir():
        raise InputError("is a folder, not a file", file=str(path))
    if not path.parent.exists():
        raise InputError("the folder does not exist", file=str(path.parent))
    if path.exists():
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            with open(path, "r+b") as f:
                f.truncate(cut)
