"""Pre-0.8 keys describing one worker group (removed from Twister2 on 2018-11-08).

The Twister2 design documents and old configuration directories still use them;
they are read only when no ``twister2.resource.worker.compute.resources`` list is
given. Note that ``twister2.worker.instances`` counts workers, not pods.
"""

from __future__ import annotations

from t2gen.importer.keys.model import Key, Kind, Use

__all__ = ["LEGACY_WORKER_KEYS"]

LEGACY_WORKER_KEYS: dict[str, Key] = {
    key.name: key
    for key in (
        Key(
            "twister2.worker.instances",
            Kind.INT,
            None,
            Use.FIELD,
            "spec.workers[0].count",
            note="legacy: total workers of the single group (not pods)",
        ),
        Key(
            "kubernetes.workers.per.pod",
            Kind.INT,
            1,
            Use.FIELD,
            "spec.workers[0].perPod",
            note="legacy (removed 2018-11-08)",
        ),
        Key(
            "twister2.worker.cpu",
            Kind.NUMBER,
            1.0,
            Use.FIELD,
            "spec.workers[0].cpu",
            note="legacy (removed 2018-11-08)",
        ),
        Key(
            "twister2.worker.ram",
            Kind.INT,
            200,
            Use.FIELD,
            "spec.workers[0].memory",
            note="legacy, MB (removed 2018-11-08)",
        ),
        Key(
            "twister2.worker.volatile.disk",
            Kind.NUMBER,
            0.0,
            Use.FIELD,
            "spec.workers[0].volatileDisk",
            note="legacy, GB (removed 2018-11-08)",
        ),
    )
}
"""Pre-0.8 keys describing one worker group; read only when no compute-resources list is given."""
