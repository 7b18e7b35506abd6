"""The check that no test leaves a process running (issue 42, item 9) finds what it must."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.processes import children, leftovers


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs prctl(2)")
def test_an_orphan_of_a_finished_shell_is_found_named_and_killed(
    _subreaper: bool,
) -> None:
    assert _subreaper, "the test process adopts its tests' orphans"
    # The shell exits at once; its background child outlives it, as the fake
    # kubectl watch of tests/lifecycle outlived the supervisor's shell.
    subprocess.run(
        ["sh", "-c", "sleep 300 >/dev/null 2>&1 & echo started"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    left = leftovers()
    assert len(left) == 1 and left[0].endswith(" sleep 300"), left
    assert leftovers() == []  # killed and reaped


def test_a_test_that_waits_for_its_processes_leaves_none() -> None:
    subprocess.run(["sh", "-c", "sleep 0 & wait"], check=True)
    assert leftovers() == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs prctl(2)")
def test_an_orphan_that_ended_is_reaped_not_counted(_subreaper: bool) -> None:
    assert _subreaper
    # The inner shell reads the pipe this test holds: it outlives the outer one,
    # and ends when the test closes the pipe.
    outer = subprocess.Popen(
        ["sh", "-c", "sh -c 'read line' &"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert outer.wait(timeout=60) == 0
    (orphan,) = children()  # handed to this process when the outer shell ended
    assert outer.stdin is not None
    outer.stdin.close()
    os.waitid(os.P_PID, orphan, os.WEXITED | os.WNOWAIT)  # until it has ended
    assert leftovers() == []
    assert children() == []
