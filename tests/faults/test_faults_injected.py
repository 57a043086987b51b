"""Faults injected into a working table (issue 20): kill -9, a full disk, a locked,
read-only or damaged archive, corrupt, deleted and stalled frames, a missing camera,
signals. Each asserts that every announced move is still there and the program came
back or said what is wrong on one line."""
import pytest

from tests.faults.cases import FAULTS, SLOW_FAULTS


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_fault_loses_nothing(name, tmp_path):
    FAULTS[name](tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW_FAULTS))
def test_a_fault_loses_nothing_long(name, tmp_path):
    SLOW_FAULTS[name](tmp_path)
