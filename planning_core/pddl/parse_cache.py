"""Parsed domains and problems kept on disk between ``validate`` calls.

Users validate plans one process per plan, in loops, against the same domain and problem
(VAL's users do: CoPE's scripts call VAL per plan). Reading a domain with lark costs more
than everything else a call does: importing lark, loading its parser tables and parsing.
A successful parse is therefore stored as an entry (:mod:`marshal` data, see ``_encode``), keyed by a hash (BLAKE2b) of the file's
path and text and of the parser's own sources (``parser.py``, ``fast_init.py``, ``ast.py``,
``nodes.py`` and ``_node_methods.py`` (the AST classes' methods), ``syntax_errors.py``,
``errors.py``, ``grammars/pddl.lark``, and the installed lark's ``__init__.py``; each by
path, size and modification time, as Python's bytecode cache, so a changed parser never
reads an old entry); the next call with the same file reads the entry and
never imports lark. Failed parses are not stored: a
syntax error is always found, and reported, by the parser itself. The checker's
diagnostics for a (domain, problem) pair are stored the same way (:func:`cached_check`;
the salt covers ``checker.py``, ``types.py`` and ``features.py`` too), so a warm call
neither imports the checker nor runs it.

Where: ``$PLANNING_CORE_PARSE_CACHE_DIR``, else ``$XDG_CACHE_HOME/planning_core``, else
``~/.cache/planning_core``; ``PLANNING_CORE_PARSE_CACHE=0`` turns the cache off. The folder is
used only when it belongs to the user and no one else may write to it (mode 0700 when
created here), and every entry file must belong to the user too; anything unreadable,
foreign, damaged (each entry carries a digest of its data) or stale is ignored and the file
parsed as usual. An entry's class table can name only the classes an entry holds (never a
function or module), and decoding one costs time and memory in proportion to its size; an
entry written on purpose by the user (digest and all) is still trusted as far as marshal
trusts its sizes (``_decode``).
Entries are written to a temporary file and renamed into place, so concurrent calls never
read half an entry. Only the ``validate`` command uses the cache; the library's
``parse_domain``/``parse_problem`` never touch the disk.

The cache is inside the caller's limits (issue 27: a hit loaded 17 MB in one call that no
budget saw, 3.4 CPU-s at ``--time-limit 0.3``). A read happens under the active budget
(:func:`planning_core.limits.metering`): an entry that, loaded, would not fit in the
memory left (``LOADED_BYTES_PER_ENTRY_BYTE`` per byte) is not loaded (the file is parsed,
metered, instead), and loading one checks the budget at every 64 KB read and every few thousand objects
built, so a hit stops
at the limit as a parse would. ``validate`` writes new entries after its last report
(``pending``, :func:`write_pending`) under a budget of their own, encoded and written to a
temporary file, a chunk at a time, and abandoned at that budget's limit.
"""
from __future__ import annotations

import os
import stat
import sys

#: typing.TYPE_CHECKING, without importing typing (~2 ms of every `validate` call)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

__all__ = ["cache_dir", "cached_check", "cached_parse"]

if TYPE_CHECKING:
    T = TypeVar("T")

#: entries larger than this are not written (a huge problem file is parsed each time)
MAX_ENTRY_BYTES = 64 * 1024 * 1024
_SOURCES = ("pddl/parser.py", "pddl/fast_init.py", "pddl/ast.py", "nodes.py",
            "_node_methods.py", "pddl/syntax_errors.py",
            "errors.py",
            # the checker's, for the stored check results (cached_check)
            "pddl/checker.py", "pddl/types.py", "pddl/features.py")
_salt: list[bytes] = []


def cache_dir() -> str | None:
    """The cache folder, or None when the cache is off or the folder is not safe to use.
    (Paths here are strings, not pathlib: importing pathlib costs each call ~2 ms.)"""
    if os.environ.get("PLANNING_CORE_PARSE_CACHE", "1") == "0" or not hasattr(os, "getuid"):
        return None  # off, or no owner to check (not a POSIX system): never read an entry
    root = os.environ.get("PLANNING_CORE_PARSE_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".cache")
        root = os.path.join(base, "planning_core")
    path = root
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() \
            or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return path


def _hasher(digest_size: int = 32):
    """BLAKE2b (``digest_size`` bytes): from ``_blake2`` when there is one (what ``hashlib``
    itself imports it from), which spares each call importing ``hashlib`` and OpenSSL behind
    it (~2.5 ms)."""
    try:
        from _blake2 import blake2b
    except ImportError:   # another Python: hashlib's own
        from hashlib import blake2b
    return blake2b(digest_size=digest_size)


def _parser_salt() -> bytes:
    """A digest of the parser's sources: entries of another parser version never match.

    Each source counts by its path, size and modification time (what Python's own bytecode
    cache trusts), not its bytes: reading and hashing them cost each call ~0.5 ms."""
    if not _salt:
        h = _hasher()
        package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
        for rel in _SOURCES:
            h.update(_stamp(os.path.join(package, rel)))
        # the grammar: installed inside the package, or at the top of a source tree
        for grammar in (os.path.join(package, "grammars", "pddl.lark"),
                        os.path.join(os.path.dirname(package), "grammars", "pddl.lark")):
            if os.path.isfile(grammar):
                h.update(_stamp(grammar))
                break
        else:
            from planning_core.grammar_files import grammar_text

            h.update(grammar_text("pddl.lark").encode())
        # and the lark installed (found, not imported)
        origin = _lark_origin()
        if origin is not None:
            h.update(_stamp(origin))
        _salt.append(h.digest())
    return _salt[0]


def _stamp(path: str) -> bytes:
    info = os.stat(path)
    return f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0".encode("utf-8", "surrogatepass")


def _lark_origin() -> str | None:
    """The file ``import lark`` would run: looked for on ``sys.path`` as the path finder does
    for a plain install, else asked of ``importlib.util.find_spec`` (importing
    ``importlib.util`` costs a call more than the look-up)."""
    for entry in sys.path:
        candidate = os.path.join(entry or os.getcwd(), "lark", "__init__.py")
        if os.path.isfile(candidate):
            return candidate
    import importlib.util

    spec = importlib.util.find_spec("lark")
    return spec.origin if spec is not None and spec.origin else None


def _bytes(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _key(kind: str, path: str, text: str) -> str:
    h = _hasher()
    h.update(_parser_salt())
    for part in (kind, path, text):
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


#: memory a loaded entry takes at its peak, per byte of entry (measured: 14x for parsed
#: problems of flat facts and for domains of many schemas)
LOADED_BYTES_PER_ENTRY_BYTE = 16
#: the entry format (the first item of every entry; another one is a miss)
FORMAT = 2
#: the budget is checked every this many objects built or encoded, and every chunk read
CHECK_EVERY_OBJECTS = 4096
_CHUNK = 1 << 16

# Entries are written with :mod:`marshal` (the format of ``.pyc`` files, built into the
# interpreter and already loaded at start-up), not :mod:`pickle`: the C unpickler imports
# ``functools`` and with it ``collections``, ``operator``, ``reprlib``, ``keyword`` and
# ``types``, ~4 ms of CPU of a warm ``validate`` call against VAL's ~5 ms whole call (issue
# 28). marshal stores only built-in values, so an entry is the value encoded as them:
# strings, numbers, None and tuples of those as they are; anything else is a list whose
# first item says what it is (a tuple holding such a list, a list, a dict, a set, a
# frozenset, an enumeration member, or an AST node of the entry's class table, with its
# fields in order). Loading builds the nodes through their slots, as unpickling them through
# ``__setstate__`` did, about as fast (measured: a 20,000-fact problem 209 vs 219 ms, the
# depots domain 0.6 vs 0.4 ms). The class table names only classes of ``_ENTRY_MODULES``
# (nothing else is imported or called: a name is looked up only as a class of that module,
# an enumeration or a node). marshal shares a value written twice, and ``_encode`` never
# writes a list twice: the lists decoded may hold no more items than the data has bytes, so
# a list met again and again is a damaged entry, not copies (a 619-byte entry of lists
# referencing lists 40 deep decoded for ever), at no cost per list but a subtraction.
# The marshal data is sealed with a digest (``_MAGIC``, then its BLAKE2b, 16 bytes): marshal
# trusts its input's sizes (a 14-byte entry whose tuple size is damaged allocates gigabytes
# before it finds the data short), so a damaged entry must never reach it. A damaged entry is
# a miss.
_LIST, _TUPLE, _DICT, _SET, _FROZENSET, _ENUM = 1, 2, 3, 4, 5, 6
_NODE = 8            # _NODE + i: an instance of the i-th class of the entry's table
_PLAIN = frozenset({str, int, float, bool, type(None), bytes, complex})
#: the modules whose classes an entry may hold (the AST and the enumerations a check's
#: results hold); a class of another module is not stored, and not loaded
_ENTRY_MODULES = frozenset({"planning_core.pddl.ast", "planning_core.pddl.wellformed",
                            "planning_core.validate.report", "planning_core.cli.base"})
#: what every entry file starts with (the format in its last byte), then the digest
_MAGIC = b"pce\0" + bytes([FORMAT])
_DIGEST = 16


def _digest(payload: bytes) -> bytes:
    h = _hasher(_DIGEST)
    h.update(payload)
    return h.digest()


def _seal(payload: bytes) -> bytes:
    """An entry file's bytes: ``_MAGIC``, the payload's digest, the payload."""
    return _MAGIC + _digest(payload) + payload


def _is_enum(cls) -> bool:
    """An enumeration (enum's or :mod:`planning_core.light_enum`'s): members by value."""
    return isinstance(cls.__dict__.get("_value2member_map_"), dict)


def _is_node(cls) -> bool:
    """A ``@node`` (or slotted dataclass): slots and its own ``__setstate__``."""
    own = cls.__dict__
    return "__setstate__" in own and "__slots__" in own


def _storable(cls) -> bool:
    """Whether instances of ``cls`` may be in an entry: an enumeration or a node of
    ``_ENTRY_MODULES``."""
    return cls.__module__ in _ENTRY_MODULES and (_is_enum(cls) or _is_node(cls))


class _Unstorable(Exception):
    """A value the entry format cannot hold: not stored (the next call parses again)."""


def _encode(value, budget=None) -> bytes:
    """``value`` as an entry (see above), ``budget`` checked as it goes."""
    import marshal

    classes: dict[type, int] = {}
    names: list[tuple[str, str]] = []
    count = [CHECK_EVERY_OBJECTS]

    def index(cls) -> int:
        i = classes.get(cls)
        if i is None:
            if not _storable(cls):
                raise _Unstorable(cls)
            i = classes[cls] = len(names)
            names.append((cls.__module__, cls.__qualname__))
        return i

    def enc(v):
        t = type(v)
        if t in _PLAIN:
            return v
        count[0] -= 1
        if count[0] <= 0 and budget is not None:
            count[0] = CHECK_EVERY_OBJECTS
            budget.check(rss=True)
        if t is tuple:
            items = [enc(x) for x in v]
            for x in items:
                if type(x) is list:
                    return [_TUPLE, *items]
            return tuple(items)
        if t is list:
            return [_LIST, *[enc(x) for x in v]]
        if t is dict:
            return [_DICT, [_LIST, *[enc(k) for k in v]], [_LIST, *[enc(x) for x in v.values()]]]
        if t is frozenset or t is set:
            return [_FROZENSET if t is frozenset else _SET, *[enc(x) for x in v]]
        if _is_enum(t):
            return [_ENUM, index(t), enc(v.value)]
        if _is_node(t):
            return [_NODE + index(t), *[enc(x) for x in v.__getstate__()]]
        raise _Unstorable(t)

    body = enc(value)
    return _seal(marshal.dumps((FORMAT, tuple(names), body)))


def _decode(data: bytes, budget=None):
    """The value an entry holds (raises on a damaged entry; the caller makes it a miss)."""
    import marshal

    from planning_core.nodes import _WRITTEN

    start = len(_MAGIC) + _DIGEST
    payload = memoryview(data)[start:]
    if data[:len(_MAGIC)] != _MAGIC or data[len(_MAGIC):start] != _digest(payload):
        raise ValueError("not an entry of this format, or damaged")
    fmt, names, body = marshal.loads(payload)
    if fmt != FORMAT:
        raise ValueError("another entry format")
    table, setters, enums = [], [], []
    for module, qualname in names:
        if module not in _ENTRY_MODULES:
            raise ValueError("a class from outside the entry modules")
        owner = sys.modules.get(module) or __import__(module, fromlist=["_"])
        for part in qualname.split("."):
            owner = owner.__dict__[part]
        # only a class of that module that an entry may hold: never a function, a module or
        # anything else its globals reach
        if not isinstance(owner, type) or owner.__module__ != module \
                or owner.__qualname__ != qualname or not _storable(owner):
            raise ValueError("not a class an entry holds")
        is_enum = _is_enum(owner)
        table.append(None if is_enum else owner)
        enums.append(owner if is_enum else None)
        # a class with written methods is built through its slots, in field order (what
        # its __setstate__ does, without a Python call per node)
        setters.append(tuple(owner.__dict__[name].__set__ for name in owner.__match_args__)
                       if owner in _WRITTEN else None)
    new = object.__new__
    count = [CHECK_EVERY_OBJECTS]
    # a list of n items takes 5 + n bytes of marshal data at least (its code, its size, a
    # byte per item): the lists decoded can take no more than the data holds, unless one is
    # decoded twice (met again through marshal's references, which _encode never writes)
    left = [len(payload)]

    def dec(v):
        count[0] -= 1
        if count[0] <= 0 and budget is not None:
            count[0] = CHECK_EVERY_OBJECTS
            budget.check(rss=True)
        left[0] -= len(v) + 4
        if left[0] < 0:
            raise ValueError("more lists than the entry holds (a list met twice)")
        tag = v[0]
        if tag >= _NODE:
            cls = table[tag - _NODE]
            if cls is None:
                raise ValueError("an enumeration as a node")
            obj = new(cls)
            sets = setters[tag - _NODE]
            if sets is None:
                obj.__setstate__([dec(x) if type(x) is list else x for x in v[1:]])
            else:
                if len(sets) != len(v) - 1:
                    raise ValueError("a node of another shape")
                for put, x in zip(sets, v[1:]):
                    put(obj, dec(x) if type(x) is list else x)
            return obj
        items = [dec(x) if type(x) is list else x for x in v[1:]]
        if tag == _TUPLE:
            return tuple(items)
        if tag == _LIST:
            return items
        if tag == _DICT:
            return dict(zip(items[0], items[1], strict=True))
        if tag == _FROZENSET:
            return frozenset(items)
        if tag == _SET:
            return set(items)
        if tag == _ENUM:
            cls = enums[items[0]]
            if cls is None:
                raise ValueError("a node as an enumeration")
            return cls(items[1])
        raise ValueError(f"an unknown tag {tag!r}")

    return dec(body) if type(body) is list else body


def _fits(size: int, budget) -> bool:
    """Whether an entry of ``size`` bytes, loaded, fits in the memory ``budget`` has left
    (the CPU time is metered while it loads)."""
    if budget is None or budget.memory_mb is None:
        return True
    left = budget.memory_mb * 2**20 - budget.charged
    return size * LOADED_BYTES_PER_ENTRY_BYTE <= left


def _read(file: str, expected: type):
    """The entry in ``file``, or None (absent, foreign, damaged, or too large for the
    active budget's memory: the caller parses, metered, as without a cache). Loading it
    is metered by the active budget (every chunk read, every ``CHECK_EVERY_OBJECTS``
    objects built) and raises ``LimitReached`` at its limit, as parsing the same file
    would."""
    from planning_core.limits import LimitReached, active_budget

    budget = active_budget()
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if info.st_uid != os.getuid() or not stat.S_ISREG(info.st_mode) \
                or info.st_size > MAX_ENTRY_BYTES or not _fits(info.st_size, budget):
            return None
        chunks = []
        while True:
            if budget is not None:
                budget.check(rss=True)
            chunk = os.read(fd, _CHUNK if budget is not None else MAX_ENTRY_BYTES + 1)
            if not chunk:
                break
            chunks.append(chunk)
        value = _decode(b"".join(chunks), budget)
    except (LimitReached, MemoryError):
        raise
    except Exception:  # noqa: BLE001 - a damaged entry is a miss, never an error
        return None
    finally:
        os.close(fd)
    return value if type(value) is expected else None


def _write(folder: str, file: str, value, budget=None) -> None:
    """Store ``value`` in ``file``: encoded (every ``CHECK_EVERY_OBJECTS`` objects checking
    ``budget``), written to a temporary file a chunk at a time (each chunk checking it) and
    renamed into place. An entry that runs out of the budget, is larger than
    ``MAX_ENTRY_BYTES`` or holds a value the format cannot store is abandoned, never half
    written."""
    import tempfile

    from planning_core.limits import LimitReached

    try:
        data = _encode(value, budget)
    except (_Unstorable, RecursionError, ValueError, LimitReached, MemoryError):
        return   # a cache that cannot be written only costs the next call a parse
    if len(data) > MAX_ENTRY_BYTES:
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            for at in range(0, len(data), _CHUNK):
                if budget is not None:
                    budget.check(rss=True)
                fh.write(data[at:at + _CHUNK])
        os.replace(tmp, file)
    except (OSError, LimitReached, MemoryError):
        try:
            os.unlink(tmp)
        except OSError:
            pass


def write_pending(pending: list, budget) -> None:
    """Store the entries :func:`cached_parse` left in ``pending`` (``validate`` does after
    its last report, under a budget of its own: see the module doc); empties ``pending``."""
    while pending:
        folder, file, value = pending.pop(0)
        _write(folder, file, value, budget)


def cached_parse(kind: str, path: str, text: str, parse: Callable[[str, str], T],
                 expected: type, pending: list | None = None) -> T:
    """``parse(text, path)``, or the stored result of the same call (see the module doc).
    ``kind`` names the parse (``"domain"``, ``"problem"``); ``expected`` is the type of its
    result, checked on every read. With ``pending``, a new result is not stored here but
    appended to it (:func:`write_pending` stores it later, outside the caller's budget)."""
    folder = cache_dir()
    if folder is None:
        return parse(text, path)
    try:
        file = os.path.join(folder, f"{kind}-{_key(kind, path, text)}.entry")
    except (OSError, UnicodeError):
        return parse(text, path)
    found = _read(file, expected)
    if found is not None:
        return found
    value = parse(text, path)  # a syntax error propagates, and nothing is stored
    if pending is not None:
        pending.append((folder, file, value))
    else:
        _write(folder, file, value)
    return value


def cached_check(domain: tuple[str, str], problem: tuple[str, str],
                 check: Callable[[], tuple], pending: list | None = None) -> tuple:
    """``check()``, the checker's diagnostics for the domain and problem read from
    ``domain`` and ``problem`` (each ``(path, text)``), or the stored result of the same
    check: a warm call neither imports the checker nor runs it (issue 28). Keyed by both
    files' paths and texts and the salt, which covers the checker's sources; stored (or
    left in ``pending``) as :func:`cached_parse` does. A check that raises (its budget's
    limit) propagates, and nothing is stored."""
    folder = cache_dir()
    if folder is None:
        return check()
    try:
        file = os.path.join(folder, "check-" + _key(
            "check", f"{len(domain[0])}:{domain[0]}{problem[0]}",
            f"{len(domain[1])}:{domain[1]}{problem[1]}") + ".entry")
    except (OSError, UnicodeError):
        return check()
    found = _read(file, tuple)
    if found is not None:
        return found
    value = check()
    if pending is not None:
        pending.append((folder, file, value))
    else:
        _write(folder, file, value)
    return value
