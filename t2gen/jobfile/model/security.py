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
    """

    profile: str
    run_as_user: int
    run_as_group: int


class Rbac(Record):
    """Whether to render the job's ServiceAccount, Role and RoleBinding."""

    create: bool
    service_account_name: str | None
