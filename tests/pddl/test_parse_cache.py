"""validate's parse cache: a hit equals a parse, and anything doubtful is a miss."""
from __future__ import annotations

import marshal
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
    good = entry.read_bytes()
    problem = parse_problem((DOMAINS / "blocksworld" / "p01.pddl").read_text())
    seal = parse_cache._seal
    payloads = [
        b"garbage", b"", good[:len(good) // 2],                  # damaged, truncated
        good[:-1] + bytes([good[-1] ^ 1]),                        # one bit flipped
        pickle.dumps(parse_domain(DOMAIN, DOMAIN_PATH)),          # the format before issue 28
        parse_cache._encode("a string, not a Domain"), parse_cache._encode(problem),
        _payload(good),                                           # marshal data, no seal
        seal(marshal.dumps((parse_cache.FORMAT + 1,)
                           + marshal.loads(_payload(good))[1:])),  # another format
        # a class table naming a class outside planning_core is never imported or called
        seal(marshal.dumps((parse_cache.FORMAT, (("os", "system"),), [parse_cache._NODE, "x"]))),
        seal(marshal.dumps((parse_cache.FORMAT, (("subprocess", "Popen"),),
                            [parse_cache._ENUM, 0, "x"]))),
        # a node of another shape, an unknown tag
        seal(marshal.dumps((parse_cache.FORMAT, (("planning_core.pddl.ast", "Domain"),),
                            [parse_cache._NODE, "only one field"]))),
        seal(marshal.dumps((parse_cache.FORMAT, (), [7, 1, 2]))),
    ]
    for payload in payloads:
        entry.write_bytes(payload)
        assert _get(parse) == parse_domain(DOMAIN, DOMAIN_PATH)
    assert parse.calls == 1 + len(payloads)
    # a symbolic link in place of an entry is not followed
    target = cache.parent / "elsewhere.entry"
    target.write_bytes(parse_cache._encode(parse_domain(DOMAIN.replace("blocksworld", "other"))))
    entry.unlink()
    entry.symlink_to(target)
    assert _get(parse).name == "blocksworld"


def _payload(entry: bytes) -> bytes:
    """The marshal data of an entry file (after its magic and digest)."""
    return entry[len(parse_cache._MAGIC) + parse_cache._DIGEST:]


def _sealed_entry(tmp_path, names, body) -> str:
    file = tmp_path / "made.entry"
    file.write_bytes(parse_cache._seal(marshal.dumps((parse_cache.FORMAT, names, body))))
    return str(file)


@pytest.mark.parametrize("names, tag", [
    # a function, a module and a builtin reached through the globals of the modules entries
    # may name: never called (a table entry was once followed by getattr to anything)
    ((("planning_core.pddl.ast", "is_variable"),), parse_cache._ENUM),
    ((("planning_core.pddl.ast", "field"),), parse_cache._NODE),
    ((("planning_core.cli.base", "LazyGroup"),), parse_cache._NODE),   # a class, not a node
    ((("planning_core.pddl.parse_cache", "os.system"),), parse_cache._ENUM),
    ((("planning_core.cli.validate", "validate_main"),), parse_cache._ENUM),
    # an enumeration used as a node and a node as an enumeration
    ((("planning_core.validate.report", "Verdict"),), parse_cache._NODE),
    ((("planning_core.pddl.ast", "Domain"),), parse_cache._ENUM),
])
def test_a_class_table_names_only_classes_an_entry_holds(tmp_path, names, tag, monkeypatch):
    import sys

    calls = []
    monkeypatch.setattr(os, "system", lambda *a: calls.append(a))
    before = set(sys.modules)
    body = [tag, 0, "echo called"] if tag == parse_cache._ENUM else [tag, "echo called"]
    assert parse_cache._read(_sealed_entry(tmp_path, names, body), ast.Domain) is None
    assert parse_cache._read(_sealed_entry(tmp_path, names, body), tuple) is None
    assert not calls
    assert not {m for m in set(sys.modules) - before if not m.startswith("planning_core")}


def test_lists_met_twice_are_a_damaged_entry_not_an_exponential_decode(tmp_path):
    # 619 bytes: 40 levels of a list holding the level below twice (marshal writes a value met
    # twice once, then refers to it); decoded as copies this was 2**40 lists (a hang)
    from planning_core.limits import LimitReached, Limits, metering

    shared: list = [parse_cache._LIST]
    for _ in range(40):
        shared = [parse_cache._LIST, shared, shared]
    file = _sealed_entry(tmp_path, (), [parse_cache._TUPLE, shared])
    budget = Limits(time_s=20.0).budget()
    try:
        with metering(budget):
            found = parse_cache._read(file, tuple)
    except LimitReached:   # the budget stopped a decode that should have been refused
        pytest.fail("a 619-byte entry decoded until the time limit")
    assert found is None
    # a list written twice by _encode (the same list twice in a value) is two lists
    twice = [1, 2]
    back = parse_cache._decode(parse_cache._encode(((twice, twice), [twice])))
    assert back == ((twice, twice), [twice]) and back[0][0] is not back[0][1]


def test_a_damaged_size_in_an_entry_allocates_nothing(tmp_path):
    # one damaged length field: marshal trusts it and allocates the tuple (400 million items,
    # 3.2 GB, 5.6 CPU-s for a 40-byte file) before it finds the data short; the digest
    # refuses the entry before marshal reads it
    import struct
    import tracemalloc

    from planning_core.limits import Limits, metering

    good = parse_cache._encode(None)
    start = len(parse_cache._MAGIC) + parse_cache._DIGEST
    # the body (None, "N") damaged into a tuple of 400 million items
    damaged = good[:-1] + b"(" + struct.pack("<i", 400_000_000) + b"N" * 8
    file = tmp_path / "damaged.entry"
    file.write_bytes(damaged)
    assert len(damaged) - start < 40
    tracemalloc.start()
    try:
        with metering(Limits(time_s=60.0, memory_mb=8192.0).budget()):
            assert parse_cache._read(str(file), tuple) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20


def _every_fixture_task():
    from planning_core.pddl.checker import check_domain, check_problem

    for problem_file in sorted(DOMAINS.rglob("*.pddl")):
        if problem_file.name == "domain.pddl" or not (problem_file.parent / "domain.pddl").is_file():
            continue
        try:
            domain = parse_domain((problem_file.parent / "domain.pddl").read_text())
            problem = parse_problem(problem_file.read_text())
        except Exception:  # noqa: BLE001 - fixtures of bad input
            continue
        yield domain, problem, check_domain(domain) + check_problem(domain, problem)


def test_every_fixture_task_comes_back_equal_from_an_entry():
    # the entry format holds every value a parse or a check makes: every task of domains/
    # (classical, ADL, numeric, temporal), and the diagnostics the checker gives for it
    seen = 0
    for values in _every_fixture_task():
        for value in values:
            back = parse_cache._decode(parse_cache._encode(value))
            assert back == value and type(back) is type(value)
            assert repr(back) == repr(value) and hash(back) == hash(value)
        seen += 1
    assert seen >= 50


def test_the_entry_format_keeps_containers_and_enumerations():
    from planning_core.cli import ExitCode
    from planning_core.pddl.wellformed import Fault, GroundFault
    from planning_core.validate.report import Verdict

    value = ([1, (2, [3])], {"a": (Fault.TYPE_ERROR,)}, frozenset({"x", 1.5}), {None, True},
             (GroundFault(Fault.WRONG_ARITY, 2), Verdict.MUTEX_VIOLATED, ExitCode.UNKNOWN),
             float("inf"), -0.0, 10**40, b"raw", ())
    back = parse_cache._decode(parse_cache._encode(value))
    assert back == value and repr(back) == repr(value)
    assert back[4][1] is Verdict.MUTEX_VIOLATED and back[4][0].kind is Fault.WRONG_ARITY
    assert type(back[0]) is list and type(back[0][1]) is tuple and type(back[3]) is set
    with pytest.raises(parse_cache._Unstorable):
        parse_cache._encode(object())
    with pytest.raises(parse_cache._Unstorable):   # a slotted class of another package
        parse_cache._encode(slice(1, 2))


def test_a_value_nested_past_the_recursion_limit_is_not_stored(cache, tmp_path):
    deep: tuple = ()
    for _ in range(100_000):
        deep = (deep, [1])
    cache.mkdir(mode=0o700)
    parse_cache._write(str(cache), str(cache / "deep.entry"), deep)
    assert not (cache / "deep.entry").exists()
    assert not [p for p in cache.iterdir() if p.name.startswith(".tmp-")]


def test_entries_of_another_parser_version_do_not_match(cache, monkeypatch):
    parse = Counting(parse_domain)
    _get(parse)
    monkeypatch.setattr(parse_cache, "_salt", [b"another parser"])
    _get(parse)
    assert parse.calls == 2


def test_a_syntax_error_propagates_and_nothing_is_stored(cache):
    with pytest.raises(PDDLSyntaxError):
        _get(parse_domain, text="(define (domain broken")
    assert not any(p.name.endswith(".entry") for p in cache.iterdir())


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


@pytest.mark.parametrize("depth", [1990, 5000])
def test_an_entry_nested_deeper_than_decoding_goes_is_a_miss(tmp_path, depth):
    # marshal reads 2,000 levels (deeper is its ValueError), decoding recurses less: a
    # RecursionError there is a miss, as any damaged entry (the parser refuses formulas
    # nested past 256 parentheses, so no parse makes such an entry)
    head = marshal.dumps((parse_cache.FORMAT, (), None))[:-1]
    payload = head + (b"[\x02\x00\x00\x00" + b"\xe9" + bytes([parse_cache._LIST, 0, 0, 0])) \
        * depth + b"N"
    file = tmp_path / "deep.entry"
    file.write_bytes(parse_cache._seal(payload))
    assert parse_cache._read(str(file), tuple) is None
    assert parse_cache._read(str(file), list) is None


def test_two_processes_writing_one_entry_never_show_a_reader_half_of_it(cache):
    # validate calls in parallel (a shell loop with &, xargs -P) store the same entry at once:
    # each writes a temporary file and renames it into place, so a reader sees the whole
    # entry or none
    import subprocess
    import sys

    cache.mkdir(mode=0o700)
    file = cache / "domain-shared.entry"
    writer = (
        "import sys\n"
        "from planning_core.pddl import parse_cache\n"
        "from planning_core.pddl.parser import parse_domain\n"
        f"value = parse_domain(open({DOMAIN_PATH!r}).read(), {DOMAIN_PATH!r})\n"
        "for _ in range(60):\n"
        f"    parse_cache._write({str(cache)!r}, {str(file)!r}, value)\n")
    children = [subprocess.Popen([sys.executable, "-c", writer], env=dict(os.environ))
                for _ in range(2)]
    want = parse_domain(DOMAIN, DOMAIN_PATH)
    reads = []
    while any(child.poll() is None for child in children):
        reads.append(parse_cache._read(str(file), ast.Domain))
    assert [child.wait() for child in children] == [0, 0]
    reads.append(parse_cache._read(str(file), ast.Domain))
    assert all(r is None or r == want for r in reads) and reads[-1] == want
    assert [p.name for p in cache.iterdir()] == [file.name]   # no temporary file left


def test_loading_an_entry_peaks_below_the_memory_it_is_weighed_at():
    # _fits lets an entry load when LOADED_BYTES_PER_ENTRY_BYTE times its size fits in the
    # memory left: the decoder's own bookkeeping must stay out of that (a set of the ids of
    # the lists decoded once took the peak from 9.9x to 14.7x a 1.8 MB entry, and kept ~6 MB
    # alive after the load, until the next full collection)
    import gc
    import tracemalloc

    objects = " ".join(f"b{i}" for i in range(4000))
    facts = " ".join(f"(clear b{i}) (ontable b{i})" for i in range(4000))
    problem = parse_problem(f"(define (problem big) (:domain blocksworld) (:objects {objects}"
                            f" - block) (:init {facts} (handempty)) (:goal (clear b0)))")
    entry = parse_cache._encode(problem)
    del problem
    gc.collect()
    tracemalloc.start()
    try:
        back = parse_cache._decode(entry)
        peak, kept = tracemalloc.get_traced_memory()[1], tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(back.init) >= 8000
    assert peak <= 12 * len(entry) < parse_cache.LOADED_BYTES_PER_ENTRY_BYTE * len(entry)
    assert kept <= 8 * len(entry)
