"""The Twister2 job package: ``<job>.tar.gz`` with ``twister2-job/<job>.job``, the jar and the configuration.

Modules:
    job: the ``tws.proto.job.Job`` message, as ``Twister2Job.serialize()`` builds it.
    confagree: which configuration keys must agree with the job file, and
        ``--conf``'s files made to agree (read by :mod:`t2gen.inputs.twister2conf`).
    confwrite: the configuration written: values SnakeYAML reads back, keys set in place.
    runtime: the checkpointing and ZooKeeper keys of the configuration.
    jar: ``--jar`` is a jar holding the worker and driver classes.
    write: the reproducible archive.
    build: ``t2gen package``: all of the above for one job.
    agree, sizing: ``--package``: a package (t2gen's or ``twister2 submit``'s,
        read by :mod:`t2gen.inputs.package`) checked against a job file, and
        the job sized from it.
    described: ``--package``: the ``.job``'s worker count and JobConfig runtime
        keys against the job file, and a package without ``logger.properties``.
    keptlogs: ``--package``'s warnings when its ``logger.properties`` would not
        keep ``spec.logs``' files whole.
    pinning: ``--package``'s SHA-256 and size into the manifests, checked
        against ``jobPackage.source``.
    oci: the package as an OCI artifact: its manifest, digest and layout index.
    delivery: what ``t2gen package`` prints for a package named by digest, and
        where the job file's size or digests disagree with the package written.
    settings: what the render takes from the package's configuration (its
        namespace, dashboard and HDFS name node) and their policy warnings.

Importing this package imports nothing; ``protobuf`` is loaded only by the
modules that need it.
"""
