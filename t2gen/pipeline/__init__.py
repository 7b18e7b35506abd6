"""Orchestration: the stages called in order, their problems gathered.

* :mod:`t2gen.pipeline.job`: job files rendered in this process (validate,
  render, check, sort), and the SSH Secret; what ``t2gen validate`` and
  ``t2gen render JOB`` run.
* :mod:`t2gen.pipeline.batch`: many job files over several processes with the
  same result; entered only with more than one job file.

This module imports nothing, so that the command line can read
:data:`t2gen.pipeline.batch.MIN_JOBS` without loading the stages.
"""
