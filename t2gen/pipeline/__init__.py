"""Orchestration: the stages called in order, their problems gathered.

* :mod:`t2gen.pipeline.load`: job files read and validated once, each kept
  with its file as read (``(job, doc)``); what ``t2gen validate`` runs.
* :mod:`t2gen.pipeline.job`: jobs rendered in this process (render, check,
  sort); what ``t2gen render JOB`` runs.
* :mod:`t2gen.pipeline.plan` and :mod:`t2gen.pipeline.status`: ``t2gen plan``
  and ``t2gen status``, each the job read once, then the front end;
  :mod:`t2gen.pipeline.logs`: ``t2gen logs``, likewise.
* :mod:`t2gen.pipeline.secret`: the SSH Secret of ``t2gen secret ssh``.
* :mod:`t2gen.pipeline.jobfiles`: which files are job files (``t2gen find``,
  ``render -f DIR``); :mod:`t2gen.pipeline.regenerate`: t2gen's objects among
  others (what ``t2gen-kustomize`` replaces); :mod:`t2gen.pipeline.poststream`:
  Helm's post-render of a chart's stream.
* :mod:`t2gen.pipeline.batch`: many job files over several processes with the
  same result; entered only with more than one job file.

This module imports nothing, so that the command line can read
:data:`t2gen.pipeline.batch.MIN_JOBS` without loading the stages.
"""
