"""The contract on the ConfigMap, Services, StatefulSets and claim: what the runtime finds, patches and deletes.

See :mod:`tests.contract` for what the contract is and where it comes from.
"""

from __future__ import annotations

import pytest

from tests.contract import runtime as t2
from tests.contract.cases import all_cases, case
from tests.contract.helpers import cases_for, containers_of, selects

# ----------------------------------------------------------------- the ConfigMap


@pytest.mark.parametrize("name", cases_for("configmap"))
def test_config_map(name: str) -> None:
    """One ConfigMap ``<job>`` labelled ``t2-job=<job>``, with data, and no key the runtime would act on.

    The runtime finds it by label and fails on none or several
    (``K8S/KubernetesController.java:906-926``), fails when it has no ``data``
    (``:948-951``; a JSON patch ``add /data/<key>`` needs ``/data``, RFC 6902
    section 4.1), and patches it by the name ``<job>`` (``:972-981``). A
    ``KILL_JOB`` key kills the job at once (``K8S/master/JobKillWatcher.java:88-99``);
    a ``RESTART_COUNT_FOR_*`` key makes a first start count as a restart
    (``K8S/worker/K8sWorkerUtils.java:356-383``). ``app=twister2`` lists the job
    as running (``K8S/KubernetesController.java:885-900``).
    """
    c = case(name)
    labelled = [
        cm
        for cm in c.of_kind("ConfigMap")
        if selects(t2.job_label_selector(c.job), cm["metadata"].get("labels") or {})
    ]
    assert [cm["metadata"]["name"] for cm in labelled] == [c.job]
    (config_map,) = labelled
    assert selects(t2.twister2_label_selector(), config_map["metadata"]["labels"])
    data = config_map.get("data") or {}
    assert data, "the ConfigMap has no data"
    bad = [
        key for key in data if key == t2.KILL_JOB_KEY or t2.RESTART_KEY.fullmatch(key)
    ]
    assert not bad, f"keys the runtime acts on at start: {bad}"


def _scalable_cases(*, last_only: bool = False) -> list[str]:
    """Cases with a scalable group (``last_only``: only where the job file lists it last)."""
    return [
        c.name
        for c in all_cases()
        if any(g.scalable for g in c.groups)
        and (not last_only or c.groups[-1].scalable)
    ]


@pytest.mark.parametrize(
    "name", cases_for("scalable-job-object", _scalable_cases(last_only=True))
)
def test_scalable_job_has_job_object(name: str) -> None:
    """A job with a scalable group renders a ConfigMap key ``TWISTER2_JOB_OBJECT`` (or is refused, naming ``--job-object``).

    The job master's scaler replaces that key after every scaling
    (``K8S/driver/K8sScaler.java:141-148``, ``K8S/KubernetesController.java:1004-1010,1033-1037``);
    a JSON patch ``replace`` of a missing key fails (RFC 6902 section 4.3),
    and the scaler then throws.
    """
    c = case(name)
    if c.error:
        assert "--job-object" in c.error, c.error
        return
    (config_map,) = [
        cm for cm in c.of_kind("ConfigMap") if cm["metadata"]["name"] == c.job
    ]
    assert t2.JOB_OBJECT_KEY in (config_map.get("data") or {})


@pytest.mark.parametrize("name", cases_for("scalable-group-last", _scalable_cases()))
def test_scalable_group_is_last(name: str) -> None:
    """The scalable group's StatefulSet has the highest index (or the job is refused).

    Twister2 moves the scalable compute resource to the last index
    (``twister2/api/src/java/edu/iu/dsc/tws/api/Twister2Job.java:137-168``); the
    scaler patches ``<job>-<last index>`` (``K8S/driver/K8sScaler.java:47-54``) and
    the workers find their group by that index (``K8S/worker/K8sWorkerUtils.java:124-148``).
    """
    c = case(name)
    if c.error:  # refused for the group order, not for an unknown key
        assert "scalable" in c.error and "unknown key" not in c.error, c.error
        return
    (scalable,) = [g for g in c.groups if g.scalable]
    last = c.worker_statefulsets[-1]
    containers = len(containers_of(last["spec"]["template"]["spec"]))
    assert (last["spec"]["replicas"], containers) == (
        scalable.count // scalable.per_pod,
        1 if c.mpi else scalable.per_pod,
    )


# ------------------------------------------------- what the job master deletes


@pytest.mark.parametrize("name", cases_for("services-deleted-by-job-master"))
def test_services_deleted_by_job_master(name: str) -> None:
    """Every Service is one the job master deletes at job end: ``<job>`` and ``<job>-jm``.

    ``K8S/master/JobTerminator.java:45-47,70-72``; any other Service (and a
    NodePort's allocated port) outlives the job.
    """
    c = case(name)
    extra = sorted(
        s["metadata"]["name"]
        for s in c.of_kind("Service")
        if s["metadata"]["name"] not in (c.job, f"{c.job}-jm")
    )
    assert not extra, f"Services the job master never deletes: {extra}"


@pytest.mark.parametrize("name", cases_for("statefulsets"))
def test_statefulsets_found_and_deleted(name: str) -> None:
    """Worker StatefulSets are ``<job>-<i>``, i = 0..groups-1, labelled ``t2-job=<job>``; the job master's is ``<job>-jm``.

    The job master finds the worker StatefulSets by label and keeps the names
    ``<job>-[0-9]+`` (``K8S/KubernetesController.java:154-164,195-207``,
    ``K8S/master/JobTerminator.java:39-43``), deletes ``<job>-jm`` by name
    (``:74-77``); the workers look their group up by the index in the pod
    name (``K8S/worker/K8sWorkerUtils.java:135-148``, ``JobUtils.java:169-177``).
    The job master's pod is ``<job>-jm-0``, one replica
    (``K8S/master/JobMasterRequestObject.java:86-88``).
    """
    c = case(name)
    names = [s["metadata"]["name"] for s in c.worker_statefulsets]
    assert names == [f"{c.job}-{i}" for i in range(len(c.groups))]
    for statefulset in c.of_kind("StatefulSet"):
        labels = statefulset["metadata"].get("labels") or {}
        assert selects(t2.job_label_selector(c.job), labels), statefulset["metadata"][
            "name"
        ]
    job_master = c.job_master_statefulset
    if c.job_master:
        assert job_master is not None and job_master["spec"].get("replicas", 1) == 1
    else:
        assert job_master is None


@pytest.mark.parametrize("name", cases_for("claims"))
def test_claim(name: str) -> None:
    """The claim, if any, is the one ``<job>``, labelled ``t2-job=<job>`` and ``app=twister2``.

    The job master deletes the claim ``<job>`` (``K8S/master/JobTerminator.java:54-65``);
    the client finds it by label and fails on several
    (``K8S/KubernetesController.java:469-491``, ``:497-502``).
    The claim of ``spec.logs`` (``<job>-logs``) carries neither label, so that
    neither lookup sees it (``tests/contract/test_kept_logs.py``).
    """
    c = case(name)
    kept = f"{c.job}-logs"
    claims = [
        pvc
        for pvc in c.of_kind("PersistentVolumeClaim")
        if pvc["metadata"]["name"] != kept
    ]
    assert [pvc["metadata"]["name"] for pvc in claims] in ([], [c.job])
    for pvc in c.of_kind("PersistentVolumeClaim"):
        if pvc["metadata"]["name"] == kept:
            labels = pvc["metadata"].get("labels") or {}
            assert not {"app", "t2-job"} & set(labels)
    for pvc in claims:
        labels = pvc["metadata"].get("labels") or {}
        assert selects(
            {**t2.job_label_selector(c.job), **t2.twister2_label_selector()}, labels
        )
