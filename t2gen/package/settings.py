"""What the render takes from a ``--package`` package's configuration: its namespace and the destinations its pods connect to.

The pods read the package's configuration (``common/`` then ``kubernetes/``,
:func:`t2gen.inputs.twister2conf.package_settings`), with ``spec.jobConfig`` over
it. :func:`render_reads` keeps the few keys the manifests depend on
(:attr:`t2gen.model.Job.package_config`); :func:`destination_warnings` checks the
dashboard and HDFS they name against the job's NetworkPolicy
(:mod:`t2gen.model.destinations`).
"""

from __future__ import annotations

from t2gen.errors import Warning_, format_json_path
from t2gen.inputs.twister2conf import ConfSetting
from t2gen.inputs.yaml import SourceDoc
from t2gen.model import Job
from t2gen.model.destinations import Setting, job_config_settings, warnings_of
from t2gen.twister2 import confkeys as k

__all__ = ["RENDER_READS", "destination_warnings", "render_reads"]

RENDER_READS = (k.NAMESPACE, k.DASHBOARD_HOST, k.HDFS_NAMENODE, k.HDFS_NAMENODE_PORT)
"""The package's keys the render reads (:attr:`t2gen.model.Job.package_config`)."""


def render_reads(
    conf: dict[str, ConfSetting],
) -> tuple[tuple[str, str | int | float | bool], ...]:
    """The :data:`RENDER_READS` keys the package sets to a scalar, ``(key, value)`` sorted by key."""
    return tuple(
        sorted(
            (key, conf[key].value)
            for key in RENDER_READS
            if key in conf and isinstance(conf[key].value, (str, int, float, bool))
        )
    )


def destination_warnings(
    job: Job, doc: SourceDoc, conf: dict[str, ConfSetting]
) -> list[Warning_]:
    """The dashboard and HDFS the package's pods connect to, against the job's NetworkPolicy.

    The pods read the package's configuration with ``spec.jobConfig`` over it
    (``JobUtils.overrideConfigs``: ``K8S/master/JobMasterStarter.java:84``,
    ``K8S/worker/K8sWorkerStarter.java:99``); the job file's own rule
    (``network-policy-destinations``) leaves a run with ``--package`` to this.
    """
    settings = {
        key: Setting(setting.value, at=f"{setting.path}:{setting.line}")
        for key, setting in conf.items()
    }
    settings.update(job_config_settings(dict(job.spec.job_config)))
    found = warnings_of(
        job.spec.network.policy,
        settings,
        job.spec.checkpointing,
        package_known=True,
    )
    out = []
    for path, message in found:
        line, col = doc.position(path)
        out.append(Warning_(doc.path, line, col, message, format_json_path(path)))
    return out
