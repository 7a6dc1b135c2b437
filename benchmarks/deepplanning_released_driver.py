"""Runs the authors' released DeepPlanning tools on a list of calls (for
``deepplanning_tools_differential.py``; not imported by the project).

Run with a Python that has the released tools' dependencies (pandas, jsonschema, json5,
rank-bm25 and the Qwen-Agent checkout on ``PYTHONPATH``)::

    python deepplanning_released_driver.py RELEASED JOB.json OUT.json

``RELEASED`` is the checkout's ``benchmark/deepplanning``.  ``JOB.json``: ``{"domain",
"databases": [{"folder", "calls": [[tool, arguments-text], ...]}], "schemas": {...}}``.
Each database's tools are built as the released agents build them (travel: one instance
per tool with the task's table; shopping: one instance per tool on the case folder, the
cart in its ``cart.json``), and each call is executed as the released agents execute it
(travel ``tools_fn_agent._exec_tool``: arguments that are not JSON become ``{}``; shopping
``shopping_agent._exec_tool``: the raw text; an exception becomes ``{"error": ...}``).
Travel tools get the schema the model was given (``schemas``: ours), since a refused
call's answer quotes it.
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

TRAVEL_FILES = {
    "query_train_info": "trains/trains.csv", "query_flight_info": "flights/flights.csv",
    "query_hotel_info": "hotels/hotels.csv",
    "query_attraction_details": "attractions/attractions.csv",
    "recommend_attractions": "attractions/attractions.csv",
    "search_location": "locations/locations_coords.csv",
    "query_road_route_info": "transportation/distance_matrix.csv",
    "recommend_restaurants": "restaurants/restaurants.csv",
    "query_restaurant_details": "restaurants/restaurants.csv",
}


def travel(released: Path, job: dict) -> list[list[str]]:
    sys.path.insert(0, str(released / "travelplanning"))
    import tools as rt  # type: ignore
    from tools.base_travel_tool import BaseTravelTool  # type: ignore
    classes = {}
    for cls in BaseTravelTool.__subclasses__():
        for name, c in rt.base_travel_tool.TOOL_REGISTRY.items():
            if c is cls:
                schema = job["schemas"][name]
                cls.description = schema["description"]
                cls.parameters = schema["parameters"]
                classes[name] = cls
    out = []
    for db in job["databases"]:
        folder = Path(db["folder"])
        inst = {}
        for name, cls in classes.items():
            cfg = {"language": "en"}
            path = folder / TRAVEL_FILES[name]
            if path.exists():
                cfg["database_path"] = str(path)
            inst[name] = cls(cfg=cfg)
        answers = []
        for name, arguments in db["calls"]:
            tool = inst.get(name)
            if tool is None:
                answers.append(json.dumps({"error": f"tool '{name}' not found"},
                                          ensure_ascii=False))
                continue
            try:
                args = json.loads(arguments) if arguments else {}
            except Exception:
                args = {}
            try:
                res = tool.call(args)
                answers.append(res if isinstance(res, str)
                               else json.dumps(res, ensure_ascii=False))
            except Exception as e:
                answers.append(json.dumps({"error": str(e)}, ensure_ascii=False))
        out.append(answers)
    return out


def shopping(released: Path, job: dict) -> list[list[str]]:
    sys.path.insert(0, str(released / "shoppingplanning" / "tools"))
    sys.path.insert(0, str(released / "shoppingplanning"))
    import tools as st  # type: ignore
    registry = st.base_shopping_tool.TOOL_REGISTRY if hasattr(st, "base_shopping_tool") \
        else __import__("base_shopping_tool").TOOL_REGISTRY
    out = []
    for db in job["databases"]:
        inst = {name: cls({"database_path": db["folder"]}) for name, cls in registry.items()}
        answers = []
        for name, arguments in db["calls"]:
            tool = inst.get(name)
            if tool is None:
                answers.append(json.dumps({"error": f"tool '{name}' not found"},
                                          ensure_ascii=False))
                continue
            try:
                res = tool.call(arguments)
                answers.append(res if isinstance(res, str)
                               else json.dumps(res, ensure_ascii=False))
            except Exception as e:
                answers.append(json.dumps({"error": str(e)}, ensure_ascii=False))
        out.append(answers)
    return out


def main() -> int:
    released, job_path, out_path = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    job = json.loads(job_path.read_text(encoding="utf-8"))
    with contextlib.redirect_stdout(io.StringIO()):   # the tools print load notices
        answers = (travel if job["domain"] == "travel" else shopping)(released, job)
    out_path.write_text(json.dumps(answers, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
