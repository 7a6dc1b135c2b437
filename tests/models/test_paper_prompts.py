"""The paper's 2-shot setting, byte for byte as lm-evaluation-harness's built-in ACPBench
Hard tasks (``tasks/acpbench/gen_2shot``) render it.

For one dev question of each task, the built-in task (its own YAML, with a local dataset in
place of the download) renders the prompt with ``--apply_chat_template`` and few-shot as
multi-turn, and without a chat template (one text). The project's renderings of the same
question -- ``acp run``'s conversation, the project's own lm-eval task package and the
Inspect tasks -- must be the same bytes.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from planning_core.validators.acp.prompts import SENT_STOP, STOP_SEQUENCES
from planning_core.validators.acp.records import TASKS
from planning_core.validators.acp.run import plan_items
from planning_core.validators.models.client import flatten_messages

from tests.conftest import require_shared

BUILTIN = {"app": "app", "prog": "prog", "reach": "reach", "areach": "act_reach",
           "val": "val", "just": "just", "land": "land", "nexta": "next_act"}


def _chat(task, doc, shots: int = 2) -> tuple[str, str]:
    """The task's rendering of ``doc``: (messages as JSON, plain text)."""
    as_json = task.fewshot_context(doc, shots, apply_chat_template=True,
                                   fewshot_as_multiturn=True,
                                   chat_template=lambda m, **kw: json.dumps(m))
    text = task.fewshot_context(doc, shots)
    return as_json, text


@pytest.fixture(scope="module")
def lm_eval_tasks():
    pytest.importorskip("lm_eval")
    import datasets
    import lm_eval
    from lm_eval.api.task import ConfigurableTask
    from lm_eval.tasks._yaml_loader import load_yaml

    from planning_core.validators.acp.lm_eval_tasks import task_folder

    folder = require_shared() / "acpbench_hard"
    builtin_dir = Path(lm_eval.__file__).parent / "tasks" / "acpbench" / "gen_2shot"
    if not builtin_dir.is_dir():
        pytest.skip("this lm-eval has no built-in ACPBench Hard tasks")
    old = os.environ.get("PLANNING_CORE_ACP_QUESTIONS")
    os.environ["PLANNING_CORE_ACP_QUESTIONS"] = str(folder)
    try:
        out = {}
        for task, name in BUILTIN.items():
            raw = json.loads((folder / task / "dev.gen.json").read_text())[0]
            cfg = load_yaml(builtin_dir / f"{name}.yaml", resolve_func=False)
            assert cfg["num_fewshot"] == 2
            assert tuple(cfg["generation_kwargs"]["until"]) == STOP_SEQUENCES
            for key in ("process_results", "filter_list", "dataset_path", "dataset_name",
                        "tag", "metric_list"):
                cfg.pop(key, None)
            cfg["custom_dataset"] = lambda raw=raw, **_: datasets.DatasetDict(
                {"test": datasets.Dataset.from_list([{
                    "id": raw["id"], "context": raw["context"], "question": raw["question"],
                    "answer": json.dumps(raw["answer"])}])})
            builtin = ConfigurableTask(config=cfg)
            ours = ConfigurableTask(config=load_yaml(task_folder() / f"{task}.yaml"))
            our_doc = next(d for d in ours.dataset["test"] if d["id"] == str(raw["id"]))
            out[task] = (raw, _chat(builtin, raw), _chat(ours, our_doc),
                         _chat(ours, our_doc, 0), ours.config.num_fewshot)
        return folder, out
    finally:
        if old is None:
            os.environ.pop("PLANNING_CORE_ACP_QUESTIONS", None)
        else:
            os.environ["PLANNING_CORE_ACP_QUESTIONS"] = old


@pytest.mark.slow
def test_our_2_shot_prompts_are_lm_evals_built_in_ones_byte_for_byte(lm_eval_tasks):
    from planning_core.validators.acp.dataset import load_questions

    folder, rendered = lm_eval_tasks
    questions = {(q.task, q.id): q for q in load_questions(folder)}
    for task in TASKS:
        raw, (builtin_chat, builtin_text), (ours_chat, ours_text), (zero_chat, _), n = \
            rendered[task]
        assert n == 2     # the paper's setting is the lm-eval package's default
        q = questions[(task, str(raw["id"]))]
        turns = plan_items([q], 2, source="paper")[0].conversation
        assert json.dumps(turns).encode() == builtin_chat.encode(), task
        assert ours_chat.encode() == builtin_chat.encode(), task
        assert flatten_messages(turns).encode() == builtin_text.encode(), task
        assert ours_text.encode() == builtin_text.encode(), task
        roles = [m["role"] for m in json.loads(builtin_chat)]
        assert roles == ["user", "assistant", "user", "assistant", "user"]
        grid, logistics = json.loads(builtin_chat)[0:3:2]
        assert "robot is in a grid" in grid["content"]
        assert "trucks, which can drive within a single city" in logistics["content"]
        assert json.loads(zero_chat) == turns[-1:]      # --num_fewshot 0: the question only


def test_inspect_samples_are_the_same_conversation():
    pytest.importorskip("inspect_ai")
    from planning_core.validators.acp.dataset import load_questions
    from planning_core.validators.acp.inspect_tasks import acp_task

    folder = require_shared() / "acpbench_hard"
    questions = {(q.task, q.id): q for q in load_questions(folder)}
    for shots in (2, 0):
        task = acp_task("land", str(folder), shots=shots)
        sample = task.dataset[0]
        q = questions[("land", sample.metadata["id"])]
        turns = plan_items([q], shots, source="paper")[0].conversation
        assert [(m.role, m.text) for m in sample.input] == [(t["role"], t["content"])
                                                            for t in turns]
        assert tuple(task.config.stop_seqs) == SENT_STOP
