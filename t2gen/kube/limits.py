"""Object sizes Kubernetes refuses.

``kubectl apply`` keeps a copy of each object in its
``kubectl.kubernetes.io/last-applied-configuration`` annotation, and the API
server refuses an object whose annotations total more than
``TotalAnnotationSizeLimitB`` (256 KiB; kubernetes/kubernetes,
``staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go``). So every
object, with the job's own annotations, must fit 256 KiB. A ConfigMap holds at
most 1 MiB (``MaxSecretSize``, which ``ValidateConfigMap`` applies to
ConfigMaps too; ``pkg/apis/core/validation/validation.go``).

The check of rendered objects against these limits is :mod:`t2gen.checks.size`.
"""

from __future__ import annotations

__all__ = ["APPLY_LIMIT_BYTES", "CONFIG_MAP_LIMIT_BYTES"]

APPLY_LIMIT_BYTES = 262_144
"""Most bytes of annotations on one object (Kubernetes' TotalAnnotationSizeLimitB).

``kubectl apply`` stores the whole object in its ``last-applied-configuration``
annotation, so an object must fit this together with its own annotations.
"""

CONFIG_MAP_LIMIT_BYTES = 1024 * 1024
"""Most bytes of data one ConfigMap holds (1 MiB)."""
