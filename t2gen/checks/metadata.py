"""Checks of every object's metadata: name, namespace and labels (any kind, custom resources too)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import Finding, as_dict, check
from t2gen.checks.stream import Stream
from t2gen.kube import validators
from t2gen.twister2.names import PACKAGE_NAMESPACE_ANNOTATION

__all__ = [
    "label_findings",
    "object_labels",
    "object_name",
    "object_namespace",
    "package_namespace",
]


def _is_subdomain(value: str) -> bool:
    """A DNS-1123 subdomain whose dot-separated labels are each at most 63 characters.

    The per-label limit is DNS's own (RFC 1123) and the job schema's
    (``schemas/twister2job.schema.json``, ``dns1123Subdomain``); Kubernetes'
    ``IsDNS1123Subdomain`` checks only the 253 total, so this is the stricter
    rule these checks have always applied.
    """
    return validators.is_dns1123_subdomain(value) and all(
        len(part) <= validators.DNS1123_LABEL_MAX for part in value.split(".")
    )


def _is_label_key(key: str) -> bool:
    """A label key ``[prefix/]name``; an empty prefix before ``/`` is read as no prefix."""
    prefix, _, name = key.rpartition("/")
    return (not prefix or _is_subdomain(prefix)) and validators.is_qualified_name(name)


@check("object-name")
def object_name(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """Object names follow their kind's DNS rule.

    Services are DNS-1035 labels (a letter first: the name becomes a DNS label
    and an environment variable prefix); StatefulSets are DNS-1123 labels (their
    pods' hostnames) of at most 52 characters, because the controller labels
    each pod ``controller-revision-hash: <name>-<10-character hash>`` and a label
    value has at most 63 (kubernetes/kubernetes#64023); every other kind,
    custom resources included, is a DNS-1123 subdomain. A missing name is
    reported too, unless ``metadata.generateName`` asks the API server for one
    (``kubectl create``, as Kueue's sample Jobs do). Source: kubernetes/kubernetes ``pkg/apis/core/validation``
    (``ValidateServiceName``) and ``pkg/apis/apps/validation``
    (``ValidateStatefulSetName``); https://kubernetes.io/docs/concepts/overview/working-with-objects/names/
    """
    kind = obj.get("kind")
    metadata = as_dict(obj.get("metadata"))
    name = metadata.get("name")
    if not isinstance(name, str):
        if isinstance(metadata.get("generateName"), str):
            return  # the API server names it (kubectl create)
        yield (
            "metadata.name",
            "missing (or write metadata.generateName for a generated one)",
        )
        return
    if kind == "Service":
        if not validators.is_dns1035_label(name):
            yield (
                "metadata.name",
                f"{name!r} is not a DNS-1035 label (a letter, then letters, digits, '-'; <= 63)",
            )
    elif kind == "StatefulSet":
        longest = validators.STATEFULSET_NAME_MAX
        if not validators.is_dns1123_label(name):
            yield (
                "metadata.name",
                f"{name!r} is not a DNS-1123 label; its pods' hostnames would be invalid",
            )
        elif len(name) > longest:
            yield (
                "metadata.name",
                (
                    f"{name!r} is {len(name)} characters; a StatefulSet name may have at most {longest} "
                    "so that its controller-revision-hash label fits in 63"
                ),
            )
    elif not _is_subdomain(name):
        yield "metadata.name", f"{name!r} is not a DNS-1123 subdomain"


@check("object-namespace")
def object_namespace(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A namespace, when written, is a DNS-1123 label (at most 63 characters).

    Source: kubernetes/kubernetes ``pkg/apis/core/validation``
    (``ValidateNamespaceName``).
    """
    namespace = as_dict(obj.get("metadata")).get("namespace")
    if namespace is not None and not validators.is_dns1123_label(namespace):
        yield "metadata.namespace", f"{namespace!r} is not a DNS-1123 label"


@check("package-namespace")
def package_namespace(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """An object annotated with its job package's namespace is in that namespace, when it names one.

    ``t2gen render`` annotates the job's ConfigMap
    ``t2gen.dev/package-namespace: <namespace>``: the namespace of the job
    package's ``kubernetes.namespace`` (the job file's, ``-n``'s, or the package's
    with ``--package``; ``default`` when none names one). Every Twister2 pod
    calls the API server in that namespace only and fails at its start with
    "Could not get ConfigMap from K8s master: <job>" when the ConfigMap is
    elsewhere (DSC-SPIDAL/twister2 ``twister2/resource-scheduler/src/java/edu/iu/
    dsc/tws/rsched/schedulers/k8s/KubernetesController.java:941-946``;
    ``KubernetesContext.java:24-25``). A namespace set after the render
    (kustomize's ``namespace:``, a patch, Helm or Argo CD writing
    ``metadata.namespace``) that differs is refused; an object that names no
    namespace goes where ``kubectl apply -n`` puts it, which only the
    supervisor (``spec.lifecycle.supervise``) can check, at its start.
    """
    metadata = as_dict(obj.get("metadata"))
    wanted = as_dict(metadata.get("annotations")).get(PACKAGE_NAMESPACE_ANNOTATION)
    namespace = metadata.get("namespace")
    if not isinstance(wanted, str) or not isinstance(namespace, str):
        return
    if namespace != wanted:
        name = metadata.get("name")
        yield (
            "metadata.namespace",
            f"{namespace!r}, but the job's package runs in namespace {wanted!r} "
            f"({PACKAGE_NAMESPACE_ANNOTATION}): every Twister2 pod would look for its "
            f'ConfigMap there and fail "Could not get ConfigMap from K8s master: {name}"; '
            f"render and package the job for {namespace!r} (t2gen render -n {namespace}, "
            f"t2gen package -n {namespace}), or apply it to {wanted!r}",
        )


def label_findings(path: str, labels: Any) -> Iterator[Finding]:
    """Findings for a label map at ``path``: keys are qualified names, values label values.

    Args:
        path: JSON path of the map, e.g. ``metadata.labels``.
        labels: the map (anything else is ignored).

    Yields:
        ``(path[key], message)`` for each bad key and each bad value.
    """
    labels = as_dict(labels)
    if labels.keys() <= _VALID_KEYS:
        try:
            if _VALID_VALUES.issuperset(labels.values()):
                return  # every key and value seen valid before (only strings are kept)
        except TypeError:
            pass  # a value YAML made a list or a mapping: found below
    for key, value in labels.items():
        text = str(key)
        if text not in _VALID_KEYS:
            if _is_label_key(text):
                _remember(_VALID_KEYS, text)
            else:
                yield f"{path}[{key!r}]", f"{key!r} is not a valid label key"
        if not (isinstance(value, str) and value in _VALID_VALUES):
            if validators.is_label_value(value):
                _remember(_VALID_VALUES, value)
            else:
                yield (
                    f"{path}[{key!r}]",
                    f"{value!r} is not a valid label value (a string of at most 63 characters)",
                )


_VALID_KEYS: set[str] = set()
_VALID_VALUES: set[str] = set()
"""Label keys and values found valid: a render's objects repeat a few dozen of
them thousands of times (a batch of 500 jobs: 32,500 labels)."""


def _remember(known: set[str], text: str) -> None:
    if len(known) >= 4096:  # bounded, whatever the input
        known.clear()
    known.add(text)


@check("object-labels")
def object_labels(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """Label keys are ``[DNS-1123 subdomain/]name`` and values strings of at most 63 characters.

    The name part and the value are letters, digits, '-', '_' and '.', starting
    and ending with a letter or digit (a value may be empty). Source:
    kubernetes/kubernetes ``staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go``
    (``IsQualifiedName``, ``IsValidLabelValue``);
    https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set
    """
    yield from label_findings(
        "metadata.labels", as_dict(obj.get("metadata")).get("labels")
    )
