"""The command loop of a model run, shared by ``acp run``, ``toolplans run`` and
``deepplanning run``.

The commands ask a model every item of a list (a question, an APB case, a DeepPlanning
task and run), score each answer the moment it arrives and append one row per item to
their ``--out`` file, which they hold locked for the whole run
(:func:`planning_core.results_file.open_results`). :func:`run_items` is that loop, once:

* resume: the file's rows must come from the run's setting (the command's ``check``
  refuses others, exit 2) unless ``force`` moves them aside
  (:func:`~planning_core.validators.models.run_setting.resume_or_supersede`);
* pending items: an item counts as done when a success row (by default one without
  ``error``; a command may say otherwise, ``done``) has its key (:func:`pending_items`); the
  rest are asked, and the note on stderr says how many were skipped;
* a limit (``retry``, a :class:`~planning_core.results_file.LimitRetry`): every row written
  records the scorer's limit it was scored under; a done item whose latest row ran into a
  *smaller* limit than this run's (or any limit, with ``--retry-unknown``) has its stored
  answer scored again (``rescore``: the model is not asked again, the answer is the data)
  and the new row appended after the old one, which it supersedes (the commands' latest
  row per key wins); the note on stderr says how many (``deepplanning run``, whose limit
  is the agent's cap, runs such a task again instead: its ``done`` rule leaves it
  pending);
* a progress bar on stderr (on a terminal) with the running accuracy of the known
  verdicts, and every row appended and flushed as it arrives.

The commands keep what is theirs: how items are asked (threads, an executor), the verdict of
a row, and the report printed after the loop.
"""
from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable, Iterator, Sequence

if TYPE_CHECKING:
    from pathlib import Path

    from planning_core.results_file import LimitRetry

__all__ = ["RunTally", "pending_items", "run_items", "unanswered_note"]


def _succeeded(row: dict) -> bool:
    return "error" not in row


def pending_items(items: Iterable[Any], rows: Iterable[dict],
                  row_key: Callable[[dict], Hashable],
                  done: Callable[[dict], bool] = _succeeded) -> list:
    """The ``items`` (each with a ``key``) that no row of ``rows`` answers (``done(row)``;
    by default a success row, one without ``error``)."""
    answered = {row_key(r) for r in rows if done(r)}
    return [item for item in items if item.key not in answered]


@dataclass(slots=True)
class RunTally:
    """What one loop wrote: rows, known verdicts and right ones, request failures, answers
    from the response cache, and answers scored again under a larger limit."""

    rows: int = 0
    known: int = 0
    right: int = 0
    failed: int = 0
    cached: int = 0
    rescored: int = 0


def _limited(items: Sequence[Any], rows: list[dict], row_key, retry: LimitRetry
             ) -> list[tuple[Any, dict]]:
    """The done items whose latest success row ``retry`` wants scored again, with that row;
    counts the rows that hit a limit they do not record (``retry.unstamped``)."""
    latest: dict[Hashable, dict] = {}
    for row in rows:
        if "error" not in row:
            latest[row_key(row)] = row
    redo = [(item, latest[item.key]) for item in items
            if item.key in latest and retry.takes(latest[item.key])]
    retry.retried = len(redo)
    return redo


def run_items(out: Path, items: Sequence[Any], produce: Callable[[list], Iterable[dict]], *,
              noun: str, read: Callable[[Path], list[dict]],
              row_key: Callable[[dict], Hashable], check: Callable[[list[dict]], None],
              verdict: Callable[[dict], bool | None], label: str | None = "acc",
              force: bool = False, progress: bool = True,
              finish: Callable[[dict], Any] | None = None,
              written: Callable[[dict], Any] | None = None,
              done: Callable[[dict], bool] = _succeeded,
              retry: LimitRetry | None = None,
              rescore: Callable[[Any, dict], dict] | None = None) -> RunTally:
    """Ask what ``out`` lacks and append a row per answer (module doc).

    ``produce(todo)`` yields one row per pending item, in any order (it may be a
    generator; it is closed when the loop ends, however it ends); ``verdict(row)`` is True
    (right), False (wrong) or None (not known); ``finish(row)`` adds the command's own
    fields before a row is written, ``written(row)`` is told of it after; ``label`` names
    the accuracy on the bar (None: no accuracy shown); ``done(row)`` says whether a row
    answers its item (default: it has no ``error``)."""
    from planning_core.errors import InputError
    from planning_core.results_file import append_row, open_results
    from planning_core.validators.models.run_setting import (resume_or_supersede,
                                                               superseded_note)

    handle, _ = open_results(out)   # locked until the end; a torn last line cut off
    tally = RunTally()
    with handle:
        rows = read(out)    # once: a long run's rows hold every turn
        moved = resume_or_supersede(lambda: check(rows), handle, out, force)
        if moved is not None:
            print(superseded_note(moved, out), file=sys.stderr)
            rows = read(out)
        todo = pending_items(items, rows, row_key, done)
        redo = []
        if retry is not None and rescore is not None:
            pending = {item.key for item in todo}
            redo = _limited([i for i in items if i.key not in pending], rows, row_key, retry)
            note = retry.note(out)
            if note:
                print(f"note: {note}", file=sys.stderr)
        skipped = len(items) - len(todo) - len(redo)
        if skipped:
            print(f"{skipped} {noun}(s) already answered in {out}: skipped", file=sys.stderr)
        bar = None
        total = len(todo) + len(redo)
        if progress and total:
            from tqdm import tqdm

            bar = tqdm(total=total, unit=noun, file=sys.stderr, dynamic_ncols=True,
                       disable=None)
        produced = produce(todo) if todo else iter(())
        arriving = itertools.chain((rescore(item, row) for item, row in redo), produced)
        try:
            for row in arriving:
                if finish is not None:
                    finish(row)
                if retry is not None:
                    retry.stamp(row)
                append_row(handle, row)
                tally.rows += 1
                tally.cached += bool(row.get("cache_hit"))
                tally.rescored += bool(row.get("rescored"))
                if "error" in row:
                    tally.failed += 1
                else:
                    value = verdict(row)
                    if value is not None:
                        tally.known += 1
                        tally.right += value is True
                if bar is not None:
                    if label is not None:
                        bar.set_postfix_str(f"{label} {tally.right / tally.known:.1%}"
                                            if tally.known else f"{label} -")
                    bar.update(1)
                if written is not None:
                    written(row)
        except BrokenPipeError:
            raise       # stdout closed (``| head``): the command's own handling
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}", file=str(out)) from None
        finally:
            if bar is not None:
                bar.close()
            close = getattr(produced, "close", None)
            if close is not None:
                close()
    return tally


def unanswered_note(count: int, noun: str, out: Path) -> str:
    """The line on stderr when ``count`` items have only a failed request's row."""
    return (f"{count} {noun}(s) have no answer (request failed, see \"error\" in {out}); "
            "run the same command again to ask them again")


def ask_each(call: Callable[[Any], Any], items: Sequence[Any], *, concurrency: int,
             thread_name: str) -> Iterator[tuple[Any, Any, Exception | None]]:
    """``call(item)`` for every item on a pool of ``concurrency`` threads; yields
    ``(item, result, None)``, or ``(item, None, err)`` for a
    :class:`~planning_core.validators.models.completion.ModelError`, as each completes.

    The first :class:`~planning_core.validators.models.completion.ModelUnavailable` (a bad
    key, a dead server) cancels the calls not yet started and is raised once the calls
    already running have been yielded; a consumer that stops early cancels the rest too."""
    import concurrent.futures as cf

    from planning_core.validators.models.completion import ModelError, ModelUnavailable

    fatal: ModelUnavailable | None = None
    with cf.ThreadPoolExecutor(max_workers=max(1, concurrency),
                               thread_name_prefix=thread_name) as pool:
        futures = {pool.submit(call, item): item for item in items}
        try:
            for fut in cf.as_completed(futures):
                if fut.cancelled():
                    continue
                item = futures[fut]
                try:
                    result = fut.result()
                except ModelUnavailable as err:
                    if fatal is None:
                        fatal = err
                        for other in futures:
                            other.cancel()
                    continue
                except ModelError as err:
                    yield item, None, err
                    continue
                yield item, result, None
        except BaseException:
            for other in futures:
                other.cancel()
            raise
    if fatal is not None:
        raise fatal
