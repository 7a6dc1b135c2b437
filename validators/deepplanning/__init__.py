"""DeepPlanning (Zhang et al., "DeepPlanning: Benchmarking Long-Horizon Agentic Planning with
Verifiable Constraints", ``../shared/seeds/004_b20c033192432565.txt``): travel itineraries and
shopping carts in per-task sandboxes, the paper's exact scores, and generated tasks whose
optimum a solver proves unique.

Modules, one per stage:

* :mod:`.units` -- money in integer cents and clock times in integer minutes.
* :mod:`.travel_db`, :mod:`.shopping_db` -- the sandboxes in the released file layout.
* :mod:`.travel_tools`, :mod:`.shopping_tools` -- the tools as OpenAI function schemas.
* :mod:`.travel_score`, :mod:`.shopping_score` -- the scores (``paper`` and ``released``).
* :mod:`.travel_gen`, :mod:`.shopping_gen`, :mod:`.solver` -- tasks with proved unique optima.
* :mod:`.oracle`, :mod:`.agent`, :mod:`.chat_tools` -- agents and the tool-calling loop.
* :mod:`.queries`, :mod:`.report` -- released query files, Table 2 and the error taxonomy.
"""
