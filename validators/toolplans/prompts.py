"""APB's prompts, rendered for one generated case (``toolplans run``).

Line numbers refer to ``/work/shared/seeds/001_25509288ef9c2098.txt`` (the APB paper).

* step-wise, k = 1, 2, 3: Figures 28-30 (lines 665-678): the task, the available tools
  ("[Tool Name]: [Description] Parameters: [Params]"), "Steps Completed So Far" (the prefix,
  each call with what it returned), the one-, two- or three-step instruction and the JSON
  format; k = 2, 3 predict "WITHOUT including the tool execution results in between";
* holistic: Figure 34 (line 690), the ``plan`` / ``tool_chain`` format with
  ``parameter_description`` values "described conceptually";
* extraneous: Figures 37-38 (lines 720-723): the same prompts, the distractors listed after
  the task's own tools;
* tool-broken: the one-step prompt (the setting is "based on step-wise planning", line 85),
  the prefix "ending with the error" and the replacement among the tools (Figure 36,
  line 709);
* unsolvable: Figure 34 without the assumption "Query is Solvable" (the paper presents an
  impossible task and lets the agent "plan or refuse", lines 733-736), with the refusal format
  of the paper's own correct answers (``{"status": "REJECT", "reason"}``, Figures 54-57,
  lines 943-949); a visual-missing case shows its files as an empty list (Figure 17,
  line 516);
* refinement (C.7, lines 742-767): the reflection prompts of Figures 42 (step-wise) and 43
  (holistic), with or without the six error types ("w/ Metric" / "w/o Metric"), and a last
  turn asking for the final JSON.

A task's constraints are part of its query: a forbidden tool is said as "Do not use T." and
so on (:func:`query_text`), since the paper's constraints are sentences of the query
(Figures 15-16, lines 491-494).
"""
from __future__ import annotations

import hashlib
import json

from planning_core.validators.toolplans.settings import REFINE_MODES

__all__ = ["REFINE_MODES", "case_prompt", "prompt_hash", "query_text", "reflection_prompt",
           "refine_prompt", "render_tools", "render_prefix"]


def query_text(task: dict) -> str:
    """The user query: the request, then its constraints as sentences."""
    parts = [str(task.get("request") or "").strip()]
    for name in task.get("forbidden") or ():
        parts.append(f"Do not use {name}.")
    for c in task.get("constraints") or ():
        kind = c.get("kind")
        if kind == "not_before":
            parts.append(f"Do not call {c.get('tool')} before {c.get('until')}.")
        elif kind == "at_most":
            what = c.get("tool") or "tools"
            parts.append(f"Call {what} at most {c.get('n')} time(s)." if c.get("tool")
                         else f"Make at most {c.get('n')} tool call(s) in total.")
        elif kind == "must_call":
            parts.append(f"You must use {c.get('tool')}.")
    return " ".join(p for p in parts if p)


def _params(tool: dict) -> str:
    schema = tool.get("parameters") or tool.get("inputSchema") or {}
    props = {}
    for name, spec in (schema.get("properties") or {}).items():
        shown = {k: v for k, v in spec.items() if not k.startswith("x-")}
        if spec.get("x-data-type"):
            shown.setdefault("description", f"a {spec['x-data-type'].replace('_', ' ')}")
        props[name] = shown
    return json.dumps({"type": "object", "properties": props,
                       "required": list(schema.get("required") or [])})


def render_tools(task: dict) -> str:
    """Figure 28's "[Tool Name]: [Description] Parameters: [Params]", one tool a line (the
    task's own tools first, its distractors after them: Figures 37-38); what a tool returns
    and needs first is part of its description."""
    tools = list(task.get("tools") or ())
    extra = set(task.get("extraneous") or ())
    tools.sort(key=lambda t: t.get("name") in extra)      # stable: the order is kept
    lines = []
    for t in tools:
        note = t.get("x-planning") or {}
        desc = str(t.get("description") or "").strip()
        if note.get("produces"):
            desc += f" Returns: {', '.join(note['produces'])}."
        if note.get("requires"):
            desc += f" Needs: {', '.join(note['requires'])} (from an earlier call)."
        if note.get("after"):
            desc += f" Call only after {', '.join(note['after'])}."
        lines.append(f"{t.get('name')}: {desc} Parameters: {_params(t)}")
    return "\n".join(lines)


def _returns(call: dict, task: dict, step: int) -> dict:
    """What a prefix call returned: its ``returns`` when the case records them, else one
    value per output type of its tool, named after the step (``flight_offer #1``)."""
    if isinstance(call.get("returns"), dict):
        return call["returns"]
    for t in task.get("tools") or ():
        if t.get("name") == call.get("name"):
            return {x: f"{x} #{step}" for x in (t.get("x-planning") or {}).get("produces", ())}
    return {}


def render_prefix(case: dict) -> str:
    """"Steps Completed So Far" (Figure 28): each call with its arguments and what it
    returned (line 73: "previous actions, and observed tool returns"); the last call of a
    tool-broken case returned the error (Figure 36: "ending with the error")."""
    task = case["task"]
    prefix = list(case.get("prefix") or ())
    if not prefix:
        return "(none yet)"
    lines = []
    for k, call in enumerate(prefix, start=1):
        lines.append(f"Step {k}: call {call.get('name')} with arguments "
                     f"{json.dumps(call.get('arguments') or {})}")
        if case.get("setting") == "broken" and k == len(prefix):
            lines.append(f"Observation: {case.get('error') or 'Error: the tool failed'}")
        else:
            lines.append(f"Observation: {json.dumps(_returns(call, task, k))}")
    return "\n".join(lines)


_COUNT = {1: "NEXT SINGLE STEP", 2: "NEXT TWO STEPS", 3: "NEXT THREE STEPS"}
_WORD = {2: "TWO", 3: "THREE"}
_ORD = ("first", "second", "third")

_ONE_FORMAT = """REQUIRED OUTPUT FORMAT:
Your response MUST follow this exact JSON structure:
{
  "role": "assistant",
  "thought": "Your reasoning about what to do next",
  "tool_calls": [
    {
      "type": "function",
      "function": {
        "name": "tool_name",
        "arguments": {
          "param1": "value1",
          "param2": "value2"
        }
      }
    }
  ]
}
- The role field MUST be "assistant"
- The thought field contains your reasoning
- The tool_calls field is an array of tool call objects
- Each tool call MUST have type: "function" and a function object with name and arguments
- If no tool call is needed, use an empty array: "tool_calls": []
You must output ONLY the JSON object. Do not include any other text."""


def _multi_format(k: int) -> str:
    steps = ",\n".join(f'  {{\n    "role": "assistant",\n    "thought": "Your reasoning for '
                       f'the {_ORD[i]} step",\n    "tool_calls": [...]\n  }}' for i in range(k))
    word = _WORD[k]
    return (f"REQUIRED OUTPUT FORMAT:\nYour response MUST be a JSON array containing exactly "
            f"{word} assistant steps:\n[\n{steps}\n]\n"
            f"- MUST be a JSON array with exactly {k} objects\n"
            f"- Do NOT include tool execution results between the {word.lower()} steps\n"
            "- Each step has the fields role (\"assistant\"), thought and tool_calls, each "
            "tool call {\"type\": \"function\", \"function\": {\"name\", \"arguments\"}}\n"
            "You must output ONLY the JSON array. Do not include any other text.")


def stepwise_prompt(case: dict, k: int) -> str:
    """Figures 28-30 (lines 665-678)."""
    task = case["task"]
    head = ("You are solving a task step by step only using the available tools.\n\n"
            f"Task: {query_text(task)}\n\nAvailable Tools:\n{render_tools(task)}\n\n"
            f"Steps Completed So Far:\n{render_prefix(case)}\n\n"
            f"Your Task: Predict the {_COUNT[k]} to progress toward solving this task.")
    if k == 1:
        return f"{head}\n\n{_ONE_FORMAT}"
    word = _WORD[k]
    return (f"{head} You should predict {word} consecutive assistant actions/tool calls, "
            "WITHOUT including the tool execution results in between. Think about what needs "
            f"to be done next and plan the following {word.lower()} actions.\n\n"
            f"{_multi_format(k)}")


_HOLISTIC_HEAD = (
    "You are an expert AI assistant. Your task is to analyze the user's query and any "
    "provided files (which could be text or images). Based on this, you must generate a "
    "high-level \"plan\" and a detailed, linear tool chain (named \"tool_chain\"). Your goal "
    "is to generate a single, logical sequence of tool calls that solves the query. You will "
    "not execute the tools or receive any feedback. You must generate the most likely "
    "successful path based on your own generated plan.")

_HOLISTIC_RULES = """CRITICAL: Output Format and Parameter_description Rules
You must return your response only as a JSON object.
1. Structure Definition:
Root: An object with "plan" (string) and "tool_chain" (list).
`plan`: A high-level, natural-language summary of your strategy.
`tool_chain`: A list of "Tool Call" objects.
2. Tool Call Object Rules:
Each object in the `tool_chain` list must have 3 keys:
"name": (string) The exact name of the tool to be called.
"parameter_description": (object) The parameter_description for the tool.
"reason": (string) An explanation of why this tool is being called at this step.
3. parameter_description Rules (Most Important):
Inside the "parameter_description" object, you MUST describe the parameter values conceptually to show you understand the data flow.
For static values (from the query): Use the actual value (e.g., "target": "girl character").
For dynamic values (from a previous step): Describe what the data is or where it comes from (e.g., "frames_to_check": "The list of frames returned from Step 1...").
Example JSON Structure:
{
  "plan": "A high-level, natural-language summary...",
  "tool_chain": [
    {
      "name": "first_tool_name",
      "parameter_description": {
        "param_key_1": "A static value from the user query"
      },
      "reason": "Explain why this is the first logical step."
    }
  ]
}"""

_REJECT_RULE = (
    "If the query cannot be solved with the available tools and the information given, do "
    "not plan: return only {\"status\": \"REJECT\", \"reason\": \"why it cannot be done\"}.")


def _files(task: dict) -> str:
    """The files line: image items that can be read; an empty list when the case's images
    failed to load (Figure 17 empties the file list); nothing when there are none."""
    items = task.get("items") or ()
    images = [i for i in items if i.get("modality") == "image"]
    if not images:
        return ""
    shown = [f"{i.get('name')} ({i.get('modality')})" for i in images
             if i.get("accessible", True)]
    return f"\n\nFiles: {json.dumps(shown)}"


def holistic_prompt(case: dict, *, solvable_assumption: bool = True) -> str:
    """Figure 34 (line 690); without ``solvable_assumption`` the unsolvable setting's
    variant (see the module doc)."""
    task = case["task"]
    assume = ("Crucial Assumptions:\nAll Tools Work Perfectly: Assume all tools are bug-free.\n"
              + ("Query is Solvable: The query can be fully solved by the tools.\n"
                 if solvable_assumption else f"{_REJECT_RULE}\n"))
    return (f"{_HOLISTIC_HEAD}\n\n{assume}\nAvailable Tools: You must only use the tools "
            f"provided in the list below.\n{render_tools(task)}\n\n{_HOLISTIC_RULES}\n\n"
            f"User Query: {query_text(task)}{_files(task)}")


def case_prompt(case: dict) -> str:
    """The prompt of ``case`` in its setting (see the module doc)."""
    setting = case.get("setting")
    base = case.get("base") or ("stepwise" if setting in ("stepwise", "broken") else "holistic")
    if setting == "broken":
        return stepwise_prompt(case, 1)
    if base == "stepwise":
        return stepwise_prompt(case, int(case.get("k") or 1))
    return holistic_prompt(case, solvable_assumption=setting != "unsolvable")


def prompt_hash(messages) -> str:
    text = json.dumps(messages, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# ------------------------------------------------------------------ refinement (C.7)

_STEP_METRIC = """Critically evaluate it against the following 6 error types:
E1_GOAL_MISALIGNMENT: Does the step align with the user's query?
E2_PREMATURE_CONCLUSION: Is the task actually finished? (Check if tool calls are missing when needed)
E3_CONSTRAINT_VIOLATION: Does it violate any format or negative constraints? (Check for required fields like `role`, `thought`, `tool_calls`)
E4_LOGIC_ERROR: Is there a logical flaw in the reasoning? (Check for prerequisites, redundancy, circular reasoning)
E5_TOOL_USE_ERROR: Are tool arguments correct and valid according to the tool specification?
E6_HALLUCINATION_ERROR: Is the step based on real information? (Check for non-existent tools or data)
"""

_HOL_METRIC = """Please review your previous plan strictly against the following 6 error categories:
E1_GOAL_UNDERSTANDING: Do not misunderstand the user intent. Do not hardcode the final answer.
E2_TASK_COMPLETENESS: Do not miss any sub-tasks.
E3_CONSTRAINT_VIOLATION: Do not violate negative constraints (e.g., "Do not use a tool the user forbade").
E4_LOGICAL_DEFECT: Ensure every step has its inputs available when it runs.
E5_TOOL_USE_ERROR: Ensure parameters match the tool definitions strictly.
E6_HALLUCINATION_ERROR: Do not invent tools or data that do not exist.
Please review the initial response provided by an AI assistant strictly against the 6 error categories listed above. Your task is to identify if the plan commits any of these errors.
Provide a detailed analysis of the flaws found and suggest how to correct them."""

_HOL_PLAIN = ("Please review the initial plan and tool chain provided by the assistant above. "
              "Check if there are any errors and ensure it completely solves the user's "
              "original request.\nProvide a clear analysis of any issues you find or confirm "
              "if it is correct.")


def reflection_prompt(case: dict, initial: str, metric: bool) -> list[dict]:
    """The reflection turn(s) of C.7: Figure 42 (step-wise, one prompt holding the task,
    the trajectory and the initial prediction) or Figure 43 (holistic, a follow-up to the
    planning conversation); ``metric``: "w/ Metric" (the six error types)."""
    setting = case.get("setting")
    base = case.get("base") or ("stepwise" if setting in ("stepwise", "broken") else "holistic")
    if base == "stepwise":
        task = case["task"]
        check = (_STEP_METRIC + "Reflection Instructions:\nAnalyze if the predicted step is "
                 "the most optimal next action. Check for any potential errors based on the 6 "
                 "criteria above.\n") if metric else (
            "Reflection Instructions:\nAnalyze if there are any potential issues or better "
            "alternatives.\n")
        text = ("You are an expert planning agent.\n\n"
                f"Task: {query_text(task)}\n\nAvailable Tools:\n{render_tools(task)}\n\n"
                f"Steps Completed So Far:\n{render_prefix(case)}\n\n"
                f"Your Initial Prediction:\n{initial}\n\n"
                "Your Task: Perform a self-reflection on your initial prediction. " + check +
                "Consider if there are better alternatives. Determine if the initial prediction "
                "should be kept, modified, or completely changed.\nCRITICAL WARNINGS:\n"
                "DO NOT SKIP STEPS: If the initial prediction is a necessary prerequisite, keep "
                "it.\nDO NOT HALLUCINATE PREREQUISITES: If the initial prediction directly "
                "addresses the user's request, do not invent steps before it.\n"
                "DO NOT OVER-CORRECT: If the initial prediction is logical and valid, endorse "
                "it.\nProvide a detailed critique and reasoning. Do NOT output the final JSON "
                "action yet, just your reflection.")
        return [{"role": "user", "content": text}]
    review = (_HOL_METRIC if metric else _HOL_PLAIN) + (
        "\nDo NOT output the final JSON yet. Just provide your reasoning and analysis.")
    return [{"role": "user", "content": case_prompt(case)},
            {"role": "assistant", "content": initial},
            {"role": "user", "content": review}]


def refine_prompt(case: dict, initial: str, reflection: str) -> list[dict]:
    """The refinement turn (C.7's third step, "a final, refined prediction based on the
    reflection"; the paper prints no prompt for it): the original prompt, the initial
    answer, the reflection, and the request for the final answer in the original format."""
    return [{"role": "user", "content": case_prompt(case)},
            {"role": "assistant", "content": initial},
            {"role": "user", "content": "A review of your answer:\n" + reflection +
             "\n\nTaking this review into account, give your final answer now, in exactly the "
             "JSON format required above. Output ONLY the JSON."}]
