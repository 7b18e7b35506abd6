"""Every file a user hands t2gen: one module per input, each with its byte bound, its parser's bounds and located problems.

Modules, one per input (``docs/untrusted-input.md`` has the table of bounds):
    textfile: the byte door every input comes through: a measured byte bound
        (files and standard input alike), UTF-8 decoding, offsets as ``line:col``.
    jobfile: the job file (YAML 1.2 or JSON).
    yaml: the positioned YAML reader of job files and Twister2 configuration.
    twister2conf: Twister2 configuration files, read as the runtime reads them.
    kubelist: ``kubectl get ... -o json|yaml`` lists: nodes, pods, quotas.
    cluster: ``status --cluster``: a job's objects in the cluster.
    manifests: ``t2gen check``'s manifest streams.
    aliased: manifests with YAML anchors and aliases, read as kubectl reads them.
    package: a job package (``--package``), read as a stream.
    resourcelist: a KRM function's ``ResourceList`` (``t2gen-kustomize``).
    jobobject: ``render --job-object``'s serialized Twister2 Job.
    privatekey: ``secret ssh --from-key``'s SSH private key.
    locate: where a JSON path is written in a YAML or JSON text (for the
        readers whose parser keeps no positions).

Every reader raises :class:`t2gen.errors.InputError` (or its one-problem
form, :class:`t2gen.errors.ConfigError`) with located problems.
"""
