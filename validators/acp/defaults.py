"""Defaults that ``acp --help`` shows, in a module of their own so that the help does not
import the searches (and with them the grounder and lark) or the dataclasses of the records."""

__all__ = ["DEFAULT_BUDGET", "MAX_RESPONSE_BYTES"]

#: Expanded states one search of a scorer may use before its verdict is unknown. Chosen so
#: that no answer of the dev split ends unknown: the largest search there (exhausting
#: floor-tile's reachable states) expands about 60,000 states.
DEFAULT_BUDGET = 2_000_000

#: Longest response read, in UTF-8 bytes (``acp score --max-response-bytes``). Every
#: reader of a response is linear (a 1.4 MB answer is read in 0.2 s), so the cap only
#: bounds runaway generations; a longer response is scored unknown (``too-large``).
MAX_RESPONSE_BYTES = 1_000_000
