"""APB's settings and refinement modes: names the command line offers as choices.

Kept apart from :mod:`apb` and :mod:`prompts` so that building ``toolplans --help`` does not
import the generator (and through it the grounder)."""

from __future__ import annotations

#: cases per setting in the paper (../shared/seeds/001_25509288ef9c2098.txt lines 61, 69,
#: 81, 85, 89)
PAPER_COUNTS = {"holistic": 1109, "stepwise": 900, "extraneous": 1500, "broken": 300,
                "unsolvable": 400}
SETTINGS = tuple(PAPER_COUNTS)
#: Table 4's four refinement methods (lines 749-756): self or critic, with (+) or without
#: (-) the error taxonomy
REFINE_MODES = ("self+", "self-", "critic+", "critic-")
