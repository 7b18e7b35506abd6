"""The runtime contract: what the unmodified Twister2 runtime requires of t2gen's objects.

Every test here states one requirement of the Twister2 runtime that runs in the
pods (the starters and the scripts of the ``twister2/twister2-k8s:0.8.0`` image),
cites the lines of DSC-SPIDAL/twister2 it comes from (paths abbreviated as in
:mod:`tests.contract.runtime`, which models the runtime: its names, its worker
ID formula and every Kubernetes API call it makes), and checks it on every case
of :mod:`tests.contract.cases`: every golden, every example, every imported
Twister2 configuration and the job files of ``tests/contract/jobs/``.

A requirement t2gen breaks today is listed in
:data:`tests.contract.helpers.KNOWN_BROKEN` with the cases that break it; they
run as strict ``xfail``, so a fix fails the suite until its entry goes.
:mod:`tests.contract.test_mutations` proves the tests fail on a golden changed to
break a requirement. ``docs/runtime-contract.md`` has the table of requirements,
their sources, their tests and whether t2gen met them before issue 22.
"""
