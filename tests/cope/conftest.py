"""Fixtures shared by the CoPE tests: the full ground-truth check, computed once."""
from __future__ import annotations

import pytest
from conftest import require_shared

from planning_core.validators.cope.check import check_pairs
from planning_core.validators.cope.dataset import load_dataset_report

from tests.cope.minicope import write_minicope

FULL_CHECK_TIME_LIMIT = 10.0


@pytest.fixture(scope="session")
def cope_pairs():
    return load_dataset_report(require_shared() / "cope")


@pytest.fixture(scope="session")
def full_checks(cope_pairs):
    """``cope check`` over both shared datasets (two workers; about a minute and a half)."""
    pairs, _ = cope_pairs
    return check_pairs(pairs, time_limit=FULL_CHECK_TIME_LIMIT, workers=2)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """The tiny hand-written CoPE dataset (:mod:`tests.cope.minicope`)."""
    return write_minicope(tmp_path_factory.mktemp("cope"))
