"""Tool-use plans as planning tasks (issue 15): exact checks of agent tool chains.

Python API::

    from planning_core.validators.toolplans import TaskContext, read_task, check_output
    ctx = TaskContext(read_task("task.json"))
    report = check_output(ctx, model_output_text)     # ChainReport: verdict, faults, grade
    ctx.feasibility()                                  # solvable? infeasibility kind, optimum
    judge_next(ctx, prefix, call)                      # the step-wise setting
    compile_task(ctx.task, "pddl3").texts()            # the PDDL domain and problem

See ``docs/toolplans.md`` for the formats, the compilation and the fault classes.
"""
from __future__ import annotations

from planning_core.lazy_exports import lazy_exports

# Loaded on first use (PEP 562): the ``planning-core`` console imports this package's cli
# module at every start to register the ``toolplans`` commands, and should not pay for the
# checker and compiler behind these names then.
_EXPORTS = {"Call": "calls", "ModelOutput": "calls", "parse_output": "calls",
            "ChainReport": "check", "check_output": "check",
            "Compiled": "compile", "compile_task": "compile",
            "TaskContext": "context", "relevant_tools": "relevance",
            "FAULT_CLASS": "faults", "Fault": "faults",
            "Feasibility": "feasibility", "plan_calls": "feasibility",
            "Constraint": "spec", "DataItem": "spec", "Param": "spec", "Tool": "spec",
            "ToolSpecError": "spec", "ToolTask": "spec", "parse_task": "spec",
            "parse_tools": "spec", "read_task": "dataset", "read_tools": "spec",
            "NextReport": "stepwise", "judge_next": "stepwise",
            "PredictionReport": "stepwise", "judge_prediction": "stepwise"}

__all__ = ["Call", "ChainReport", "Compiled", "Constraint", "DataItem", "FAULT_CLASS", "Fault",
           "Feasibility", "ModelOutput", "NextReport", "Param", "PredictionReport", "TaskContext", "Tool",
           "ToolSpecError", "ToolTask", "check_output", "compile_task", "judge_next", "judge_prediction",
           "parse_output", "parse_task", "parse_tools", "plan_calls", "read_task",
           "read_tools", "relevant_tools"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, globals())
