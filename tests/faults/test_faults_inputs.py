"""Hostile inputs to every command (issue 20): each gives one line naming the problem and
exit status 2 (78: run's broken configuration), and leaves the archive as it was."""
import pytest

from tests.faults.cases import BAD_INPUTS, check_input


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_a_bad_input_is_one_line_and_changes_nothing(name, tmp_path):
    assert check_input(BAD_INPUTS[name](tmp_path)) == ""
