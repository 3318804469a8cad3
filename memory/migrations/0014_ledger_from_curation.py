"""Events, disputes, curator actions and kind policies move here from
``curation``: the models join memory's state over their existing tables
(curation 0009 drops them from its state; 0015 renames the tables)."""

import django.db.models.deletion
import django.utils.timezone
import uuid

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0008_gardener"),
        ("accounts", "0008_storage_quota"),
        ("memory", "0013_tenant_hnsw_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="CuratorAction",
                    fields=[
                        ("id", models.BigAutoField(primary_key=True, serialize=False)),
                        ("actor", models.CharField(max_length=200)),
                        ("action", models.CharField(max_length=32)),
                        ("target_type", models.CharField(max_length=32)),
                        ("target_id", models.CharField(blank=True, max_length=64)),
                        ("reason", models.CharField(blank=True, max_length=1000)),
                        ("data", models.JSONField(blank=True, default=dict)),
                        (
                            "created_at",
                            models.DateTimeField(default=django.utils.timezone.now, editable=False),
                        ),
                        (
                            "tenant",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, to="accounts.tenant"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "curation_curatoraction",
                        "indexes": [
                            models.Index(
                                fields=["tenant", "-created_at"], name="curatoraction_recent"
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="Dispute",
                    fields=[
                        (
                            "id",
                            models.UUIDField(
                                default=uuid.uuid4,
                                editable=False,
                                primary_key=True,
                                serialize=False,
                            ),
                        ),
                        ("rationale", models.TextField(blank=True)),
                        (
                            "status",
                            models.CharField(
                                choices=[("open", "Open"), ("resolved", "Resolved")],
                                default="open",
                                max_length=16,
                            ),
                        ),
                        (
                            "resolution",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("keep_old", "Keep Old"),
                                    ("accept_new", "Accept New"),
                                    ("keep_both", "Keep Both"),
                                    ("withdrawn", "Withdrawn"),
                                ],
                                max_length=16,
                            ),
                        ),
                        ("resolved_at", models.DateTimeField(blank=True, null=True)),
                        ("note", models.CharField(blank=True, max_length=1000)),
                        (
                            "created_at",
                            models.DateTimeField(default=django.utils.timezone.now, editable=False),
                        ),
                        (
                            "learn_request",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="memory.learnrequest",
                            ),
                        ),
                        (
                            "lesson",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="disputes_opened",
                                to="memory.lesson",
                            ),
                        ),
                        (
                            "opened_by",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to="accounts.agent",
                            ),
                        ),
                        (
                            "resolved_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to="accounts.agent",
                            ),
                        ),
                        (
                            "target",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="disputes_against",
                                to="memory.lesson",
                            ),
                        ),
                        (
                            "tenant",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, to="accounts.tenant"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "curation_dispute",
                        "indexes": [
                            models.Index(
                                fields=["tenant", "status", "created_at"], name="dispute_queue"
                            )
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("lesson",), name="dispute_one_per_lesson"
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    models.Q(("resolution", ""), ("status", "open")),
                                    models.Q(
                                        ("resolved_at__isnull", False),
                                        ("status", "resolved"),
                                        models.Q(("resolution", ""), _negated=True),
                                    ),
                                    _connector="OR",
                                ),
                                name="dispute_resolved_has_resolution",
                            ),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="Event",
                    fields=[
                        ("id", models.BigAutoField(primary_key=True, serialize=False)),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("learned", "Learned"),
                                    ("reinforced", "Reinforced"),
                                    ("superseded", "Superseded"),
                                    ("disputed", "Disputed"),
                                    ("quarantined", "Quarantined"),
                                    ("retired", "Retired"),
                                    ("forgotten", "Forgotten"),
                                    ("resolved", "Resolved"),
                                    ("invalidated", "Invalidated"),
                                ],
                                max_length=16,
                            ),
                        ),
                        ("data", models.JSONField(blank=True, default=dict)),
                        (
                            "created_at",
                            models.DateTimeField(default=django.utils.timezone.now, editable=False),
                        ),
                        (
                            "agent",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                to="accounts.agent",
                            ),
                        ),
                        (
                            "learn_request",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                to="memory.learnrequest",
                            ),
                        ),
                        (
                            "lesson",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="events",
                                to="memory.lesson",
                            ),
                        ),
                        (
                            "tenant",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, to="accounts.tenant"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "curation_event",
                        "indexes": [
                            models.Index(fields=["tenant", "-created_at"], name="event_feed")
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="KindPolicy",
                    fields=[
                        ("id", models.BigAutoField(primary_key=True, serialize=False)),
                        ("kind", models.CharField(max_length=16)),
                        ("ceiling", models.PositiveIntegerField(blank=True, null=True)),
                        ("ttl_seconds", models.PositiveIntegerField(blank=True, null=True)),
                        ("half_life_days", models.FloatField(blank=True, null=True)),
                        ("retire_below", models.FloatField(default=0.2)),
                        (
                            "eviction",
                            models.CharField(
                                choices=[("retire", "Retire"), ("erase", "Erase")],
                                default="retire",
                                max_length=8,
                            ),
                        ),
                        ("merge_duplicates", models.BooleanField(default=True)),
                        ("updated_by", models.CharField(blank=True, max_length=200)),
                        ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "tenant",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, to="accounts.tenant"
                            ),
                        ),
                    ],
                    options={
                        "verbose_name_plural": "kind policies",
                        "db_table": "curation_kindpolicy",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("tenant", "kind"), name="kindpolicy_tenant_kind"
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    ("retire_below__gte", 0), ("retire_below__lte", 1)
                                ),
                                name="kindpolicy_retire_below_range",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    ("half_life_days__isnull", True),
                                    ("half_life_days__gt", 0),
                                    _connector="OR",
                                ),
                                name="kindpolicy_half_life_positive",
                            ),
                        ],
                    },
                ),
            ],
        ),
    ]
