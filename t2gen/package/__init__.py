"""The Twister2 job package: ``<job>.tar.gz`` with ``twister2-job/<job>.job``, the jar and the configuration.

``job`` builds the ``tws.proto.job.Job`` message as ``Twister2Job.serialize()``
does, ``config`` the ``common/`` and ``kubernetes/`` configuration, ``write``
the reproducible archive, ``read`` reads any package (t2gen's or ``twister2
submit``'s) within bounds, and ``agree`` checks one against a job. Importing this
package imports nothing; ``protobuf`` is loaded only by the modules that need it.
"""
