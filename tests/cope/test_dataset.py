"""Reading the CoPE ground truth: counts observed in the shared data, markers, odd files."""
from __future__ import annotations

import json
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from conftest import require_shared

from planning_core.validators.cope.dataset import (
    CATEGORIES, ActionHead, Edit, load_dataset, load_dataset_report, pair_objects,
    parse_action_heads, parse_edits, read_objects,
)

# Observed in ../shared/data/cope (see the module docstring of planning_core.validators.cope.dataset).
EXPECTED_COUNTS = {
    "BlocksWorld-100": {"baseline": 97, "initial": 20, "goal": 20, "action": 41, "state": 16},
    "CoinCollector-100": {"baseline": 92, "initial": 20, "goal": 20, "action": 44, "state": 8},
}
EXPECTED_NO_PLAN = {
    ("BlocksWorld-100", "action"): 7, ("BlocksWorld-100", "state"): 13,
    ("CoinCollector-100", "action"): 10, ("CoinCollector-100", "goal"): 3,
    ("CoinCollector-100", "state"): 2,
}
UNBALANCED = {
    ("BlocksWorld-100", "action", "p27", "constraint11"): ("edit", 131, 131),
    ("BlocksWorld-100", "action", "p49", "constraint33"): ("add", 31, None),
    ("BlocksWorld-100", "state", "p13", "constraint11"): ("edit", 4, None),
    ("BlocksWorld-100", "state", "p14", "constraint12"): ("edit", 4, None),
    ("CoinCollector-100", "initial", "p99", "constraint19"): ("edit", 7, None),
    ("CoinCollector-100", "action", "p36", "constraint29"): ("edit", 39, None),
    ("CoinCollector-100", "action", "p50", "constraint40"): ("add", 30, None),
}


@pytest.fixture(scope="module")
def cope() -> tuple:
    return load_dataset_report(require_shared() / "cope")


@pytest.mark.parametrize("dataset", sorted(EXPECTED_COUNTS))
def test_pairs_per_category(cope, dataset):
    pairs = [p for p in cope[0] if p.dataset == dataset]
    assert Counter(p.category for p in pairs) == EXPECTED_COUNTS[dataset]


def test_every_pair_has_its_files(cope):
    for pair in cope[0]:
        assert pair.domain_path is not None and pair.domain_path.is_file(), pair.key
        assert pair.problem_path is not None and pair.problem_path.is_file(), pair.key
        assert pair.base_domain_path is not None and pair.base_problem_path is not None
        assert pair.domain_description and pair.problem_description, pair.key
        assert pair.action_heads and pair.action_heads_text, pair.key
        assert (pair.category == "baseline") == (pair.constraint_text == "") or \
            pair.key == ("CoinCollector-100", "action", "p46", "constraint38")


def test_plan_exists_labels(cope):
    pairs = cope[0]
    assert all(p.plan_exists is not None for p in pairs)
    negatives = Counter((p.dataset, p.category) for p in pairs if p.plan_exists is False)
    assert negatives == EXPECTED_NO_PLAN
    assert sum(p.plan_exists is True for p in pairs) == 378 - 35


def test_baseline_folder_mirrors_unconstrained_files(cope):
    baseline = [p for p in cope[0] if p.category == "baseline"]
    assert all(p.constraint == f"constraint{int(p.problem[1:])}" for p in baseline)
    for pair in baseline:
        assert pair.edits == ()
        assert pair.domain_path.read_bytes() == pair.base_domain_path.read_bytes()
        assert pair.problem_path.read_bytes() == pair.base_problem_path.read_bytes()
    missing = sorted(n for n in cope[1] if "no baseline pair" in n)
    assert len(missing) == 11 and missing[0] == "BlocksWorld-100: problem p58 has no baseline pair"


def test_unbalanced_markers_are_recorded(cope):
    found = {p.key: e for p in cope[0] for e in p.edits if not e.balanced}
    assert set(found) == set(UNBALANCED)
    for key, (kind, start, end) in UNBALANCED.items():
        edit = found[key]
        assert (edit.kind, edit.start_line) == (kind, start)
        if end is not None:
            assert edit.end_line == end and edit.text == ""
        pair = next(p for p in cope[0] if p.key == key)
        assert any("never closed" in d or "without BEGIN" in d for d in pair.defects)


def test_edit_totals_and_malformed_marker(cope):
    kinds = Counter(e.kind for p in cope[0] for e in p.edits)
    assert kinds == {"add": 537, "edit": 164, "delete": 8}
    malformed = [(p.key, d) for p in cope[0] for d in p.defects if "malformed marker" in d]
    assert len(malformed) == 1 and malformed[0][0][2] == "p84"
    empty = [p.key for p in cope[0] if "empty constraint description" in p.defects]
    assert empty == [("CoinCollector-100", "action", "p46", "constraint38")]
    p46 = next(p for p in cope[0] if p.key == empty[0])
    assert p46.constraint_comment == "You can only move north or move east"


def test_sorted_and_deterministic(cope, shared_data):
    pairs = cope[0]
    again = load_dataset(shared_data / "cope")
    assert again == pairs
    order = [(p.dataset, CATEGORIES.index(p.category), int(p.problem[1:]),
              int(p.constraint[len("constraint"):])) for p in pairs]
    assert order == sorted(order)
    single = load_dataset(shared_data / "cope" / "CoinCollector-100")
    assert single == tuple(p for p in pairs if p.dataset == "CoinCollector-100")


def test_extended_action_heads_and_objects(cope):
    pair = next(p for p in cope[0] if p.key == ("BlocksWorld-100", "action", "p08",
                                                  "constraint1"))
    assert pair.action_heads[0] == ActionHead("pickup", ("block", "token"))
    objects = dict(pair_objects(pair))
    assert objects["t15"] == "token" and objects["block10"] == "block"
    cc = next(p for p in cope[0] if p.key == ("CoinCollector-100", "action", "p01",
                                                "constraint1"))
    assert ActionHead("move", ("room1", "room2", "direction", "step1", "step2")) \
        in cc.action_heads
    assert dict(pair_objects(cc))["step3"] == "step"


def test_parse_edits_nesting_and_orphans():
    text = textwrap.dedent("""\
        (define (domain d)
        ;; BEGIN EDIT
          (:action a
        ;; BEGIN ADD
            :precondition (p)
        ;; END ADD
          )
        ;; END EDIT
        ;; END DELETE
        ;; BEGIN ADD
          (q)
        """)
    edits, problems = parse_edits(text, "x.pddl")
    assert edits == (
        Edit("edit", "x.pddl", 2, 8, "  (:action a\n;; BEGIN ADD\n    :precondition (p)\n"
             ";; END ADD\n  )", True),
        Edit("add", "x.pddl", 4, 6, "    :precondition (p)", True),
        Edit("delete", "x.pddl", 9, 9, "", False),
        Edit("add", "x.pddl", 10, 11, "  (q)", False),
    )
    assert problems == ("x.pddl:9: END DELETE without BEGIN",
                        "x.pddl:10: BEGIN ADD never closed")


def test_parse_edits_inner_unclosed_region_ends_before_outer_end():
    text = ";; BEGIN EDIT\n;; BEGIN ADD\n(p)\n;; END EDIT\n"
    edits, problems = parse_edits(text, "f")
    assert edits == (Edit("edit", "f", 1, 4, ";; BEGIN ADD\n(p)", True),
                     Edit("add", "f", 2, 3, "(p)", False))
    assert problems == ("f:2: BEGIN ADD never closed",)


def test_parse_edits_rejects_unknown_marker_words():
    edits, problems = parse_edits(";; BEGIN You start holding A.\n;;   end   add  \n", "f")
    assert edits == (Edit("add", "f", 2, 2, "", False),)
    assert problems[0].startswith("f:1: malformed marker")


def test_parse_action_heads_reports_stray_text():
    heads, problems = parse_action_heads("(Pick-Up ?b)\n(stack a b) junk")
    assert heads == (ActionHead("pick-up", ("?b",)), ActionHead("stack", ("a", "b")))
    assert problems == ("unexpected text in action heads: 'junk'",)


def test_read_objects_typed_untyped_and_comments():
    text = "(define (problem p) (:objects a b - block ; c - nope\n t1 - token x) (:init))"
    assert read_objects(text) == (("a", "block"), ("b", "block"), ("t1", "token"), ("x", None))
    assert read_objects("(define (problem p) (:init (on a b)))") == ()


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)


def test_odd_files_become_defects_not_exceptions(tmp_path):
    root = tmp_path / "Toy-2"
    _write(root / "pddl" / "domain.pddl", "(define (domain toy))")
    _write(root / "pddl" / "p01.pddl", "(define (problem p01) (:objects a))")
    _write(root / "descriptions" / "p01_domain.txt", "A toy.")
    _write(root / "descriptions" / "p01_problem.txt", b"caf\xe9 blocks")
    goal = root / "constraints" / "goal"
    records = [
        {"problem": "p01", "constraint": "constraint1", "constraint_description": "Be fast.",
         "plan_exists": "false"},
        {"problem": "p01", "constraint": "constraint2", "constraint_description": "Other.",
         "plan_exists": None},
    ]
    _write(goal / "pddl" / "groundtruth_plan_info.jsonl",
           "\n".join(json.dumps(r) for r in records) + "\n{not json\n[1]\n")
    _write(goal / "pddl" / "p01" / "p01_constraint1_df.pddl", ";; BEGIN ADD\n(x)\n")
    _write(goal / "descriptions" / "constraint1.txt", "Be quick.")
    _write(goal / "action_heads" / "p01_constraint1.txt", "(go a)")
    (goal / "pddl" / "p01" / "p01_constraint3_pf.pddl").mkdir(parents=True)

    pairs, notes = load_dataset_report(tmp_path)
    assert [p.constraint for p in pairs] == ["constraint1", "constraint2", "constraint3"]
    first, second, third = pairs
    assert first.plan_exists is False and first.domain_path is not None
    assert first.problem_path is None and first.edits[0].balanced is False
    assert first.constraint_text == "Be quick." and first.problem_description == "caf\ufffd blocks"
    assert "missing file constraints/goal/pddl/p01/p01_constraint1_pf.pddl" in first.defects
    assert "constraint description differs from groundtruth_plan_info" in first.defects
    assert "plan_exists given as string 'false'" in first.defects
    assert any("not UTF-8" in d for d in first.defects)
    assert second.plan_exists is None and second.domain_path is None
    assert second.action_heads == () and second.action_heads_text is None
    assert "plan_exists missing or empty" in second.defects
    assert "not a file: constraints/goal/pddl/p01/p01_constraint3_pf.pddl" in third.defects
    assert "no groundtruth_plan_info record" in third.defects
    assert any("not JSON" in n for n in notes)
    assert any("lacks problem/constraint" in n for n in notes)
    assert "Toy-2: no constraints/baseline folder" in notes
    assert load_dataset_report(tmp_path / "absent") == ((), (f"no CoPE dataset under "
                                                             f"{tmp_path / 'absent'}",))
