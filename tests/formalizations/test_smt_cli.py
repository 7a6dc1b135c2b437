"""``planning-core cope eval --method smt``: model-written z3 programs judged end to end."""
from __future__ import annotations

import json

from conftest import require_shared

from formalizations.sandbox_helpers import needs_namespaces
from formalizations.smt_programs import bounded_program
from planning_core.console import main
from planning_core.pddl.parser import parse_domain_file, parse_problem_file
from planning_core.validators.cope.dataset import load_dataset

pytestmark = needs_namespaces


def test_cope_eval_smt_through_the_cli(tmp_path, capsys):
    root = require_shared() / "cope" / "BlocksWorld-100"
    pair = next(p for p in load_dataset(root)
                if (p.category, p.problem, p.constraint) == ("baseline", "p20", "constraint20"))
    domain, problem = parse_domain_file(pair.domain_path), parse_problem_file(pair.problem_path)
    good = bounded_program(domain, problem, style="sexpr")
    # a broken encoding: it forgets that stacking needs the block in hand
    broken = bounded_program(domain, problem, style="sexpr", drop_precondition="holding")
    outputs = tmp_path / "outputs.jsonl"
    rows = [{"category": "baseline", "problem": "p20", "constraint": "constraint20",
             "output": f"Here is my encoding:\n```python\n{program}\n```\n"}
            for program in (good, broken)]
    outputs.write_text(json.dumps(rows[0]) + "\n")
    results = tmp_path / "results.jsonl"
    argv = ["cope", "eval", "--dataset", str(root), "--method", "smt", "--outputs",
            str(outputs), "--out", str(results), "--no-progress", "--time-limit", "30"]
    assert main(argv) == 0
    (row,) = [json.loads(line) for line in results.read_text().splitlines()]
    assert row["correct"] is True and row["outcome"] == "correct", row

    outputs.write_text(json.dumps(rows[1]) + "\n")
    results.unlink()
    assert main(argv) == 0
    (row,) = [json.loads(line) for line in results.read_text().splitlines()]
    assert row["correct"] is False and row["outcome"] == "plan_invalid", row
    capsys.readouterr()
