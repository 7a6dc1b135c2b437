"""validate's parse cache: a hit equals a parse, and anything doubtful is a miss."""
from __future__ import annotations

import os
import pickle

import pytest

from conftest import DOMAINS
from planning_core.errors import PDDLSyntaxError
from planning_core.pddl import ast, parse_cache
from planning_core.pddl.parser import parse_domain, parse_problem

DOMAIN_PATH = str(DOMAINS / "blocksworld" / "domain.pddl")
DOMAIN = (DOMAINS / "blocksworld" / "domain.pddl").read_text()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("PLANNING_CORE_PARSE_CACHE", "1")
    monkeypatch.setenv("PLANNING_CORE_PARSE_CACHE_DIR", str(folder))
    return folder


class Counting:
    def __init__(self, parse):
        self.parse, self.calls = parse, 0

    def __call__(self, text, path):
        self.calls += 1
        return self.parse(text, path)


def _get(parse, text=DOMAIN, path=DOMAIN_PATH):
    return parse_cache.cached_parse("domain", path, text, parse, ast.Domain)


def test_a_hit_equals_the_parse_and_does_not_parse(cache):
    parse = Counting(parse_domain)
    first = _get(parse)
    second = _get(parse)
    assert parse.calls == 1
    assert second == first == parse_domain(DOMAIN, DOMAIN_PATH)
    assert second.filename == DOMAIN_PATH
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    entries = list(cache.iterdir())
    assert len(entries) == 1 and oct(entries[0].stat().st_mode & 0o777) == "0o600"


def test_another_text_or_path_is_a_miss(cache):
    parse = Counting(parse_domain)
    _get(parse)
    _get(parse, text=DOMAIN + "\n; edited\n")
    other = _get(parse, path="/elsewhere/domain.pddl")
    assert parse.calls == 3
    assert other.filename == "/elsewhere/domain.pddl"


def test_a_damaged_foreign_or_wrongly_typed_entry_is_a_miss(cache):
    parse = Counting(parse_domain)
    _get(parse)
    (entry,) = cache.iterdir()
    for payload in (b"garbage", b"", pickle.dumps("a string, not a Domain"),
                    pickle.dumps(parse_problem(
                        (DOMAINS / "blocksworld" / "p01.pddl").read_text()))):
        entry.write_bytes(payload)
        assert _get(parse) == parse_domain(DOMAIN, DOMAIN_PATH)
    assert parse.calls == 5
    # a symbolic link in place of an entry is not followed
    target = cache.parent / "elsewhere.pickle"
    target.write_bytes(pickle.dumps(parse_domain(DOMAIN.replace("blocksworld", "other"))))
    entry.unlink()
    entry.symlink_to(target)
    assert _get(parse).name == "blocksworld"


def test_entries_of_another_parser_version_do_not_match(cache, monkeypatch):
    parse = Counting(parse_domain)
    _get(parse)
    monkeypatch.setattr(parse_cache, "_salt", [b"another parser"])
    _get(parse)
    assert parse.calls == 2


def test_a_syntax_error_propagates_and_nothing_is_stored(cache):
    with pytest.raises(PDDLSyntaxError):
        _get(parse_domain, text="(define (domain broken")
    assert not any(p.name.endswith(".pickle") for p in cache.iterdir())


def test_the_cache_is_off_when_asked_or_when_others_may_write_to_it(cache, monkeypatch):
    monkeypatch.setenv("PLANNING_CORE_PARSE_CACHE", "0")
    assert parse_cache.cache_dir() is None
    monkeypatch.setenv("PLANNING_CORE_PARSE_CACHE", "1")
    assert parse_cache.cache_dir() == str(cache)  # a str: no pathlib per call
    os.chmod(cache, 0o777)
    assert parse_cache.cache_dir() is None
    parse = Counting(parse_domain)
    _get(parse)
    _get(parse)
    assert parse.calls == 2 and not list(cache.iterdir())
    os.chmod(cache, 0o700)
    (cache.parent / "file").write_text("x")
    monkeypatch.setenv("PLANNING_CORE_PARSE_CACHE_DIR", str(cache.parent / "file"))
    assert parse_cache.cache_dir() is None  # not a folder: parse as usual
    assert _get(parse) == parse_domain(DOMAIN, DOMAIN_PATH)


def test_an_unwritable_cache_only_costs_a_parse(cache, monkeypatch):
    import tempfile

    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    parse = Counting(parse_domain)
    assert _get(parse) == _get(parse) == parse_domain(DOMAIN, DOMAIN_PATH)
    assert parse.calls == 2 and not list(cache.iterdir())


def test_without_owners_to_check_the_cache_is_off(cache, monkeypatch):
    monkeypatch.delattr(os, "getuid")
    assert parse_cache.cache_dir() is None


def test_concurrent_writers_leave_one_whole_entry(cache):
    import threading

    parse = Counting(parse_domain)
    results = []
    threads = [threading.Thread(target=lambda: results.append(_get(parse))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8 and all(r == results[0] for r in results)
    files = list(cache.iterdir())
    assert len(files) == 1 and not files[0].name.startswith(".tmp-")
    assert _get(parse) == results[0]


def test_the_parse_cache_switch_is_not_the_response_cache_path(tmp_path, monkeypatch):
    """Regression: the switch was once PLANNING_CORE_CACHE, which the model clients read as
    the response cache's *path*, so the test suite's "0" made a SQLite file named 0."""
    from planning_core.validators.models.cache import default_cache_path

    monkeypatch.setenv("PLANNING_CORE_PARSE_CACHE", "0")
    monkeypatch.delenv("PLANNING_CORE_CACHE", raising=False)
    assert parse_cache.cache_dir() is None
    assert default_cache_path().name == "responses.sqlite"
    monkeypatch.setenv("PLANNING_CORE_PARSE_CACHE", "1")
    monkeypatch.setenv("PLANNING_CORE_PARSE_CACHE_DIR", str(tmp_path / "parse"))
    monkeypatch.setenv("PLANNING_CORE_CACHE", str(tmp_path / "responses.sqlite"))
    assert parse_cache.cache_dir() == str(tmp_path / "parse")


def test_the_salt_follows_a_source_s_size_and_time_and_finds_lark_as_import_does(tmp_path):
    import importlib.util
    import os

    source = tmp_path / "parser.py"
    source.write_text("x = 1\n")
    first = parse_cache._stamp(str(source))
    os.utime(source, ns=(1, 10**18))
    touched = parse_cache._stamp(str(source))
    source.write_text("x = 12\n")   # another size, and the same time again
    os.utime(source, ns=(1, 10**18))
    assert len({first, touched, parse_cache._stamp(str(source))}) == 3
    assert parse_cache._lark_origin() == importlib.util.find_spec("lark").origin
