"""Generators of the worst inputs per input kind (issue 41): written into a temporary directory, never committed.

Each input kind t2gen reads has a documented limit (docs/untrusted-input.md);
these functions write, for each, the worst input it accepts (at its limit)
and the worst it refuses (just past it, or refused only at its end), so
``bench/kinds.py`` can judge both against the budget of a plain render.
Every generator returns the command line after ``t2gen`` (or the console
script, for ``t2gen-kustomize``) and, where the input is standard input,
the file to feed it.
"""

from __future__ import annotations

import json
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "wordcount.yaml"

Made = tuple[list[str], Path | None]
"""A command line (its first word ``t2gen`` or ``t2gen-kustomize``) and the file on its standard input."""


def _labels(component: str) -> dict[str, str]:
    return {
        "app": "twister2",
        "t2-job": "wordcount",
        "app.kubernetes.io/name": "twister2",
        "app.kubernetes.io/instance": "wordcount",
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/managed-by": "t2gen",
    }


def _pod(name: str) -> dict[str, Any]:
    """A running worker pod of ``examples/wordcount.yaml`` as ``kubectl get -o json`` prints it (about 600 bytes)."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "twister2",
            "labels": _labels("worker"),
        },
        "spec": {"nodeName": "node-1"},
        "status": {
            "phase": "Running",
            "containerStatuses": [
                {
                    "name": "twister2-worker-0",
                    "ready": True,
                    "restartCount": 0,
                    "image": "twister2/twister2-k8s:0.8.0",
                    "state": {"running": {"startedAt": "2026-11-28T08:00:10Z"}},
                }
            ],
        },
    }


def _write_list(path: Path, items: list[Any]) -> Path:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def status_pods(tmp: Path, size: int, *, broken_last: bool = False) -> Made:
    """``status --cluster`` of as many worker pods as fit ``size`` bytes; ``broken_last``: the last is no object."""
    count = (size - 100) // (len(json.dumps(_pod("wordcount-0-100000"))) + 2)
    items: list[Any] = [_pod(f"wordcount-0-{i}") for i in range(count)]
    if broken_last:
        items[-1] = {"kind": "Pod"}
    state = _write_list(tmp / f"state-{size}-{broken_last}.json", items)
    return ["t2gen", "status", str(EXAMPLE), "--cluster", str(state)], None


def status_long_name(tmp: Path, size: int) -> Made:
    """``status --cluster -o json`` of an ended job, one Service of a name of ``size`` bytes left over."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "wordcount-" + "x" * size, "labels": _labels("worker")},
    }
    state = _write_list(tmp / f"long-name-{size}.json", [service])
    return [
        "t2gen",
        "status",
        str(EXAMPLE),
        "--cluster",
        str(state),
        "-o",
        "json",
    ], None


def krm_items(tmp: Path, count: int, *, broken_last: bool = False) -> Made:
    """A ResourceList for ``t2gen-kustomize`` of ``count`` small items (100,000: 5.7 MB) and the example as its functionConfig."""
    job = EXAMPLE.read_text().split("apiVersion:", 1)[1]
    config = "\n".join("  " + line for line in ("apiVersion:" + job).splitlines())
    item = "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n"
    items = item * count + ("- [" if broken_last else "")
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
        f"functionConfig:\n{config}\nitems:\n{items}"
    )
    path = tmp / f"resourcelist-{count}-{broken_last}.yaml"
    path.write_text(text)
    return ["t2gen-kustomize"], path


def package_config(tmp: Path, entries: int) -> Made:
    """``render --package`` of a package whose ``.job`` carries ``entries`` JobConfig entries the job file lacks."""
    from t2gen._generated import twister2_job_pb2 as pb

    message = pb.Job(job_name="wordcount", job_id="wordcount")
    message.job_format.job_file = "wordcount.jar"
    for i in range(entries):
        message.config.config_byte_map[f"k{i}"] = b"\x03\x01\x02"
    root = tmp / f"package-{entries}"
    (root / "twister2-job").mkdir(parents=True)
    (root / "twister2-job" / "wordcount.job").write_bytes(message.SerializeToString())
    (root / "twister2-job" / "wordcount.jar").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    package = tmp / f"package-{entries}.tar.gz"
    with tarfile.open(package, "w:gz") as tar:
        tar.add(root / "twister2-job", arcname="twister2-job")
    return ["t2gen", "render", str(EXAMPLE), "--package", str(package)], None


def quota_limits(
    tmp: Path, count: int, *, ranges: int = 1, broken_last: bool = False
) -> Made:
    """``plan --nodes --quota`` of ``ranges`` LimitRanges of ``count`` Container limits each (100,000: about 6 MB)."""
    limit = {"type": "Container", "max": {"cpu": "4", "memory": "8Gi"}}
    limits: list[Any] = [limit] * count
    if broken_last:
        limits[-1] = {"type": "Container", "max": {"cpu": "x"}}
    items = [
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {"name": f"limits-{r}", "namespace": "twister2"},
            "spec": {"limits": limits},
        }
        for r in range(ranges)
    ]
    quota = _write_list(tmp / f"quota-{count}-{ranges}-{broken_last}.json", items)
    nodes = _nodes(tmp, 10, tainted=False)
    return _plan(nodes, "--quota", str(quota))


def _plan(nodes: Path, *more: str) -> Made:
    """``t2gen plan`` of the example job on the node list ``nodes``, then ``more``."""
    return ["t2gen", "plan", str(EXAMPLE), "--nodes", str(nodes), *more], None


def _node(name: str, *, tainted: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if tainted:
        spec["taints"] = [
            {"key": f"dedicated-{k}", "value": "batch", "effect": "NoSchedule"}
            for k in range(4)
        ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": spec,
        "status": {
            "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def _nodes(tmp: Path, count: int, *, tainted: bool, same_name: bool = False) -> Path:
    items = [
        _node("node" if same_name else f"node-{i}", tainted=tainted)
        for i in range(count)
    ]
    return _write_list(tmp / f"nodes-{count}-{tainted}-{same_name}.json", items)


def plan_nodes(
    tmp: Path, count: int, *, tainted: bool, same_name: bool = False
) -> Made:
    """``plan --nodes`` of ``count`` nodes, each with four NoSchedule taints, or all of one name."""
    nodes = _nodes(tmp, count, tainted=tainted, same_name=same_name)
    return ["t2gen", "plan", str(EXAMPLE), "--nodes", str(nodes)], None


def _stream_list(path: Path, count: int, item: Callable[[int], str]) -> Path:
    """Write a ``List`` of ``count`` items (each JSON text ``item(i)``) a piece at a time."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{"apiVersion": "v1", "kind": "List", "items": [')
        for start in range(0, count, 100_000):
            out.write(
                ",".join(item(i) for i in range(start, min(count, start + 100_000)))
            )
            if start + 100_000 < count:
                out.write(",")
        out.write("]}")
    return path


def _minimal_node(i: int) -> str:
    return (
        f'{{"kind": "Node", "metadata": {{"name": "n-{i}"}}, "status": {{"allocatable": '
        '{"cpu": "8", "memory": "32Gi", "pods": "110"}, "conditions": '
        '[{"type": "Ready", "status": "True"}]}}'
    )


def _minimal_pod(i: int) -> str:
    return (
        f'{{"kind": "Pod", "metadata": {{"name": "p-{i}", "namespace": "d"}}, '
        f'"spec": {{"nodeName": "n-{i % 1000}", "containers": [{{"name": "c", '
        '"resources": {"requests": {"cpu": "1m"}}}]}}'
    )


def plan_minimal(tmp: Path, nodes: int, pods: int = 0) -> Made:
    """``plan --nodes --pods`` of ``nodes`` minimal Ready nodes and ``pods`` minimal bound pods (the item bound: 20,000 each)."""
    made = ["t2gen", "plan", str(EXAMPLE), "--nodes"]
    made.append(
        str(_stream_list(tmp / f"min-nodes-{nodes}.json", nodes, _minimal_node))
    )
    if pods:
        made += [
            "--pods",
            str(_stream_list(tmp / f"min-pods-{pods}.json", pods, _minimal_pod)),
        ]
    return made, None


def plan_tiny_items(tmp: Path, count: int) -> Made:
    """``plan --nodes`` of ``count`` empty items ``{}`` (3 bytes each: 32,000,000 fit 96 MiB)."""
    path = _stream_list(tmp / f"tiny-{count}.json", count, lambda i: "{}")
    return ["t2gen", "plan", str(EXAMPLE), "--nodes", str(path)], None


def plan_realistic(tmp: Path, size: int, *, broken_end: bool = False) -> Made:
    """``plan --nodes --pods`` of realistic nodes and pods (``bench/plan_bench.py``, about 11 and 14 KB each), ``size`` bytes of each; ``broken_end``: the node list's last byte is cut."""
    import plan_bench

    def fill(path: Path, item: Callable[[int], Any]) -> Path:
        count = int(size * 0.97) // len(plan_bench._indented(item(0), 8).encode())
        plan_bench.write_list(path, item, max(1, count - 1))
        return path

    nodes = fill(tmp / f"real-nodes-{size}.json", plan_bench.node)
    pods = fill(
        tmp / f"real-pods-{size}.json",
        lambda i: plan_bench.pod(i, plan_bench.node_name(i % 8000)),
    )
    if broken_end:
        with nodes.open("r+b") as out:
            out.truncate(nodes.stat().st_size - 3)
    return _plan(nodes, "--pods", str(pods))


def plan_taints(tmp: Path, nodes: int, taints: int) -> Made:
    """``plan --nodes`` of ``nodes`` nodes of ``taints`` taints each (the kept-value bound: 200,000 in all)."""

    def node(i: int) -> str:
        listed = ",".join(
            f'{{"key": "k-{k}", "effect": "PreferNoSchedule"}}' for k in range(taints)
        )
        return (
            f'{{"kind": "Node", "metadata": {{"name": "n-{i}"}}, "spec": {{"taints": [{listed}]}}, '
            '"status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}'
        )

    path = _stream_list(tmp / f"taints-{nodes}-{taints}.json", nodes, node)
    return ["t2gen", "plan", str(EXAMPLE), "--nodes", str(path)], None


def plan_fat_items(tmp: Path, count: int, size: int) -> Made:
    """``plan --nodes`` of ``count`` nodes of ``size`` bytes each, nearly all an annotation no filter reads (an item's bound: 1.5 MiB)."""

    def node(i: int) -> str:
        return _minimal_node(i).replace(
            '"metadata": {',
            '"metadata": {"annotations": {"a": "' + "x" * size + '"}, ',
            1,
        )

    path = _stream_list(tmp / f"fat-{count}-{size}.json", count, node)
    return ["t2gen", "plan", str(EXAMPLE), "--nodes", str(path)], None


def plan_bad_items(tmp: Path, count: int, *, pad: int = 0) -> Made:
    """``plan --nodes`` of ``count`` nodes, none with ``status.allocatable``: a located problem each (``pad`` bytes of label make a list large)."""

    def node(i: int) -> str:
        label = f', "labels": {{"pad": "{"x" * pad}"}}' if pad else ""
        return f'{{"kind": "Node", "metadata": {{"name": "n-{i}"{label}}}, "status": {{}}}}'

    path = _stream_list(tmp / f"bad-{count}-{pad}.json", count, node)
    return ["t2gen", "plan", str(EXAMPLE), "--nodes", str(path)], None


def _check(tmp: Path, name: str, text: str) -> Made:
    path = tmp / f"check-{name}.yaml"
    path.write_text(text)
    return ["t2gen", "check", str(path)], None


def check_objects(tmp: Path, count: int) -> Made:
    """``check`` of ``count`` one-line ConfigMaps (its limit: 50,000; one more is refused)."""
    text = "".join(
        f"---\n{{apiVersion: v1, kind: ConfigMap, metadata: {{name: c{i}}}}}\n"
        for i in range(count)
    )
    return _check(tmp, f"objects-{count}", text)


def check_not_in(tmp: Path, count: int) -> Made:
    """``check`` of ``count`` Deployments whose selectors are ``NotIn`` expressions (each selects the others)."""
    deployment = (
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{0}}}\n"
        "spec: {{selector: {{matchExpressions: [{{key: app, operator: NotIn, values: [z{0}]}}]}}, "
        "template: {{metadata: {{labels: {{app: a{0}}}}}, spec: {{containers: [{{name: c, image: i}}]}}}}}}\n"
    )
    return _check(
        tmp, f"notin-{count}", "".join(deployment.format(i) for i in range(count))
    )


def check_services(tmp: Path, count: int) -> Made:
    """``check`` of ``count`` Services selecting one label, with as many pods' StatefulSets."""
    service = (
        "---\napiVersion: v1\nkind: Service\nmetadata: {{name: s{0}}}\n"
        "spec: {{selector: {{app: a}}, ports: [{{port: 80}}]}}\n"
    )
    return _check(
        tmp, f"services-{count}", "".join(service.format(i) for i in range(count))
    )


def check_strings(tmp: Path, count: int) -> Made:
    """``check`` of one ConfigMap with ``count`` one-character data entries (the value bound: 2,000,000)."""
    data = "".join(f"  k{i}: v\n" for i in range(count))
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n{data}"
    return _check(tmp, f"strings-{count}", text)


def check_merge_keys(tmp: Path, count: int) -> Made:
    """``check`` of ``count`` ConfigMaps each merging its own anchored labels into its annotations (``<<: *a``)."""
    text = "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, labels: &a {{k: v}}, "
        "annotations: {<<: *a, l: w}}\n"
        for i in range(count)
    )
    return _check(tmp, f"merge-{count}", text)


def check_late_alias(tmp: Path, count: int) -> Made:
    """``check`` of ``count`` data entries, then an alias: the bounded reader reads them all, then the composer starts over."""
    data = "".join(f"  k{i}: v\n" for i in range(count))
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: &n c\ndata:\n{data}  z: *n\n"
    return _check(tmp, f"late-alias-{count}", text)


def check_pods(tmp: Path, count: int, containers: int = 1) -> Made:
    """``check`` of ``count`` Pods of ``containers`` containers: a kind checked by jsonschema alone."""
    one = "{{name: c{0}, image: i, args: [a, b], env: [{{name: A, value: b}}], ports: [{{containerPort: 80}}]}}"
    listed = ", ".join(one.format(k) for k in range(containers))
    text = "".join(
        f"---\n{{apiVersion: v1, kind: Pod, metadata: {{name: p{i}}}, spec: {{containers: [{listed}]}}}}\n"
        for i in range(count)
    )
    return _check(tmp, f"pods-{count}-{containers}", text)


Generator = Callable[[Path], Made]


_CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: "


def _overlay_dir(tmp: Path, name: str, files: dict[str, str]) -> Path:
    directory = tmp / f"overlay-{name}"
    directory.mkdir(exist_ok=True)
    for file_name, text in files.items():
        (directory / file_name).write_text(text, encoding="utf-8")
    return directory


def overlay(tmp: Path, name: str, body: str, *, job: Path = EXAMPLE) -> Made:
    """``render --templates`` of one overlay template: a ConfigMap whose ``data.a`` is ``body``."""
    directory = _overlay_dir(
        tmp, name, {"x.yaml.j2": _CONFIGMAP.format(name="x") + body + "\n"}
    )
    return ["t2gen", "render", str(job), "--templates", str(directory)], None


def overlay_slices(
    tmp: Path,
    count: int,
    *,
    step: bool = False,
    size: int = 1_000_000,
    items: bool = False,
) -> Made:
    """``count`` slices of a string of ``size`` characters (``items``: a list of ``size`` items), each a copy (``step``: reversed)."""
    part = "s[::-1]" if step else "s[1:]"
    made = f"[1, 'a'] * {size // 2}" if items else f"'x' * {size}"
    body = (
        "{% set s = " + made + " %}{% for i in range(" + str(count) + ") %}"
        "{% set t = " + part + " %}{% endfor %}{{ 1 }}"
    )
    return overlay(tmp, f"slices-{count}-{step}-{size}-{items}", body)


def overlay_division(tmp: Path, count: int) -> Made:
    """``count`` divisions of a 4,095-bit integer by a 2,048-bit one (schoolbook: quadratic)."""
    body = (
        "{% set n = 2 ** 4095 - 1 %}{% set d = 2 ** 2048 + 1 %}"
        "{% for i in range(" + str(min(count, 10_000)) + ") %}"
        "{% for j in range(" + str(max(count // 10_000, 1)) + ") %}"
        "{% set q = n // d %}{% endfor %}{% endfor %}{{ 1 }}"
    )
    return overlay(tmp, f"division-{count}", body)


def overlay_filters(tmp: Path, depth: int) -> Made:
    """One expression of ``depth`` chained filters (``{{ 1|abs|abs|...}}``)."""
    return overlay(tmp, f"filters-{depth}", "{{ 1" + "|abs" * depth + " }}")


def overlay_tildes(tmp: Path, count: int) -> Made:
    """One expression of ``count`` ``~`` operators."""
    return overlay(tmp, f"tildes-{count}", "{{ 'a'" + " ~ 'a'" * count + " }}")


def overlay_blocks(tmp: Path, count: int) -> Made:
    """``count`` empty ``{% block %}`` statements (each a function once compiled)."""
    body = "".join(f"{{% block b{i} %}}{{% endblock %}}" for i in range(count))
    return overlay(tmp, f"blocks-{count}", body + "{{ 1 }}")


def overlay_outputs(tmp: Path, count: int) -> Made:
    """``count`` written expressions in a loop, each a YAML flow value inside one quoted string."""
    body = (
        "{% set s = 'x' %}\"{% for i in range(" + str(min(count, 10_000)) + ") %}"
        "{% for j in range(" + str(max(count // 10_000, 1)) + ") %}{{ s }}"
        '{% endfor %}{% endfor %}"'
    )
    return overlay(tmp, f"outputs-{count}", body)


def overlay_sum(tmp: Path, count: int) -> Made:
    """``|sum(start=[])`` of ``count`` one-item lists (each step copies the sum so far)."""
    body = "{{ ([[0]] * " + str(count) + ")|sum(start=[])|length }}"
    return overlay(tmp, f"sum-{count}", body)


def overlay_files(tmp: Path, count: int) -> Made:
    """One overlay directory of ``count`` templates, each a small ConfigMap."""
    files = {
        f"x{i}.yaml.j2": _CONFIGMAP.format(name=f"x{i}") + "{{ job.name }}\n"
        for i in range(count)
    }
    directory = _overlay_dir(tmp, f"files-{count}", files)
    return ["t2gen", "render", str(EXAMPLE), "--templates", str(directory)], None


def overlay_arguments(tmp: Path, count: int) -> Made:
    """``--templates`` given ``count`` times, each a directory of one small template."""
    command = ["t2gen", "render", str(EXAMPLE)]
    (tmp / "args").mkdir(exist_ok=True)
    for i in range(count):
        text = _CONFIGMAP.format(name=f"x{i}") + "b\n"
        directory = _overlay_dir(tmp / "args", f"{count}-{i}", {f"x{i}.yaml.j2": text})
        command += ["--templates", str(directory)]
    return command, None


def overlay_values(tmp: Path, count: int, per: int = 50_000) -> Made:
    """An overlay whose output is about ``count`` values, in ConfigMaps of ``per`` (a multiple of 1,000; the read-back's work)."""
    body = (
        "{% for d in range(" + str(-(-count // per)) + ") %}---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x{{ d }}\nx: ["
        "{% for i in range(" + str(max(min(count, per) // 1000, 1)) + ") %}"
        "{% for j in range(1000) %}0,{% endfor %}{% endfor %}0]\n"
        "{% endfor %}"
    )
    directory = _overlay_dir(tmp, f"values-{count}", {"x.yaml.j2": body})
    return ["t2gen", "render", str(EXAMPLE), "--templates", str(directory)], None


def overlay_ports(tmp: Path, count: int) -> Made:
    """An overlay Service of ``count`` ports (the read-back and the rendered objects' checks)."""
    text = (
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ job.name }}-many\nspec:\n"
        "  selector: {app: x}\n  ports:\n{% for i in range(" + str(count) + ") %}"
        "    - {name: {{ 'p%d' % i }}, port: {{ 20000 + i }}, targetPort: {{ 20000 + i }}}\n"
        "{% endfor %}"
    )
    directory = _overlay_dir(tmp, f"ports-{count}", {"x.yaml.j2": text})
    return ["t2gen", "render", str(EXAMPLE), "--templates", str(directory)], None


def overlay_largest_job(tmp: Path) -> Made:
    """The largest job ``validate`` accepts (50 groups of 64 workers per pod, 2.5 KB of environment) with a one-template overlay."""
    groups = "".join("    - {count: 64, perPod: 64}\n" for _ in range(50))
    text = (
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata:\n  name: largest\n"
        "spec:\n  image: twister2/twister2-k8s:0.8.0\n  jobPackage:\n    jarFile: a.jar\n"
        "  workers:\n"
        + groups
        + "  env:\n    - name: V\n      value: '"
        + "x" * 2500
        + "'\n"
    )
    job = tmp / "largest.yaml"
    job.write_text(text, encoding="utf-8")
    return overlay(tmp, "largest", "{{ job.name }}", job=job)
