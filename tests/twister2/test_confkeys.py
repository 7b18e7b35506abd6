"""The runtime keys a JobConfig may not set (``POD_KEYS``) agree with t2gen's key table."""

from __future__ import annotations

from t2gen.importer.keys import KEYS, Use
from t2gen.twister2 import confkeys as k

WRITTEN_BACK = {
    # JobUtils.updateConfigs, after overrideConfigs (RS/utils/JobUtils.java:153-163)
    k.JOB_NAME,
    k.JOB_ID,
    "twister2.resource.job.worker.class",
    # put from RESTORE_JOB after overrideConfigs (K8S/worker/K8sWorkerStarter.java:101-103,
    # K8S/master/JobMasterStarter.java:86-88)
    "twister2.checkpointing.restore.job",
}
"""Keys a pod sets again after the JobConfig: an entry for them is harmless."""

CLIENT_ONLY = {
    k.DOCKER_IMAGE,
    "kubernetes.image.pull.policy",
    k.COMPUTE_RESOURCES,  # the pods read the .job's compute resources
    "twister2.resource.job.driver.class",  # the job master reads the .job's
    "kubernetes.bind.worker.to.cpu",
    "kubernetes.worker.to.node.mapping",
    "twister2.resource.kubernetes.worker.mapping.key",
    "twister2.resource.kubernetes.worker.mapping.operator",
    "twister2.resource.kubernetes.worker.mapping.values",
    "kubernetes.worker.mapping.uniform",
    "twister2.resource.kubernetes.persistent.storage.class",
    "twister2.resource.kubernetes.storage.access.mode",
    k.UPLOADER_WEB_SERVER,
    k.UPLOADING_METHOD,
    "twister2.job.master.provided.ip",
    "twister2.kubernetes.jvm.memory.fraction",
    k.JOB_MASTER_CPU,
    k.JOB_MASTER_RAM,
    "twister2.job.master.volatile.volume.size",
}
"""Keys read only by the client building the objects (``RequestObjectBuilder``,
``KubernetesLauncher``, ``JobMasterRequestObject``, ``UploaderToWebServers``; DSC-SPIDAL/twister2
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/``), never in a pod."""


def test_every_key_with_a_job_file_field_is_decided() -> None:
    """Each key t2gen's table turns into a field is a runtime key, written back or the client's."""
    fields = {key.name for key in KEYS if key.use is Use.FIELD}
    undecided = fields - k.POD_KEYS.keys() - WRITTEN_BACK - CLIENT_ONLY
    assert not undecided
    assert not (k.POD_KEYS.keys() & (WRITTEN_BACK | CLIENT_ONLY))


def test_every_runtime_key_is_a_known_key_with_its_field() -> None:
    table = {key.name: key for key in KEYS}
    for name, field in k.POD_KEYS.items():
        if name == k.JOB_MASTER_IP:  # set by the pods themselves, no key of the table
            continue
        if name in (k.MAX_WORKER_RESTARTS, k.MAX_MPIJOB_RESTARTS):
            # import keeps them in the package (Use.PACKAGE); t2gen package writes the first
            # from spec.lifecycle.maxWorkerRestarts and the second back to Twister2's default
            # for an OpenMPI job, so a JobConfig entry may not override either
            assert table[name].use is Use.PACKAGE, name
            continue
        assert table[name].use is Use.FIELD, name
        assert field.startswith(("metadata.", "spec.")), name
