"""Run two Inspect tasks in-process with ``mockllm/model`` (a child process of a test).

A separate process because pytest puts ``tests/`` on ``sys.path``, where ``tests/acp``
would shadow the ``acp`` package Inspect imports. ``argv``: questions folder, log folder.
Runs once answering the gold answer, once answering wrong; prints one JSON object:
``right``/``wrong`` -> task -> metric -> value.
"""
from __future__ import annotations

import json
import os
import sys

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from planning_core.validators.acp.dataset import load_questions
from planning_core.validators.acp.gold import gold_answer
from planning_core.validators.acp.inspect_tasks import acp_just, acp_val
from planning_core.validators.acp.prompts import question_text


def main() -> None:
    folder, log_dir = sys.argv[1:3]
    os.environ["PLANNING_CORE_ACP_QUESTIONS"] = folder
    by_prompt = {question_text(q): q for q in load_questions(folder)}

    report: dict[str, dict] = {}
    for mode in ("right", "wrong"):
        def output(messages, tools, tool_choice, config, mode=mode):
            q = by_prompt[messages[-1].text]
            out = ModelOutput.from_content("mockllm/model", gold_answer(q) if mode == "right"
                                           else "I do not know.")
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            return out

        logs = inspect_eval([acp_val(), acp_just()], display="none", limit=2,
                            log_dir=log_dir,
                            model=get_model("mockllm/model", custom_outputs=output))
        report[mode] = {}
        for log in logs:
            if log.status != "success":
                report[mode][log.eval.task] = {"error": str(log.error)}
                continue
            report[mode][log.eval.task] = {k: m.value for k, m in
                                           log.results.scores[0].metrics.items()}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
