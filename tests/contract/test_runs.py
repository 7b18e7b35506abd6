"""The contract across runs: a job master to run with, restoring a failed run, and running again.

See :mod:`tests.contract` for what the contract is and where it comes from.
"""

from __future__ import annotations

import pytest

from tests.contract import runtime as t2
from tests.contract.cases import JOBS, all_cases, case
from tests.contract.helpers import (
    cases_for,
    env_value,
    mounts_of,
    twister2_containers,
    volumes_of,
)

# ------------------------------------------------------------ the job master


@pytest.mark.parametrize("name", cases_for("job-master-runs"))
def test_every_job_runs_its_job_master(name: str) -> None:
    """Every rendered job has its job master: the StatefulSet ``<job>-jm`` of one pod.

    No Kubernetes job of Twister2 0.8 runs without one. A worker registers
    with the job master (``JOB_MASTER_IP`` or the ``<job>-jm`` Service) unless
    ZooKeeper is configured, and also with ZooKeeper when the job has a driver
    or checkpoints (``K8S/worker/K8sWorkerStarter.java:105-113``,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/core/WorkerRuntime.java:113-162``);
    with ZooKeeper alone it waits for the job-submission-time znode that only
    the job master's pod creates
    (``twister2/common/src/java/edu/iu/dsc/tws/common/zk/ZKWorkerController.java:232-236``,
    ``K8S/master/JobMasterStarter.java:233-241``). Twister2 runs one in the
    client only inside ``twister2 submit`` (``K8S/KubernetesLauncher.java:147-156,194-232``),
    which t2gen's objects never go through. And only the job master deletes a
    job's objects when it ends (``K8S/master/JobTerminator.java:36-88``).
    """
    c = case(name)
    master = c.job_master_statefulset
    assert master is not None, f"no StatefulSet {c.job}-jm: nothing runs the job master"
    assert int(master["spec"].get("replicas", 1)) == 1
    assert c.job_master, "the job file says jobMaster.enabled: false"


IN_CLIENT = sorted(
    c.name
    for c in all_cases()
    if not c.name.startswith("golden/")
    and ((c.job_file.get("spec") or {}).get("jobMaster") or {}).get("enabled") is False
)


@pytest.mark.parametrize("name", IN_CLIENT)
def test_a_job_master_in_the_client_is_refused(name: str) -> None:
    """A job file that puts the job master in the client is refused, saying why the workers need it.

    The reasons of :func:`test_every_job_runs_its_job_master`; the message
    names the one that applies and what to change.
    """
    c = case(name)
    assert not c.objects
    assert "leaves the workers without a job master" in c.error, c.error
    assert "remove enabled: false" in c.error


def test_the_contract_jobs_include_a_job_master_in_the_client() -> None:
    assert "job/client-job-master" in IN_CLIENT
    assert (JOBS / "client-job-master.yaml").is_file()


# ---------------------------------------------------------------- restore


@pytest.mark.parametrize("name", cases_for("restore"))
def test_restore_is_rendered_as_the_launcher_renders_it(name: str) -> None:
    """``RESTORE_JOB`` is the job file's ``checkpointing.restore`` in every container; a restore keeps the old claim.

    Twister2's ``restart`` sets ``twister2.checkpointing.restore.job``
    (``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/job/Twister2Submitter.java:137-147``),
    the launcher writes it as ``RESTORE_JOB`` (``K8S/RequestObjectBuilder.java:499-501``)
    and the starters put it over the package's configuration
    (``K8S/worker/K8sWorkerStarter.java:78,101-103``, ``K8S/master/JobMasterStarter.java:67,86-88``).
    Restoring from the claim (the ``mounted`` store, Twister2's default), the
    launcher creates no claim: it mounts the one the failed run's job master
    kept, and refuses to start when it is gone
    (``K8S/KubernetesLauncher.java:124-138,301-317``, ``K8S/master/JobTerminator.java:49-65``).
    """
    c = case(name)
    settings = c.spec.get("checkpointing") or {}
    restore = bool(settings.get("restore", False))
    wrong = [
        f"{pod}/{container['name']}: {env_value(container, 'RESTORE_JOB')!r}"
        for _role, pod, container in twister2_containers(c)
        if env_value(container, "RESTORE_JOB") != ("true" if restore else "false")
    ]
    assert not wrong, f"RESTORE_JOB is not {str(restore).lower()}: {wrong}"
    claim = c.named("PersistentVolumeClaim", c.job)
    from_claim = restore and settings.get("storageType", "mounted") == "mounted"
    if from_claim:
        assert claim is None, "a restore from the claim renders a new claim"
        for statefulset in c.worker_statefulsets:
            spec = statefulset["spec"]["template"]["spec"]
            volume = volumes_of(spec).get(t2.PERSISTENT_VOLUME) or {}
            assert (volume.get("persistentVolumeClaim") or {}).get("claimName") == c.job
            for container in spec["containers"]:
                assert (
                    mounts_of(container).get(t2.PERSISTENT_VOLUME)
                    == t2.PERSISTENT_MOUNT
                )


def test_a_golden_restores() -> None:
    assert "golden/restore" in [c.name for c in all_cases() if c.of_kind("StatefulSet")]


# ---------------------------------------------------------------- re-runs


def _worker_ids(name: str) -> range:
    c = case(name)
    return range(sum(g.count for g in c.groups))


@pytest.mark.parametrize("name", cases_for("fresh-start"))
def test_a_first_run_starts_fresh(name: str) -> None:
    """Applied where no earlier run left anything, every worker and the job master start for the first time, not killed.

    The restart counts come from the ConfigMap's keys
    (:func:`tests.contract.runtime.restart_count_at_start`:
    ``K8S/KubernetesController.java:960-967``, ``K8S/worker/K8sWorkerUtils.java:356-383``)
    and any ``KILL_JOB`` key kills the job (``K8S/master/JobKillWatcher.java:61-100``),
    so the rendered ConfigMap must hold none of them.
    """
    c = case(name)
    (config_map,) = [
        m for m in c.of_kind("ConfigMap") if m["metadata"]["name"] == c.job
    ]
    data = t2.applied_data(None, None, dict(config_map.get("data") or {}))
    assert t2.restart_count_at_start(data, t2.job_master_key()) == 0
    restarted = [
        w
        for w in _worker_ids(name)
        if t2.restart_count_at_start(data, t2.worker_key(w))
    ]
    assert not restarted, f"workers that would start as restarted: {restarted[:10]}"
    assert not t2.killed_at_start(data)


@pytest.mark.parametrize("name", cases_for("rerun-over-leftovers"))
def test_a_rerun_over_a_leftover_config_map_starts_restarted(name: str) -> None:
    """Re-applied over an earlier run's ConfigMap, the run starts "restarted" or killed: the ConfigMap must go first.

    The earlier run's job master and workers added ``RESTART_COUNT_FOR_*``
    keys by JSON patch (``K8S/worker/K8sWorkerUtils.java:356-383``), and
    ``t2gen``'s ConfigMap never has them, so ``kubectl apply`` keeps them
    (:func:`tests.contract.runtime.applied_data`): the new job master starts
    as restarted and, without ZooKeeper, ends the job as FAILED at once
    (``K8S/master/JobMasterStarter.java:118-133``); a leftover ``KILL_JOB``
    kills it at once (``K8S/master/JobKillWatcher.java:88-99``). The
    launcher refuses such a re-run (``K8S/KubernetesLauncher.java:268-344``);
    docs/reference.md ("Re-running a job") says what to delete first, and
    after that the run starts fresh.
    """
    c = case(name)
    (config_map,) = [
        m for m in c.of_kind("ConfigMap") if m["metadata"]["name"] == c.job
    ]
    rendered = dict(config_map.get("data") or {})
    leftover = {
        **rendered,
        t2.job_master_key(): "0",
        **{t2.worker_key(w): "0" for w in _worker_ids(name)},
    }
    merged = t2.applied_data(leftover, rendered, rendered)
    assert t2.restart_count_at_start(merged, t2.job_master_key()) == 1
    assert all(
        t2.restart_count_at_start(merged, t2.worker_key(w)) == 1
        for w in _worker_ids(name)
    )
    assert t2.killed_at_start(
        t2.applied_data({**leftover, t2.KILL_JOB_KEY: "true"}, rendered, rendered)
    )
    # the documented re-run: delete the ConfigMap (with the rest), then apply
    fresh = t2.applied_data(None, None, rendered)
    assert t2.restart_count_at_start(fresh, t2.job_master_key()) == 0
    assert not t2.killed_at_start(fresh)
