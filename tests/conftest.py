from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pytest
from django.db import connection

from accounts.models import Agent, Role
from accounts.services import agent_ensure, api_key_issue, tenant_ensure
from accounts.tenancy import cross_tenant
from config.embedded import EmbeddedPostgres
from tests.embedded_stack import DATA_DIR


@dataclass(frozen=True)
class Caller:
    agent: Agent
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def make_caller(tenant: str, agent: str, role: Role = Role.WRITER) -> Caller:
    """A tenant, an agent and a fresh key, committed the way issue_key does."""
    with cross_tenant(reason="test setup"):
        t = tenant_ensure(slug=tenant)
        a = agent_ensure(tenant=t, name=agent, role=role)
        issued = api_key_issue(agent=a)
    return Caller(agent=a, key=issued.plaintext)


@pytest.fixture
def superuser_sql() -> Iterator[psycopg.Connection]:
    """A superuser connection to the test database: for looking under RLS
    and for breaking things on purpose."""
    dsn = EmbeddedPostgres(DATA_DIR).dsn(dbname=connection.settings_dict["NAME"])
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn
