"""The contract ``spec.logs`` rests on: Twister2 writes each log file where the kept claim is mounted, and nothing deletes it.

Sources: DSC-SPIDAL/twister2 at c6844d2; ``K8S/`` =
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``,
``LOG/`` = ``twister2/common/src/java/edu/iu/dsc/tws/common/logging/``.

- A worker logs to a file only when ``common/logger.properties`` (passed by
  ``docker/kubernetes/image/rootfs/twister2/init.sh:23,28`` as
  ``-Djava.util.logging.config.file``) lists ``Twister2FileLogHandler`` in
  ``handlers`` (``LOG/LoggingContext.java:71-80``, ``K8S/worker/K8sWorkerUtils.java:88-92``).
- The directory is ``<root>/logs`` (``LOG/LoggingContext.java:160-181``), the root
  ``/twister2-volatile`` on Kubernetes for the default storage type ``volatile``
  (``twister2/api/src/java/edu/iu/dsc/tws/api/config/FileSystemContext.java:56-61``,
  ``LOG/LoggingContext.java:156-158``).
- The file is ``worker-<ID>.log.%g`` (``K8S/worker/K8sWorkerUtils.java:80-82,117-120``,
  ``LOG/Twister2FileLogHandler.java:42-56``), the job master's ``jobMaster.log.%g``
  (``K8S/master/JobMasterStarter.java:91-92``), with the handler's ``limit``
  (bytes, 0: none), ``count`` and ``append`` (``LOG/LoggingContext.java:82-110``).
- When the job ends the job master deletes the claim named after the job and no other
  (``K8S/master/JobTerminator.java:54-65``: ``deletePersistentVolumeClaim(jobID)``).
- Kubernetes deletes a claim only when asked, or by the garbage collector when an
  owner it names is gone (https://kubernetes.io/docs/concepts/architecture/garbage-collection/#owners-dependents):
  the kept claim names no owner.

The same against a real API server (the job master's deletes played, its Role
asked) is ``tests/kubeapi/test_kept_logs.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from t2gen.inputs.jobfile import read_job
from t2gen.model import Job
from t2gen.package.confagree import conf_with_job, minimal_config
from t2gen.pipeline.job import generate_loaded
from t2gen.pipeline.load import validate
from t2gen.status.phase import job_status
from t2gen.status.text import status_text
from t2gen.twister2.logfiles import KEPT_LOGGER_PROPERTIES, LOGS_MOUNT_PATH
from t2gen.twister2.terminator import claim, job_master_deletes, job_master_leaves
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples/kept-logs.yaml"
TWISTER2_VOLATILE_ROOT = "/twister2-volatile"  # FileSystemContext.java:57-61
LOG_DIRECTORY = "logs"  # LoggingContext.java:180


def _load(path: Path = EXAMPLE) -> tuple[Job, list[dict[str, Any]]]:
    doc = read_job(str(path))
    job = validate(doc)
    return job, [d.obj for d in generate_loaded([(job, doc)])]


def _pods(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        o["metadata"]["name"]: o["spec"]["template"]["spec"]
        for o in objects
        if o["kind"] == "StatefulSet"
    }


def test_every_twister2_container_writes_its_log_file_to_the_kept_claim() -> None:
    job, objects = _load()
    assert f"{TWISTER2_VOLATILE_ROOT}/{LOG_DIRECTORY}" == LOGS_MOUNT_PATH
    pods = _pods(objects)
    assert set(pods) == {"wordcount-logs-0", "wordcount-logs-jm"}
    for name, spec in pods.items():
        volumes = {v["name"]: v for v in spec["volumes"]}
        for container in spec["containers"]:
            (mount,) = [
                m
                for m in container["volumeMounts"]
                if m["mountPath"] == LOGS_MOUNT_PATH
            ]
            assert "readOnly" not in mount and "subPath" not in mount, name
            assert volumes[mount["name"]] == {
                "name": "twister2-kept-logs",
                "persistentVolumeClaim": {"claimName": "wordcount-logs-logs"},
            }, name
    (kept,) = [
        o
        for o in objects
        if o["kind"] == "PersistentVolumeClaim"
        and o["metadata"]["name"] == "wordcount-logs-logs"
    ]
    assert kept["spec"] == {
        "accessModes": ["ReadWriteMany"],
        "storageClassName": "twister2-nfs-storage",
        "resources": {"requests": {"storage": "1Gi"}},
    }
    assert "ownerReferences" not in kept["metadata"]
    assert job.spec.logs is not None


def test_nothing_the_job_master_or_supervisor_deletes_is_the_kept_claim() -> None:
    job, objects = _load()
    deleted = [
        *job_master_deletes(job.name, [0]),
        claim(job.name),
        *job_master_leaves(job.name, network_policy=True, ssh_secret=f"{job.name}-ssh"),
    ]
    assert ("PersistentVolumeClaim", "wordcount-logs-logs") not in {
        (kind.kind, name) for kind, name in deleted
    }
    roles = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Role"}
    claims = [
        rule
        for rule in roles["wordcount-logs-jm"]["rules"]
        if "persistentvolumeclaims" in rule["resources"]
    ]
    assert all(
        rule["resourceNames"] == [job.name] for rule in claims
    )  # JobTerminator's one


def test_the_job_package_logs_every_record_to_the_file_unbounded() -> None:
    job, _ = _load()
    files = {f"{f.directory}/{f.name}": f.data.decode() for f in minimal_config(job)}
    assert 'twister2.logging.storage.type: "volatile"' in files["kubernetes/core.yaml"]
    text = files["common/logger.properties"]
    shipped, changes = conf_with_job(
        str(ROOT / "tests/fixtures/twister2-0.8-shipped"), job
    )
    assert [f.data.decode() for f in shipped if f.name == "logger.properties"] == [text]
    assert any(c.key == "handlers" and "spec.logs" in c.new for c in changes)
    assert text == KEPT_LOGGER_PROPERTIES
    settings = dict(
        (key.strip(), value.strip())
        for key, _, value in (line.partition("=") for line in text.splitlines())
        if not key.startswith("#") and value
    )
    handler = "edu.iu.dsc.tws.common.logging.Twister2FileLogHandler"
    assert handler in settings["handlers"].replace(" ", "").split(
        ","
    )  # LoggingContext.java:71-80
    assert settings[f"{handler}.limit"] == "0"  # FileHandler: 0 is no limit
    assert settings[f"{handler}.append"] == "true"  # a restart adds, never truncates
    assert settings[f"{handler}.sysouterr"] == "false"  # kubectl logs keeps the console


def test_status_keeps_the_claim_out_of_the_leftovers_it_clears() -> None:
    job, objects = _load()
    after_clean_up = [
        o
        for o in objects
        if (o["kind"], o["metadata"]["name"])
        not in {
            (k.kind, n)
            for k, n in [*job_master_deletes(job.name, [0]), claim(job.name)]
        }
    ]
    found = job_status(job, after_clean_up)
    assert found["phase"] == "Ended"
    assert found["keptLogs"] == "persistentvolumeclaims/wordcount-logs-logs"
    assert "persistentvolumeclaims/wordcount-logs-logs" not in found["leftovers"]
    assert "wordcount-logs-logs" not in str(found["clear"])
    assert "t2gen logs" in status_text(found)
