"""Reading questions and answers, and reading and appending result rows.

Questions come as a JSON list (the IBM release's ``dev.gen.json``), JSON Lines, or Hugging
Face parquet in the ``ibm-research/acp_bench`` layout (``acp_<task>_gen/<split>.parquet``,
same columns). A folder is read whole (every ``*.json``, ``*.jsonl``, ``*.parquet``,
``*.json.gz`` and ``*.jsonl.gz`` below it, in sorted order), so the IBM repository's own
``dataset/`` folder works as it is: its boolean and multiple-choice files (``*.bool.json``,
``*.mcq.json``, gzipped or not) are not generative questions and are skipped, each with a
note (``load_questions(path, notes)``), and its gzipped test files are read. Parquet needs pyarrow (``pip install planning-core[data]``);
without it the error says so.

Answers are JSON Lines ``{"id": ..., "response": ...}``, optionally with ``"task"`` to
tell apart questions of different tasks that share an id, or lm-evaluation-harness
``--log_samples`` output (``samples_<task>_<date>.jsonl``: one row per question with the
dataset row in ``doc``, the raw generations in ``resps`` and the filtered ones in
``filtered_resps``), one file or a folder of them. Results are JSON Lines
``{"id", "task", "domain", "score", "reason", "evidence", "response_sha256", "cpu_s",
"budget"}``,
appended one per answer, so a run that stops can be resumed: an answer is skipped when a row
with its ``(task, id)`` and the hash of its response exists (:func:`is_done`); an edited
response is scored again and its new row supersedes the old one (:func:`current_rows`).

Every problem with a file is a :class:`DatasetError` with the file and, for JSON Lines,
the line.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Iterator

from planning_core.errors import InputError, PlanningError

from planning_core.validators.acp.records import GROUPS, TASKS, BadQuestion, Question
from planning_core import safe_json

__all__ = ["Answer", "BadRow", "DatasetError", "current_rows", "done_keys", "is_done",
           "load_answers", "response_hash", "scored_hashes", "load_questions",
           "question_index", "read_results"]

_SUFFIXES = (".json", ".jsonl", ".parquet")
_GZ_SUFFIXES = (".json.gz", ".jsonl.gz")
#: Largest decompressed ``.gz`` question file (the IBM test files are a few MB).
MAX_GZ_BYTES = 512 * 2 ** 20


def _other_format(path: Path) -> bool:
    """An ACPBench boolean or multiple-choice file (``dev.bool.json``, ``test.mcq.json.gz``)."""
    return any(part in ("bool", "mcq") for part in path.name.lower().split(".")[1:])


class DatasetError(PlanningError):
    """A question, answer or result file that cannot be used."""


@dataclass(frozen=True, slots=True)
class Answer:
    id: str
    response: str
    task: str | None = None
    source: str = field(default="", compare=False)   # file:line, for messages


#: ``evidence`` of a result row recording an answer row that could not be scored at all.
BAD_INPUT = "bad-input"


@dataclass(frozen=True, slots=True)
class BadRow:
    """An answer row that cannot be scored (not JSON, no id, a repeated or unknown id).

    ``acp score`` records it as a result row (:meth:`to_row`) and goes on, unless
    ``--strict``; :func:`done_keys` keys it by ``source`` so a resumed run does not record
    it again.
    """

    source: str
    message: str
    id: str | None = None
    task: str | None = None

    def to_row(self) -> dict:
        return {"id": self.id, "task": self.task, "domain": None, "score": None,
                "reason": f"{self.source}: {self.message}", "evidence": BAD_INPUT,
                "source": self.source}


def _files(path: Path, notes: list[str] | None = None) -> list[Path]:
    if not path.exists():
        raise InputError("no such file or folder", file=str(path))
    if path.is_dir():
        found = []
        for p in sorted(path.rglob("*")):
            if not p.is_file() or not (p.suffix in _SUFFIXES
                                       or p.name.lower().endswith(_GZ_SUFFIXES)):
                continue
            if _other_format(p):
                if notes is not None:
                    notes.append(f"{p}: skipped (boolean or multiple-choice questions; only "
                                 "generative *.gen.json questions are scored)")
                continue
            found.append(p)
        if not found:
            raise DatasetError("the folder has no .json, .jsonl or .parquet file",
                               file=str(path))
        return found
    return [path]


def _read_text(path: Path) -> str:
    if path.name.lower().endswith(".gz"):
        return _read_gz(path)
    from planning_core.pddl.files import read_bytes

    try:   # the shared bounded reader: a regular file only (a FIFO is refused)
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=str(path)) from None


def _read_gz(path: Path) -> str:
    import gzip
    import zlib

    from planning_core.pddl.files import refuse_irregular

    refuse_irregular(path)   # gzip.open() of a FIFO waited for a writer forever
    try:
        with gzip.open(path, "rb") as f:
            data = f.read(MAX_GZ_BYTES + 1)
    except (OSError, EOFError, zlib.error) as err:
        raise InputError(f"not a readable gzip file: {err}", file=str(path)) from None
    if len(data) > MAX_GZ_BYTES:
        raise InputError(f"decompresses to more than {MAX_GZ_BYTES // 2 ** 20} MB",
                         file=str(path))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=str(path)) from None


def _json_lines(path: Path, bad: list[BadRow] | None = None
                ) -> Iterator[tuple[int, object]]:
    """(line number, value) per non-blank line; a line that is not JSON (or not UTF-8:
    one bad byte spoils its line, not the file) raises, or is recorded in ``bad`` when
    that is a list."""
    from planning_core.pddl.files import read_bytes

    data = read_bytes(path)   # the shared bounded reader: a regular file only
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            _bad(bad, DatasetError(f"not UTF-8 text (byte 0x{raw[err.start]:02x})",
                                   file=str(path), line=number, column=err.start + 1))
            continue
        if not line.strip():
            continue
        try:
            yield number, safe_json.loads(line)
        except json.JSONDecodeError as err:   # long integers and deep nesting included
            _bad(bad, DatasetError(f"not JSON: {err.msg}", file=str(path), line=number,
                                   column=err.colno))


def _rows(path: Path) -> Iterator[tuple[str, object]]:
    """(location, row) for every record of one question file."""
    if path.suffix == ".parquet":
        yield from _parquet_rows(path)
        return
    text = _read_text(path)
    if text.lstrip().startswith("["):
        try:
            rows = safe_json.loads(text)
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


def load_questions(path: str | Path, notes: list[str] | None = None
                   ) -> tuple[Question, ...]:
    """Every question in ``path`` (file or folder), in file order; files of a folder that
    were skipped are noted in ``notes`` when given.

    Questions about one problem share its domain and problem text objects: a batch task
    that carries a group of them (to a worker process or a Dask cluster) then pickles each
    text once, not once per answer, and the caller holds one copy."""
    out: list[Question] = []
    texts: dict[str, str] = {}
    for file in _files(Path(path), notes):
        for where, row in _rows(file):
            try:
                q = Question.from_record(row, where=where)
            except BadQuestion as err:
                raise DatasetError(err.message, file=str(file)) from None
            out.append(replace(q, domain_text=texts.setdefault(q.domain_text, q.domain_text),
                               problem_text=texts.setdefault(q.problem_text, q.problem_text)))
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


def _bad(bad: list[BadRow] | None, error: DatasetError, **key) -> None:
    """Record ``error`` as a bad row, or raise it when no list collects them (strict)."""
    if bad is None:
        raise error
    where = f"{error.file}:{error.line}" if error.line else str(error.file)
    bad.append(BadRow(where, error.message, **key))


def _first_text(value: object) -> str | None:
    """The first string in an lm-eval ``resps`` value (a list per request of a list per
    repeat of generations), depth first."""
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def _samples_answer(row: dict) -> tuple[str, str, str | None] | str:
    """(id, response, task) of an lm-evaluation-harness sample row, or why not."""
    doc = row.get("doc")
    if not isinstance(doc, dict) or "id" not in doc:
        return 'an lm-eval sample row needs "doc" with the question\'s "id"'
    response = _first_text(row.get("resps"))
    if response is None:
        response = _first_text(row.get("filtered_resps"))
    if response is None:
        return 'an lm-eval sample row needs a generation in "resps" or "filtered_resps"'
    group = doc.get("group")
    task = GROUPS.get(str(group), str(group) if group in TASKS else None)
    if doc.get("task") in TASKS:   # the project's own lm-eval tasks name the task
        task = doc["task"]
    return str(doc["id"]), response, task


def _answer_files(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        if not found:
            raise DatasetError("the folder has no .jsonl file", file=str(path))
        return found
    if not path.exists():
        raise InputError("no such file", file=str(path))
    return [path]


def load_answers(path: str | Path, bad: list[BadRow] | None = None) -> tuple[Answer, ...]:
    """Answers from a JSON Lines file (or lm-eval samples files), in file order.

    An (id, task) may appear once. A row that cannot be used raises :class:`DatasetError`
    with its line, or, when ``bad`` is a list, is appended to it as a :class:`BadRow`
    and skipped (``acp score`` without ``--strict``).
    """
    out: list[Answer] = []
    seen: set[tuple[str | None, str]] = set()
    for file in _answer_files(Path(path)):
        for number, row in _json_lines(file, bad):
            where = {"file": str(file), "line": number}
            if isinstance(row, dict) and "doc" in row and "response" not in row:
                found = _samples_answer(row)
                if isinstance(found, str):
                    _bad(bad, DatasetError(found, **where))
                    continue
                answer = Answer(found[0], found[1], found[2], f"{file}:{number}")
            elif not isinstance(row, dict) or "id" not in row or "response" not in row:
                _bad(bad, DatasetError('an answer is a JSON object with "id" and "response"',
                                       **where))
                continue
            else:
                response = row["response"]
                if response is None:
                    response = ""
                if not isinstance(response, str):
                    response = json.dumps(response)
                task = row.get("task")
                answer = Answer(str(row["id"]), response, None if task is None else str(task),
                                f"{file}:{number}")
            key = (answer.task, answer.id)
            if key in seen:
                _bad(bad, DatasetError(f"answer id {answer.id} appears twice", **where),
                     id=answer.id, task=answer.task)
                continue
            seen.add(key)
            out.append(answer)
    return tuple(out)


def _last_marked(lines):
    """``(line, is_last)`` for each of ``lines`` (one line of lookahead)."""
    previous = None
    for line in lines:
        if previous is not None:
            yield previous, False
        previous = line
    if previous is not None:
        yield previous, True


def read_results(path: str | Path) -> list[dict]:
    """The rows of a results file (missing file: none). A torn last line is ignored.

    Streamed line by line by the shared reader (:func:`planning_core.pddl.files.read_lines`:
    a regular file only, one line of at most ``MAX_LINE_BYTES`` in memory): a longer line or
    one that is not UTF-8 is a located error, as a line that is not JSON is."""
    from planning_core.pddl.files import MAX_LINE_BYTES, read_lines

    file = Path(path)
    if not file.exists():
        return []
    if file.name.lower().endswith(".gz"):
        lines = [(n, line) for n, line in enumerate(_read_text(file).splitlines(), start=1)]
    else:
        lines = None
    rows = []
    for raw, last in _last_marked(lines if lines is not None else read_lines(file)):
        if lines is not None:
            number, line = raw
        else:
            number = raw.number
            if raw.data is None:
                raise DatasetError(f"a line longer than {MAX_LINE_BYTES >> 20} MB; not read "
                                   "(no result row is that long)", file=str(file), line=number)
            try:
                line = raw.data.decode("utf-8")
            except UnicodeDecodeError as err:
                raise DatasetError(f"not UTF-8 text (byte {raw.data[err.start]:#04x})",
                                   file=str(file), line=number,
                                   column=err.start + 1) from None
        if not line.strip():
            continue
        try:
            row = safe_json.loads(line)
        except json.JSONDecodeError as err:
            if last:  # an interrupted write: the answer is scored again
                break
            raise DatasetError(f"not JSON: {err.msg}", file=str(file), line=number) from None
        if not isinstance(row, dict):
            raise DatasetError(f"not a result row (a JSON {type(row).__name__}, not an "
                               "object)", file=str(file), line=number)
        rows.append(row)
    return rows


def response_hash(text: str) -> str:
    """SHA-256 (hex) of an answer's response text: a result row names what it scored."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def done_keys(rows: Iterable[dict]) -> set[tuple[str, str]]:
    """``(task, id)`` of every result row, for resuming; ``(BAD_INPUT, source)`` of every
    recorded bad answer row, so that it is not recorded twice."""
    return {(BAD_INPUT, str(r.get("source"))) if r.get("evidence") == BAD_INPUT
            else (str(r.get("task")), str(r.get("id"))) for r in rows}


def scored_hashes(rows: Iterable[dict]) -> dict[tuple[str, str], str | None]:
    """``(task, id)`` -> the ``response_sha256`` of its latest result row (None for rows
    written before rows carried the hash: those are taken as done). Recorded bad answer rows
    are not scores and are left out, and so are rows marked ``retry`` (their worker died:
    a rerun scores the answer again)."""
    return {(str(r.get("task")), str(r.get("id"))): r.get("response_sha256") for r in rows
            if r.get("evidence") != BAD_INPUT and not r.get("retry")}


def is_done(answer_key: tuple[str, str], response: str,
            scored: dict[tuple[str, str], str | None]) -> bool:
    """Whether a resumed run may skip the answer: it was scored, and its response is the
    one scored then (an edited response is scored again; its new row supersedes the old)."""
    if answer_key not in scored:
        return False
    old = scored[answer_key]
    return old is None or old == response_hash(response)


def current_rows(rows: Iterable[dict]) -> list[dict]:
    """The latest row per ``(task, id)`` (a re-scored answer supersedes its old row), in
    the order the answers were first scored. Recorded bad answer rows are not scores and are
    left out."""
    latest: dict[tuple[str, str], dict] = {}
    for r in rows:
        if r.get("evidence") == BAD_INPUT:
            continue
        latest[(str(r.get("task")), str(r.get("id")))] = r
    return list(latest.values())

