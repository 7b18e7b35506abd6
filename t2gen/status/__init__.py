"""``t2gen status``: a job's phase, each worker's state by worker ID, and what is left over.

A front end beside ``plan``: it reads a job's rendered objects (from
:mod:`t2gen.pipeline`) and its objects in the cluster (``status --cluster``,
:mod:`t2gen.inputs.cluster`), and reports. It left ``plan/`` (issue 38): it
shares no code with the scheduler's verdict, and maps pods to worker IDs with
the runtime's own topology (:mod:`t2gen.twister2.topology`), which ``plan``'s
worker map is built on too.

Modules, in the order data flows:
    fetch: the ``kubectl get`` whose output ``status`` reads: the kinds of
        the job (:mod:`t2gen.kube.kinds`), its supervisor and what the job
        master leaves (:mod:`t2gen.twister2.terminator`).
    live: the same ``kubectl get`` run by t2gen itself (``--live``,
        ``--watch``, ``t2gen wait``).
    phase: the phase, each container's state, the supervisor's outcome and
        the leftovers, as data.
    text: that data for people.
    logs: ``t2gen logs``: the log files ``spec.logs`` kept, read through a
        short-lived reader pod (:mod:`t2gen.twister2.logfiles`).
"""
