"""Rules of a valid job that the JSON Schema cannot express (design §1).

Each rule reads the job document (schema defaults applied) and yields located
problems. Rules skip values of the wrong type: the schema check reports those,
so one run lists every problem, schema and semantic alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import ROUND_CEILING, Decimal
from typing import Any

from t2gen.jobfile.loader import JsonPath, SourceDoc
from t2gen.kube.quantity import Quantity, QuantityRangeError, parse_quantity
from t2gen.problems import Problem, format_json_path
from t2gen.twister2.names import ENV_SET_BY_T2GEN, RESERVED_LABEL_KEYS

__all__ = ["MAX_ENV_ENTRIES", "MAX_TOTAL_WORKERS", "RULES", "rule_problems"]

MAX_TOTAL_WORKERS = 100_000
"""Most workers in one job; the manifests do not grow with it, the cluster does."""

MAX_ENV_ENTRIES = 100_000
"""Most environment variables over all container templates of a job (about 6 MB of YAML).

Containers x (runtime variables + ``spec.env``): 50 groups of 1 worker per pod
with 1,000 extra variables is 51,000; 4 workers per pod would be 204,000.
"""

_RUNTIME_ENV = 20  # variables t2gen sets in each container (K8sEnvVariables), at most

_HOSTNAME_KEY = "kubernetes.io/hostname"
_LABEL_VALUE_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."
)
_INT64 = (-(2**63), 2**63 - 1)
_MAX_QUANTITY = Decimal(2**63 - 1)

# Where t2gen takes each runtime variable from, for messages about a clash.
_ENV_SOURCES = {
    "JOB_ID": "metadata.name",
    "USER_JOB_JAR_FILE": "spec.jobPackage.jarFile",
    "JOB_PACKAGE_URI": "spec.jobPackage.uri",
    "JOB_PACKAGE_FILE_SIZE": "spec.jobPackage.fileSize",
    "UPLOAD_METHOD": "spec.jobPackage.uploadMethod",
    "JOB_MASTER_IP": "spec.jobMaster.address",
    "WORKER_PORT": "spec.network.basePort",
    "JVM_MEMORY_MB": "the worker group's memory",
}

Rule = Callable[[dict[str, Any], SourceDoc], Iterator[Problem]]


def _problem(
    doc: SourceDoc, path: JsonPath, message: str, *, key: bool = False
) -> Problem:
    """Locate a problem at ``path`` in ``doc``."""
    line, col = doc.position(path, key=key)
    return Problem(doc.path, line, col, message, format_json_path(path))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _quantity(value: Any) -> Quantity | None:
    """Parse a quantity the schema accepted; None for anything it rejects."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    try:
        return parse_quantity(value)
    except ValueError:
        return None


def _groups(data: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    for index, group in enumerate(_list(_dict(data.get("spec")).get("workers"))):
        if isinstance(group, dict):
            yield index, group


def _fmt(value: Decimal) -> str:
    """Print a decimal without exponent noise (``0.5``, ``2``)."""
    text = format(value.normalize(), "f")
    return text


def _check_divisible(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``count`` is a multiple of ``perPod``: every pod of a StatefulSet is identical."""
    for index, group in _groups(data):
        count, per_pod = _int(group.get("count")), _int(group.get("perPod"))
        if count is None or not per_pod or per_pod < 1 or count % per_pod == 0:
            continue
        lower, upper = count - count % per_pod, count - count % per_pod + per_pod
        options = f"{lower} or {upper}" if lower else f"{upper}"
        yield _problem(
            doc,
            ("spec", "workers", index, "count"),
            f"{count} is not divisible by perPod {per_pod}: every pod runs {per_pod} workers, "
            f"so use a multiple of {per_pod} such as {options}",
        )


_QUANTITY_FIELDS: tuple[tuple[str, ...], ...] = (
    ("jobMaster", "cpu"),
    ("jobMaster", "memory"),
    ("jobMaster", "volatileDisk"),
    ("jobMaster", "persistentDisk"),
    ("storage", "persistent", "perWorker"),
)


def _quantity_fields(data: dict[str, Any]) -> Iterator[tuple[JsonPath, str, Any]]:
    """Yield (path, field name, raw value) of every quantity in the job."""
    spec = _dict(data.get("spec"))
    for index, group in _groups(data):
        for name in ("cpu", "memory", "volatileDisk"):
            if name in group:
                yield ("spec", "workers", index, name), name, group[name]
    for parts in _QUANTITY_FIELDS:
        node: Any = spec
        for part in parts:
            node = _dict(node).get(part)
        if node is not None:
            yield ("spec", *parts), parts[-1], node


def _check_quantities(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Quantities are positive where needed, no finer than 1m, and not absurdly large."""
    for path, name, raw in _quantity_fields(data):
        if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
            continue
        try:
            quantity = parse_quantity(raw)
        except QuantityRangeError as err:
            yield _problem(
                doc,
                path,
                f"{raw} is out of range ({err}); use a quantity below 8Ei (2^63)",
            )
            continue
        except ValueError:
            continue  # malformed: the schema check reports it
        if quantity.value < 0:
            continue  # negative: the schema check reports it
        if not quantity.is_milli_precise():
            unit = "1m (0.001 core)" if name == "cpu" else "1m"
            rounded = (quantity.value * 1000).to_integral_value(rounding=ROUND_CEILING)
            yield _problem(
                doc,
                path,
                f"{raw} is finer than {unit}; Kubernetes keeps quantities to 1m precision, "
                f"so round it (e.g. {parse_quantity(f'{rounded}m')})",
            )
        elif quantity.value >= _MAX_QUANTITY:
            yield _problem(
                doc, path, f"{raw} is too large; quantities must stay below 8Ei (2^63)"
            )
        elif (
            # a cpu of 0 as a number is the schema's (exclusiveMinimum)
            quantity.is_zero()
            and (name == "memory" or (name == "cpu" and isinstance(raw, str)))
        ):
            yield _problem(doc, path, f"{name} must be greater than 0")
        elif name == "memory" and int(quantity.mebibytes() * Decimal("0.8")) < 1:
            yield _problem(
                doc,
                path,
                f"{raw} leaves a JVM heap of 0 MiB (the heap is 80% of the memory); use at least 2Mi",
            )


def _check_total_workers(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The whole job has at most :data:`MAX_TOTAL_WORKERS` workers."""
    counts = [_int(group.get("count")) or 0 for _, group in _groups(data)]
    total = sum(
        count for count in counts if count <= MAX_TOTAL_WORKERS
    )  # larger: a schema error
    if total > MAX_TOTAL_WORKERS:
        yield _problem(
            doc,
            ("spec", "workers"),
            f"the job has {total} workers; t2gen supports at most {MAX_TOTAL_WORKERS} in one job",
        )


def _check_size(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The manifests stay a size t2gen renders in seconds: see :data:`MAX_ENV_ENTRIES`."""
    spec = _dict(data.get("spec"))
    mpi = _dict(spec.get("mpi")).get("enabled") is True
    containers = sum(
        1 if mpi else (_int(group.get("perPod")) or 1) for _, group in _groups(data)
    )
    variables = len(_list(spec.get("env"))) + _RUNTIME_ENV
    entries = containers * variables
    if entries > MAX_ENV_ENTRIES:
        yield _problem(
            doc,
            ("spec", "env"),
            f"the job's pod templates would hold {entries:,} environment variables ({containers} containers x "
            f"{variables}); t2gen renders at most {MAX_ENV_ENTRIES:,}: use fewer extra variables, fewer workers "
            "per pod or fewer worker groups",
        )


def _check_ports(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Every worker port (``basePort + c * (A + 1) + a``) stays at or below 65535."""
    spec = _dict(data.get("spec"))
    network = _dict(spec.get("network"))
    base = _int(network.get("basePort"))
    stride = len(_list(network.get("additionalPorts"))) + 1
    if base is None or not 1 <= base <= 65535:
        return  # out of range: the schema check reports it
    if _dict(spec.get("mpi")).get("enabled") is True:
        # OpenMPI workers use basePort + rank * stride, ranks over the whole job.
        slots = sum(_int(group.get("count")) or 0 for _, group in _groups(data))
        what = f"OpenMPI ranks 0-{slots - 1}" if slots > 1 else "the OpenMPI rank"
    else:
        slots = max(
            (_int(group.get("perPod")) or 1 for _, group in _groups(data)), default=1
        )
        what = f"containers 0-{slots - 1} of a pod" if slots > 1 else "the worker"
    highest = base + (slots - 1) * stride + (stride - 1)
    if highest > 65535:
        yield _problem(
            doc,
            ("spec", "network", "basePort"),
            f"worker ports for {what} run from {base} to {highest}, past 65535; "
            f"use a basePort of at most {max(1, base - (highest - 65535))}",
        )


def _check_binding(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """With ``bindWorkersToCpu`` every worker (every OpenMPI pod) owns whole cores."""
    spec = _dict(data.get("spec"))
    if spec.get("bindWorkersToCpu") is not True:
        return
    mpi = _dict(spec.get("mpi")).get("enabled") is True
    for index, group in _groups(data):
        cpu = _quantity(group.get("cpu"))
        per_pod = _int(group.get("perPod")) or 1
        if cpu is None or cpu.is_zero():
            continue
        path = ("spec", "workers", index, "cpu")
        if mpi:
            pod_cpu = cpu * per_pod
            if not pod_cpu.is_whole():
                yield _problem(
                    doc,
                    path,
                    f"{group['cpu']} cores x perPod {per_pod} = {_fmt(pod_cpu.value)} cores per OpenMPI pod is not "
                    "a whole number; with bindWorkersToCpu the pod's one container must own whole cores "
                    "(a core cannot be shared)",
                )
        elif not cpu.is_whole():
            whole = max(1, int(cpu.value))
            options = f"{whole} or {whole + 1}" if whole < cpu.value else f"{whole}"
            yield _problem(
                doc,
                path,
                f"{group['cpu']} is not a whole number of cores; with bindWorkersToCpu each worker owns "
                f"whole cores (a core cannot be shared), so use {options}",
            )


def _requirements(data: dict[str, Any]) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Yield (path, expression) for every required and preferred node expression."""
    affinity = _dict(
        _dict(_dict(data.get("spec")).get("placement")).get("nodeAffinity")
    )
    for kind in ("required", "preferred"):
        for index, expression in enumerate(_list(affinity.get(kind))):
            if isinstance(expression, dict):
                yield ("spec", "placement", "nodeAffinity", kind, index), expression


def _is_int64(value: Any) -> bool:
    """True for an integer or a string Kubernetes parses as int64 (``strconv.ParseInt``)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        number = value
    elif (
        isinstance(value, str)
        and value.strip() == value
        and value.lstrip("+-").isdigit()
        and value.isascii()
    ):
        number = int(value)
    else:
        return False
    return _INT64[0] <= number <= _INT64[1]


def _is_label_value(value: str) -> bool:
    """True for a valid Kubernetes label value (what a node label can hold)."""
    return len(value) <= 63 and (
        value == ""
        or (
            set(value) <= _LABEL_VALUE_CHARS
            and value[0].isalnum()
            and value[-1].isalnum()
        )
    )


def _check_operators(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Operator arity and values: In/NotIn >= 1, Exists/DoesNotExist none, Gt/Lt one integer."""
    for path, expression in _requirements(data):
        operator = expression.get("operator")
        values = _list(expression.get("values"))
        has_values = "values" in expression
        count = len(values)
        where = (*path, "values") if has_values else (*path, "operator")
        if operator in ("In", "NotIn"):
            if count == 0:
                yield _problem(
                    doc,
                    where,
                    f"operator {operator} needs at least one value, e.g. values: [gpu]",
                )
            for index, value in enumerate(_list(values)):
                text = str(value) if not isinstance(value, bool) else value
                if isinstance(text, str) and not _is_label_value(text):
                    yield _problem(
                        doc,
                        (*path, "values", index),
                        f"{text!r} is not a valid label value, so no node label can equal it: use at most "
                        "63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
                    )
        elif operator in ("Exists", "DoesNotExist"):
            if count:
                yield _problem(
                    doc,
                    where,
                    f"operator {operator} tests only whether the label {expression.get('key')!r} is set and takes "
                    f"no values; remove values ({count} given)",
                )
        elif operator in ("Gt", "Lt"):
            if count != 1:
                got = f"{count} values" if count != 1 else "1 value"
                yield _problem(
                    doc,
                    where,
                    f"operator {operator} compares the label with exactly one integer; got {got}"
                    + (f" ({', '.join(repr(v) for v in values)})" if count else "")
                    + ', e.g. values: ["4"]',
                )
            elif not _is_int64(values[0]):
                yield _problem(
                    doc,
                    (*path, "values", 0),
                    f'operator {operator} needs an integer value; {values[0]!r} is not one (e.g. "4")',
                )


def _check_contradictions(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Required expressions that no node can satisfy together (same key, opposite tests)."""
    affinity = _dict(
        _dict(_dict(data.get("spec")).get("placement")).get("nodeAffinity")
    )
    by_key: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for index, expression in enumerate(_list(affinity.get("required"))):
        if isinstance(expression, dict) and isinstance(expression.get("key"), str):
            by_key.setdefault(expression["key"], []).append((index, expression))
    for key, expressions in by_key.items():
        operators = {str(e.get("operator")) for _, e in expressions}
        last = expressions[-1][0]
        path = ("spec", "placement", "nodeAffinity", "required", last)
        if "DoesNotExist" in operators and operators & {"Exists", "In", "Gt", "Lt"}:
            yield _problem(
                doc,
                path,
                f"required expressions on {key!r} contradict each other: DoesNotExist with "
                f"{sorted(operators & {'Exists', 'In', 'Gt', 'Lt'})[0]}; no node can run the workers",
            )
            continue
        allowed: set[str] | None = None
        for _, expression in expressions:
            values = {str(v) for v in _list(expression.get("values"))}
            if (
                expression.get("operator") == "In" and values
            ):  # an empty list is an arity error
                allowed = values if allowed is None else allowed & values
        if allowed is None:
            continue
        for _, expression in expressions:
            if expression.get("operator") == "NotIn":
                allowed -= {str(v) for v in _list(expression.get("values"))}
        if not allowed:
            yield _problem(
                doc,
                path,
                f"required expressions on {key!r} leave no value a node could have (In and NotIn exclude "
                "every value); no node can run the workers",
            )


def _allowed_hostnames(data: dict[str, Any]) -> tuple[set[str], JsonPath] | None:
    """The hostnames required ``kubernetes.io/hostname In`` expressions allow, if any."""
    affinity = _dict(
        _dict(_dict(data.get("spec")).get("placement")).get("nodeAffinity")
    )
    allowed: set[str] | None = None
    where: JsonPath = ()
    for index, expression in enumerate(_list(affinity.get("required"))):
        if not isinstance(expression, dict) or expression.get("key") != _HOSTNAME_KEY:
            continue
        values = {str(v) for v in _list(expression.get("values"))}
        if expression.get("operator") == "In":
            allowed = values if allowed is None else allowed & values
            where = ("spec", "placement", "nodeAffinity", "required", index, "values")
    if allowed is None:
        return None
    for expression in _list(affinity.get("required")):
        if (
            isinstance(expression, dict)
            and expression.get("key") == _HOSTNAME_KEY
            and expression.get("operator") == "NotIn"
        ):
            allowed -= {str(v) for v in _list(expression.get("values"))}
    return allowed, where


def _check_feasibility(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``all-separate-nodes`` needs at least as many allowed hostnames as worker pods."""
    placement = _dict(_dict(data.get("spec")).get("placement"))
    if placement.get("uniform") != "all-separate-nodes":
        return
    hosts = _allowed_hostnames(data)
    if hosts is None:
        return  # which nodes qualify is only known in the cluster
    allowed, where = hosts
    pods = 0
    for _, group in _groups(data):
        count, per_pod = _int(group.get("count")), _int(group.get("perPod")) or 1
        if count is None or count % per_pod:
            return  # reported by another rule
        pods += count // per_pod
    if pods > len(allowed):
        listed = ", ".join(sorted(allowed)) or "none"
        yield _problem(
            doc,
            ("spec", "placement", "uniform"),
            f"all-separate-nodes puts each of the job's {pods} worker pods on its own node, but the required "
            f"{_HOSTNAME_KEY} In list at line {doc.position(where)[0]} allows only {len(allowed)} node"
            f"{'s' if len(allowed) != 1 else ''} ({listed}); the pods would stay Pending: list at least {pods} "
            f"nodes or use at most {len(allowed)} pod{'s' if len(allowed) != 1 else ''}",
        )


def _check_node_port(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """A NodePort Service exposes one port per pod, so every group has ``perPod: 1``."""
    service = _dict(_dict(_dict(data.get("spec")).get("network")).get("service"))
    if service.get("type") != "NodePort":
        if "nodePort" in service and service.get("type") == "Headless":
            yield _problem(
                doc,
                ("spec", "network", "service", "nodePort"),
                "nodePort is only used with type: NodePort; remove it or set type: NodePort",
                key=True,
            )
        return
    for index, group in _groups(data):
        per_pod = _int(group.get("perPod"))
        if per_pod is not None and per_pod != 1:
            yield _problem(
                doc,
                ("spec", "workers", index, "perPod"),
                f"perPod {per_pod} with a NodePort Service: a NodePort exposes one port per pod, so only one "
                "worker per pod is reachable (Twister2's one-port-per-pod limitation); use perPod: 1",
            )


def _check_port_names(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``worker`` names every container's own port; an additional port may not take it."""
    ports = _list(_dict(_dict(data.get("spec")).get("network")).get("additionalPorts"))
    for index, name in enumerate(ports):
        if name == "worker":
            yield _problem(
                doc,
                ("spec", "network", "additionalPorts", index),
                "'worker' is the name of each worker's own port; give the additional port another name",
            )


def _check_mpi(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """OpenMPI starts the same number of workers in every pod: one ``perPod`` for all groups."""
    mpi = _dict(_dict(data.get("spec")).get("mpi"))
    if mpi.get("enabled") is not True:
        if mpi.get("enabled") is False and "sshSecretName" in _dict(_raw_mpi(doc)):
            yield _problem(
                doc,
                ("spec", "mpi", "sshSecretName"),
                "sshSecretName is only used by OpenMPI jobs (enabled: true); remove it or enable OpenMPI",
                key=True,
            )
        return
    groups = list(_groups(data))
    if not groups:
        return
    first = _int(groups[0][1].get("perPod"))
    for index, group in groups[1:]:
        per_pod = _int(group.get("perPod"))
        if per_pod is not None and first is not None and per_pod != first:
            yield _problem(
                doc,
                ("spec", "workers", index, "perPod"),
                f"perPod {per_pod} differs from worker group 0's {first}: an OpenMPI job runs mpirun with one "
                f"-npernode for every pod, so all groups must use perPod: {first}",
            )


def _check_env(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Extra env vars neither repeat nor override a variable the Twister2 runtime reads."""
    seen: dict[str, int] = {}
    for index, variable in enumerate(_list(_dict(data.get("spec")).get("env"))):
        name = _dict(variable).get("name")
        if not isinstance(name, str):
            continue
        path = ("spec", "env", index, "name")
        if name in ENV_SET_BY_T2GEN:
            source = _ENV_SOURCES.get(name)
            hint = f"set {source} instead" if source else "choose another name"
            yield _problem(
                doc,
                path,
                f"{name} is set by t2gen for the Twister2 runtime and cannot be overridden; {hint}",
            )
        elif name in seen:
            yield _problem(
                doc,
                path,
                f"{name} is already set at spec.env[{seen[name]}]; list each variable once",
            )
        else:
            seen[name] = index


def _check_labels(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """User labels do not override the labels the runtime and the selectors rely on."""
    labels = _dict(_dict(data.get("metadata")).get("labels"))
    for key in labels:
        if key in RESERVED_LABEL_KEYS:
            yield _problem(
                doc,
                ("metadata", "labels", key),
                f"label {key!r} is set by t2gen (selectors and the Twister2 runtime rely on it); "
                "choose another key",
                key=True,
            )


def _check_job_master(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """A job master in the client needs its address; one in the cluster has none."""
    spec = _dict(data.get("spec"))
    job_master = _dict(spec.get("jobMaster"))
    enabled = job_master.get("enabled")
    if enabled is False and "address" not in job_master:
        yield _problem(
            doc,
            ("spec", "jobMaster", "enabled"),
            "with enabled: false the job master runs in the submitting client; set jobMaster.address to "
            "the client's IP address so the workers can reach it (JOB_MASTER_IP)",
        )
    if enabled is True and "address" in job_master:
        yield _problem(
            doc,
            ("spec", "jobMaster", "address"),
            "address is only used when the job master runs in the client (enabled: false); remove it",
            key=True,
        )
    persistent = _quantity(job_master.get("persistentDisk"))
    per_worker = _quantity(
        _dict(_dict(spec.get("storage")).get("persistent")).get("perWorker")
    )
    if (
        persistent is not None
        and not persistent.is_zero()
        and per_worker is not None
        and per_worker.is_zero()
    ):
        yield _problem(
            doc,
            ("spec", "jobMaster", "persistentDisk"),
            "the job master's persistentDisk is a share of the job's PersistentVolumeClaim, which exists only "
            "when storage.persistent.perWorker is above 0; set perWorker or remove persistentDisk",
        )


def _check_job_package(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``client-to-pods`` needs the package size and has no URI."""
    package = _dict(_dict(data.get("spec")).get("jobPackage"))
    if package.get("uploadMethod") != "client-to-pods":
        return
    if "fileSize" not in package:
        yield _problem(
            doc,
            ("spec", "jobPackage", "uploadMethod"),
            "client-to-pods needs jobPackage.fileSize: the pods wait until that many bytes have arrived",
        )
    if "uri" in package:
        yield _problem(
            doc,
            ("spec", "jobPackage", "uri"),
            "uri is only used with uploadMethod: webserver; remove it",
            key=True,
        )


def _check_rbac(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``serviceAccountName`` names an existing account, so it goes with ``create: false``."""
    rbac = _dict(_dict(data.get("spec")).get("rbac"))
    if rbac.get("create") is True and "serviceAccountName" in rbac:
        yield _problem(
            doc,
            ("spec", "rbac", "serviceAccountName"),
            "serviceAccountName is only used with create: false; t2gen names the account it creates "
            "after the job",
            key=True,
        )


def _check_storage(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Claim settings without a claim are a mistake, not a silent no-op."""
    persistent = _dict(_dict(_dict(data.get("spec")).get("storage")).get("persistent"))
    per_worker = _quantity(persistent.get("perWorker"))
    if (
        per_worker is not None
        and per_worker.is_zero()
        and "storageClassName" in persistent
    ):
        yield _problem(
            doc,
            ("spec", "storage", "persistent", "storageClassName"),
            "storageClassName is set but perWorker is 0, so no PersistentVolumeClaim is made; "
            "set perWorker (e.g. 1Gi) or remove storageClassName",
            key=True,
        )


def _raw_mpi(doc: SourceDoc) -> Any:
    """``spec.mpi`` as written, before defaults (which always fill ``sshSecretName``)."""
    return _dict(_dict(_dict(doc.data).get("spec")).get("mpi"))


RULES: tuple[Rule, ...] = (
    _check_divisible,
    _check_quantities,
    _check_total_workers,
    _check_size,
    _check_ports,
    _check_binding,
    _check_operators,
    _check_contradictions,
    _check_feasibility,
    _check_node_port,
    _check_port_names,
    _check_mpi,
    _check_env,
    _check_labels,
    _check_job_master,
    _check_job_package,
    _check_rbac,
    _check_storage,
)
"""Every semantic rule, in the order they run (the output is sorted anyway)."""


def rule_problems(data: dict[str, Any], doc: SourceDoc) -> list[Problem]:
    """Run every rule on a job document.

    Args:
        data: the document with schema defaults applied.
        doc: the parsed file, for positions.

    Returns:
        Every violation, sorted by position; empty if the job is valid.
    """
    return sorted({problem for rule in RULES for problem in rule(data, doc)})
