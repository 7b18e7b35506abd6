"""Tests of the job-file rules.

The job files each rule refuses (and those it must accept) are input cases in
``tests/cases/<name>/``, run by tests/test_cases.py through ``t2gen validate``
and ``t2gen render``.
"""

from __future__ import annotations
