"""Tenants, agents and API keys.

Every table here carries row-level security (see ``accounts.tenancy``):
``Tenant`` by its own id, ``Agent`` and ``ApiKey`` by ``tenant_id``. A key's
tenant must be its agent's tenant — the database holds that with a
composite foreign key (migration 0002), not Python.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone


class Role(models.TextChoices):
    READER = "reader", "reader (recall only)"
    WRITER = "writer", "writer (learn, reinforce, forget own)"
    CURATOR = "curator", "curator (everything)"


ROLE_RANK = {Role.READER: 0, Role.WRITER: 1, Role.CURATOR: 2}


class Tenant(models.Model):
    """A tribe: one organisation's shared memory."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    slug = models.SlugField(max_length=63, unique=True)
    name = models.CharField(max_length=200)
    region = models.CharField(max_length=63, default="default", help_text="Data residency label.")
    # Per-tenant judge overrides of the TRIBUTARY_JUDGE_* settings:
    # {"tiering": bool, "escalate_below": 0-1, "model": str, "strong_model": str}
    judge_config = models.JSONField(default=dict, blank=True)
    # Overrides of TRIBUTARY_CORROBORATION: {"min_independent_sources": int,
    # "min_confidence": 0-1, "contradiction_confidence": 0-1, "strict": bool}
    corroboration_policy = models.JSONField(default=dict, blank=True)
    # Requests per minute each of the tenant's keys may make to the API;
    # empty: TRIBUTARY_RATE_LIMIT_PER_MINUTE; 0: unlimited.
    rate_limit_per_minute = models.PositiveIntegerField(null=True, blank=True)
    # Bytes of text the tenant may store (accounts/quotas.py); empty:
    # TRIBUTARY_STORAGE_QUOTA_MB; 0: unlimited.
    storage_quota_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class TenantUsage(models.Model):
    """What a tenant stores, in bytes of text: kept by triggers on the
    counted tables and checked against the quota (accounts/quotas.py)."""

    tenant = models.OneToOneField(
        Tenant, on_delete=models.CASCADE, primary_key=True, related_name="usage"
    )
    bytes = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.tenant_id}: {self.bytes} bytes"


class Agent(models.Model):
    """A named caller inside a tenant, with a role."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="agents")
    name = models.CharField(max_length=100)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.WRITER)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["tenant__slug", "name"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="agent_unique_name"),
            # Target of same-tenant composite foreign keys.
            models.UniqueConstraint(fields=["id", "tenant"], name="agent_id_tenant"),
            models.CheckConstraint(
                condition=models.Q(role__in=[r.value for r in Role]), name="agent_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.role})"


class ApiKey(models.Model):
    """How an agent authenticates: ``trib_<prefix>_<secret>``.

    Only the lookup prefix and the SHA-256 of the secret are stored; the
    plaintext exists once, in the answer to whoever issued it.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="api_keys")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="api_keys")
    prefix = models.CharField(max_length=16, unique=True)
    secret_hash = models.CharField(max_length=64)
    label = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API key"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(secret_hash__regex=r"^[0-9a-f]{64}$"),  # noqa: S106
                name="apikey_hash_is_sha256_hex",
            ),
        ]

    def __str__(self) -> str:
        return f"trib_{self.prefix}_…"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None


class StaffMembership(models.Model):
    """A staff user (Django's auth) who curates a tenant in the admin and
    the dashboard. Staff see only their tenants (row-level security does
    the scoping); superusers see all.

    People are not a tenant's data: memberships live in the directory
    database with the users (``regions.router``) and name the tenant by
    slug, which the directory places in its region."""

    id = models.BigAutoField(primary_key=True)
    tenant_slug = models.SlugField(max_length=63)
    user = models.ForeignKey(
        "auth.User", on_delete=models.CASCADE, related_name="tributary_memberships"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant_slug", "user"], name="staffmembership_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} → {self.tenant_slug}"
