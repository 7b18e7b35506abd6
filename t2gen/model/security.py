"""Pod security and access: ``spec.security`` and ``spec.rbac``."""

from __future__ import annotations

from t2gen.record import Record

__all__ = [
    "Rbac",
    "Security",
]


class Security(Record):
    """The security profile of every pod: ``default``, ``restricted`` or ``none``.

    Attributes:
        profile: the profile name (``spec.security.profile``).
        run_as_user: user ID with ``restricted``.
        run_as_group: group ID (and ``fsGroup``) with ``restricted``.
        read_only_root_filesystem: every container's root filesystem read-only,
            with writable emptyDirs where the runtime writes
            (:func:`t2gen.render.context.volumes.pod_volumes`).
        checkov_skips: annotate the StatefulSets with ``checkov.io/skip<N>``
            for the checkov checks a Twister2 job cannot pass
            (:mod:`t2gen.render.context.scanners`).
    """

    profile: str
    run_as_user: int
    run_as_group: int
    read_only_root_filesystem: bool = False
    checkov_skips: bool = False

    @property
    def non_root(self) -> bool:
        """The containers run as ``run_as_user``, not as the image's root (the ``restricted`` profile)."""
        return self.profile == "restricted"


class Rbac(Record):
    """Whether to render the job's ServiceAccount, Role and RoleBinding."""

    create: bool
    service_account_name: str | None
