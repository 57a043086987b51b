"""Test glue: the one loop's part in a table test (carrying out what the table's worker
threads ask), and the board shown still as the camera would show it."""
from __future__ import annotations

import queue
import time

from fenix_tools.synthetic import observe_placement


def carry_out(table, until, timeout=60.0):
    """The loop's part: carry out the table's requests until ``until()`` holds."""
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "the table's worker never answered"
        try:
            table.act(table.requests.get(timeout=0.05))
        except queue.Empty:
            pass


def show(table, position, index):
    """The board, still, as the camera sees it: twice (the referee's patience)."""
    for i in range(2):
        table.observe(observe_placement(position.stacks(), position.size, index + i), index + i)
