"""Derive the broken-tool and unsolvable variant of every hand-written task (deterministic).

For each task of ``travel.json``, ``files.json`` and ``data.json`` this writes two tasks to
``generated/<domain>.json`` (run ``python domains/toolplans/make_variants.py``):

* ``<id>-broken``: the tool named in the task's ``break`` is broken. If the task gives an
  alternative chain there (``break.valid``), the request stays solvable with it; else it is
  unsolvable of the kind ``break.kind``. The first valid chain of the base task now fails
  with ``broken_tool`` at its first call of that tool.
* ``<id>-unsolvable``: the data item named in ``drop`` is no longer supplied, so the request
  is unsolvable (kind ``drop.kind``, default ``missing_input``). The first valid chain now
  fails with ``hallucinated_input`` at its first call that passes that item's value.

The expectations follow from the construction alone; the checker is not consulted, so the
tests that compare them with its verdicts can fail.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOMAINS = ("travel", "files", "data")
TASK_KEYS = ("id", "request", "items", "goal", "constraints", "forbidden")


def _calls(chain) -> list[tuple[str, dict]]:
    """(tool, arguments) of a chain written one call per line or as a JSON list."""
    if isinstance(chain, list):
        return [(c["name"], c.get("arguments", {})) for c in chain]
    sys.path.insert(0, str(HERE.parents[1]))
    from planning_core.validators.toolplans.calls import parse_output
    return [(c.name, c.arguments) for c in parse_output(chain).calls]


def _same(a, b) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().casefold() == b.strip().casefold()
    return a == b


def _base(task: dict) -> dict:
    return {k: task[k] for k in TASK_KEYS if k in task}


def _chain(entry):
    return entry["chain"] if isinstance(entry, dict) else entry


def broken_variant(task: dict) -> dict:
    brk = task["break"]
    first = _chain(task["valid"][0])
    step = next(k for k, (name, _) in enumerate(_calls(first), start=1) if name == brk["tool"])
    out = _base(task)
    out["id"] = f"{task['id']}-broken"
    out["request"] = f"{task['request']} ({brk['tool']} is out of service.)"
    out["broken"] = [brk["tool"]]
    solvable = "valid" in brk
    out["solvable"] = solvable
    out["kind"] = None if solvable else brk["kind"]
    out["valid"] = [brk["valid"]] if solvable else []
    out["invalid"] = [{"chain": first, "step": step, "fault": "broken_tool"}]
    out["optimal_cost"] = brk.get("optimal_cost") if solvable else None
    return out


def unsolvable_variant(task: dict) -> dict:
    drop = task["drop"]
    item = next(i for i in task["items"] if i["name"] == drop["item"])
    first = _chain(task["valid"][0])
    step = next(k for k, (_, args) in enumerate(_calls(first), start=1)
                if any(_same(v, item["value"]) for v in args.values()))
    out = _base(task)
    out["id"] = f"{task['id']}-unsolvable"
    out["request"] = f"{task['request']} (The {item['type']} is not given.)"
    out["items"] = [i for i in task["items"] if i["name"] != drop["item"]]
    out["solvable"] = False
    out["kind"] = drop.get("kind", "missing_input")
    out["valid"] = []
    out["invalid"] = [{"chain": first, "step": step, "fault": "hallucinated_input"}]
    out["optimal_cost"] = None
    return out


def variants(domain: str) -> dict:
    data = json.loads((HERE / f"{domain}.json").read_text(encoding="utf-8"))
    tasks = []
    for task in data["tasks"]:
        tasks += [broken_variant(task), unsolvable_variant(task)]
    return {"domain": domain, "tools": data["tools"],
            "generated_by": "domains/toolplans/make_variants.py", "tasks": tasks}


def render(domain: str) -> str:
    return json.dumps(variants(domain), indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    (HERE / "generated").mkdir(exist_ok=True)
    for domain in DOMAINS:
        (HERE / "generated" / f"{domain}.json").write_text(render(domain), encoding="utf-8")


if __name__ == "__main__":
    main()
