"""Write the imported job as a commented job file.

Each field's line ends in a comment naming the Twister2 key (and ``file:line``)
it came from; the sections follow the job file's usual order.
"""

from __future__ import annotations

import io
from typing import Any

from t2gen.importer.model import Twister2Config
from t2gen.inputs.yaml import JsonPath

__all__ = ["COMMENT_COLUMN", "HEADER_MARKER", "SPEC_ORDER", "dump", "header", "ordered"]

HEADER_MARKER = "# Imported by `t2gen import`"
"""How every job file ``t2gen import`` writes starts: ``--output-file`` replaces only such a file."""

COMMENT_COLUMN = 40
"""The column where each field's comment starts."""

SPEC_ORDER = (
    "image",
    "imagePullPolicy",
    "workerClass",
    "driverClass",
    "workers",
    "bindWorkersToCpu",
    "jvmMemoryFraction",
    "placement",
    "network",
    "jobMaster",
    "storage",
    "mpi",
    "jobPackage",
    "checkpointing",
    "zooKeeper",
    "env",
)


def ordered(job: dict[str, Any]) -> dict[str, Any]:
    """The job with its sections in the job file's usual order."""
    spec = job.get("spec", {})
    out: dict[str, Any] = {
        k: job[k] for k in ("apiVersion", "kind", "metadata") if k in job
    }
    out["spec"] = {k: spec[k] for k in SPEC_ORDER if k in spec}
    return out


def dump(job: dict[str, Any], comments: dict[JsonPath, str]) -> str:
    """The job as YAML, a comment at the end of each field's line."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    def build(node: Any, where: JsonPath) -> Any:
        if isinstance(node, dict):
            out = CommentedMap()
            for key, value in node.items():
                child: JsonPath = (*where, key)
                out[key] = build(value, child)
                if child in comments:
                    out.yaml_add_eol_comment(
                        "# " + comments[child], key, column=COMMENT_COLUMN
                    )
            return out
        if isinstance(node, list):
            seq = CommentedSeq(build(item, (*where, i)) for i, item in enumerate(node))
            if not any(isinstance(item, (dict, list)) for item in node):
                seq.fa.set_flow_style()
            return seq
        return node

    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    stream = io.StringIO()
    yaml.dump(build(job, ()), stream)
    return stream.getvalue()


def header(config: Twister2Config) -> str:
    """The job file's opening comment: the files read, in load order."""
    lines = [
        f"{HEADER_MARKER} from this Twister2 configuration (later files override earlier ones):"
    ]
    lines += [f"#   {path}" for path in config.files]
    lines.append("# Each field names the Twister2 key it came from.")
    return "\n".join(lines) + "\n"
