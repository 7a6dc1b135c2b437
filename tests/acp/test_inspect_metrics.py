"""The Inspect metrics take ``list[SampleScore]`` (issue 32, item 7).

Inspect warned "Metric planning_core/unknown_rate should be updated to take
list[SampleScore]" for both of our metrics, whose ``compute`` had no annotation (Inspect reads
the annotation to choose the calling convention). These tests call the metrics the way
Inspect's evaluation does and check that no warning is logged.
"""
from __future__ import annotations

import logging
import math

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai._eval.task.results import call_metric, is_metric_deprecated  # noqa: E402
from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, SampleScore, Score  # noqa: E402

from planning_core.validators.acp.inspect_tasks import known_accuracy, unknown_rate  # noqa: E402

SCORES = [SampleScore(score=Score(value=v, metadata={"unknown": v == NOANSWER}))
          for v in (CORRECT, NOANSWER, INCORRECT, CORRECT)]


@pytest.mark.parametrize("make", [unknown_rate, known_accuracy])
def test_metric_takes_sample_scores_without_a_deprecation_warning(make, caplog):
    metric = make()
    assert not is_metric_deprecated(metric)
    with caplog.at_level(logging.WARNING):
        call_metric(metric, SCORES)
    assert not [r for r in caplog.records if "deprecated" in r.getMessage()]


def test_metric_values_on_sample_scores():
    assert call_metric(unknown_rate(), SCORES) == 0.25
    assert call_metric(known_accuracy(), SCORES) == pytest.approx(2 / 3)
    assert math.isnan(call_metric(known_accuracy(), [SCORES[1]]))
    assert call_metric(unknown_rate(), []) == 0.0
