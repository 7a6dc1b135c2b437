"""The eight ACPBench Hard scorers, one module per task family, and what they share.

:mod:`.base` holds the context and verdict helpers, :mod:`.queries` the three engine
questions the scorers ask (reachability, the landmark test, h*), and :mod:`.witness` the
search for a witness against a ``None`` answer. The registry of scorers by task is
:data:`planning_core.validators.acp.scoring.SCORERS`.
"""
