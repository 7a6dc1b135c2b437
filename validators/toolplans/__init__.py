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
from planning_core.validators.toolplans.calls import Call, ModelOutput, parse_output
from planning_core.validators.toolplans.check import ChainReport, check_output
from planning_core.validators.toolplans.compile import Compiled, compile_task
from planning_core.validators.toolplans.context import TaskContext
from planning_core.validators.toolplans.relevance import relevant_tools
from planning_core.validators.toolplans.faults import FAULT_CLASS, Fault
from planning_core.validators.toolplans.feasibility import Feasibility, plan_calls
from planning_core.validators.toolplans.spec import (Constraint, DataItem, Param, Tool,
                                                      ToolSpecError, ToolTask, parse_task,
                                                      parse_tools, read_task, read_tools)
from planning_core.validators.toolplans.stepwise import (NextReport, PredictionReport, judge_next,
                                                          judge_prediction)

__all__ = ["Call", "ChainReport", "Compiled", "Constraint", "DataItem", "FAULT_CLASS", "Fault",
           "Feasibility", "ModelOutput", "NextReport", "Param", "PredictionReport", "TaskContext", "Tool",
           "ToolSpecError", "ToolTask", "check_output", "compile_task", "judge_next", "judge_prediction",
           "parse_output", "parse_task", "parse_tools", "plan_calls", "read_task",
           "read_tools", "relevant_tools"]
