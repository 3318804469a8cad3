"""The Grafana dashboard and the alert rules shipped in docs/observability
name only metrics the service exports (a renamed metric breaks this, not a
dashboard in production)."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from django.conf import settings
from prometheus_client.registry import REGISTRY

from config.metrics import ScrapeCollector

DOCS = settings.BASE_DIR / "docs" / "observability"
SUFFIXES = ("_bucket", "_count", "_sum", "_total")


def base(name: str) -> str:
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


@pytest.mark.django_db
def test_the_dashboard_and_the_alerts_use_only_exported_metrics():
    exported = {base(f.name) for f in REGISTRY.collect() if f.name.startswith("tributary_")}
    exported |= {base(f.name) for f in ScrapeCollector().collect()}
    dashboard = json.loads((DOCS / "grafana-dashboard.json").read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    rules = yaml.safe_load((DOCS / "prometheus-alerts.yml").read_text())["groups"][0]["rules"]
    exprs += [rule["expr"] for rule in rules]
    used = {base(name) for expr in exprs for name in re.findall(r"tributary_[a-z_]+", expr)}
    assert used and used <= exported, sorted(used - exported)
    # every metric the service exports is on the dashboard
    assert exported <= used, sorted(exported - used)
    assert {rule["alert"] for rule in rules} >= {
        "TributaryLearnBacklogGrowing", "TributaryWorkerMissing", "TributaryJudgeFallbacks",
        "TributarySerializationRetries",
    }  # fmt: skip
