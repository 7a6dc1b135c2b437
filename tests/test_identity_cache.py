"""IdentityCache: one build per object (by identity), bounded, one build under contention."""
import threading

from planning_core.pddl.identity_cache import IdentityCache


class Thing:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):  # equal by value, yet cached by identity
        return isinstance(other, Thing) and other.value == self.value

    __hash__ = None


def test_builds_once_per_object_and_tells_equal_objects_apart():
    built = []

    def build(a, b):
        built.append((a, b))
        return (a.value, b.value)

    cache = IdentityCache(4)
    x, y, x2 = Thing(1), Thing(2), Thing(1)
    assert cache.get(build, x, y) == (1, 2)
    assert cache.get(build, x, y) == (1, 2)
    assert len(built) == 1
    assert cache.get(build, x2, y) == (1, 2)  # equal but not the same object: built again
    assert len(built) == 2 and built[1][0] is x2


def test_oldest_entry_goes_first_when_full():
    cache = IdentityCache(2)
    things = [Thing(i) for i in range(3)]
    for t in things:
        cache.get(lambda o: o.value, t)
    assert len(cache) == 2
    calls = []
    cache.get(lambda o: calls.append(o) or o.value, things[0])  # evicted: rebuilt
    cache.get(lambda o: calls.append(o) or o.value, things[2])  # still cached
    assert calls == [things[0]]


def test_concurrent_misses_build_once():
    cache = IdentityCache(8)
    thing = Thing(7)
    gate = threading.Barrier(8)
    count = []

    def build(o):
        count.append(o)
        return o.value

    def worker():
        gate.wait()
        assert cache.get(build, thing) == 7

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(count) == 1
