"""The directory: which region holds a tenant, and which tenant a key
prefix belongs to. Nothing else — no key hashes, no agents, no content:
the key is verified in its region, against that region's rows.

The directory lives in the ``directory`` database (``regions.router``) and
is read before anyone is identified (a request's key prefix routes it), so
it is not under tenant row-level security; its columns are chosen so that
nothing in it is a tenant's data beyond its slug.
"""

from __future__ import annotations

from django.db import models


class TenantPlacement(models.Model):
    slug = models.SlugField(max_length=63, primary_key=True)
    tenant_ref = models.UUIDField(unique=True, help_text="The tenant's id in its region.")
    region = models.CharField(max_length=31)
    # Set while `tenant_move` copies the tenant: its requests are answered
    # 503 (Retry-After) so nothing is written to the source meanwhile.
    moving_to = models.CharField(max_length=31, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return f"{self.slug} → {self.region}"


class KeyPlacement(models.Model):
    prefix = models.CharField(max_length=16, primary_key=True)
    tenant = models.ForeignKey(
        TenantPlacement,
        to_field="slug",
        db_column="tenant_slug",
        on_delete=models.CASCADE,
        related_name="keys",
    )

    def __str__(self) -> str:
        return f"trib_{self.prefix}_… → {self.tenant_id}"
