"""DeepPlanning (Zhang et al., "DeepPlanning: Benchmarking Long-Horizon Agentic Planning with
Verifiable Constraints", ``../shared/seeds/004_b20c033192432565.txt``): travel itineraries and
shopping carts in per-task sandboxes, the paper's exact scores, and generated tasks whose
optimum a solver proves unique.  ``docs/deepplanning.md`` cites the paper line by line.

Modules, one per stage:

* :mod:`.units` -- money in integer cents and clock times in integer minutes.
* :mod:`.travel_db`, :mod:`.shopping_db` -- the sandboxes in the released file layout (the
  cart state machine is :class:`.shopping_db.Cart`).
* :mod:`.travel_tools`, :mod:`.shopping_tools` -- the 9 + 15 tools as OpenAI function schemas.
* :mod:`.travel_plan` (the itinerary JSON), :mod:`.travel_checks` (the 21 checkpoints),
  :mod:`.travel_score`, :mod:`.shopping_score` -- the scores, ``paper`` and ``released``.
* :mod:`.solver`, :mod:`.travel_problem`, :mod:`.shopping_problem` -- decisions as z3
  problems, optimum certified, uniqueness proved, brute-force re-check.
* :mod:`.travel_gen`, :mod:`.travel_oracle`, :mod:`.shopping_gen` -- generated tasks.
* :mod:`.chat_tools`, :mod:`.agent`, :mod:`.tasks` -- tool-calling models, the agent loop,
  task discovery.
* :mod:`.queries`, :mod:`.report`, :mod:`.cli` -- released query files, Table 2 and the
  error taxonomy, the ``deepplanning`` commands.
"""
