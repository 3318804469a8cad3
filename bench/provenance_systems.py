"""The two systems the provenance scenarios replay against: a scratchpad
(what an agent without provenance keeps) and Tributary through its REST API
(see ``provenance_scenarios.py``)."""

from __future__ import annotations

import uuid
from typing import Any, Protocol

import httpx

# --- the two systems ---------------------------------------------------------


class System(Protocol):
    def observe(self, agent: str, content: str, family: str, uri: str) -> str: ...

    def learn(
        self, agent: str, content: str, parents: list[tuple[str, str]], confidence: float
    ) -> tuple[str, str]:
        """Returns (lesson id, the learner's belief id)."""
        ...

    def believe(
        self,
        agent: str,
        content: str,
        parents: list[tuple[str, str]],
        confidence: float,
        supports: str | None = None,
        contradicts: str | None = None,
    ) -> str: ...

    def corroborated(self, lesson: str) -> bool: ...

    def decide(self, agent: str, action: str, lesson: str) -> str: ...

    def invalidate(self, observation: str, reason: str) -> None: ...

    def flagged(self) -> set[str]: ...

    def belief_statuses(self, lesson: str) -> dict[str, str]: ...


class Scratchpad:
    """A shared list of notes. A lesson is corroborated when enough distinct
    agents agree with enough mean confidence; nothing else is known."""

    def __init__(self, policy: dict[str, Any]) -> None:
        self.policy = policy
        self.entries: list[dict[str, Any]] = []

    def _add(self, **entry: Any) -> str:
        entry["id"] = f"s{len(self.entries)}"
        self.entries.append(entry)
        return str(entry["id"])

    def observe(self, agent: str, content: str, family: str, uri: str) -> str:
        return self._add(kind="note", agent=agent, content=content)

    def learn(
        self, agent: str, content: str, parents: list[tuple[str, str]], confidence: float
    ) -> tuple[str, str]:
        claim = self._add(kind="claim", agent=agent, content=content, confidence=confidence)
        self.entries[-1]["lesson"] = claim  # the claim is its author's supporting belief
        self.entries[-1]["stance"] = "supports"
        return claim, claim

    def believe(
        self,
        agent: str,
        content: str,
        parents: list[tuple[str, str]],
        confidence: float,
        supports: str | None = None,
        contradicts: str | None = None,
    ) -> str:
        return self._add(
            kind="claim", agent=agent, content=content, confidence=confidence,
            lesson=supports or contradicts,
            stance="supports" if supports else "contradicts" if contradicts else None,
        )  # fmt: skip

    def corroborated(self, lesson: str) -> bool:
        agreeing = [
            e for e in self.entries
            if e["kind"] == "claim" and e.get("lesson") == lesson and e["stance"] == "supports"
        ]  # fmt: skip
        if not agreeing:
            return False
        agents = {e["agent"] for e in agreeing}
        mean = sum(e["confidence"] for e in agreeing) / len(agreeing)
        return (
            len(agents) >= self.policy["min_independent_sources"]
            and mean >= self.policy["min_confidence"]
        )

    def decide(self, agent: str, action: str, lesson: str) -> str:
        return self._add(kind="decision", agent=agent, content=action, lesson=lesson)

    def invalidate(self, observation: str, reason: str) -> None:
        self._add(kind="note", agent="curator", content=f"{observation} is wrong: {reason}")

    def flagged(self) -> set[str]:
        return set()

    def belief_statuses(self, lesson: str) -> dict[str, str]:
        return {e["id"]: "held" for e in self.entries if e["kind"] == "claim"}


class Tributary:
    """One tenant, talked to over HTTP."""

    def __init__(self, client: httpx.Client, slug: str) -> None:
        from accounts.services import tenant_ensure
        from accounts.tenancy import cross_tenant

        self.client = client
        self.slug = slug
        with cross_tenant(reason="benchmark set-up"):
            self.tenant_id = tenant_ensure(slug=slug).id
        self.keys: dict[str, str] = {}

    def headers(self, agent: str) -> dict[str, str]:
        if agent not in self.keys:
            from accounts.models import Role
            from accounts.services import agent_ensure, api_key_issue, tenant_ensure
            from accounts.tenancy import cross_tenant

            role = Role.CURATOR if agent == "curator" else Role.WRITER
            with cross_tenant(reason="benchmark set-up"):
                tenant = tenant_ensure(slug=self.slug)
                issued = api_key_issue(agent=agent_ensure(tenant=tenant, name=agent, role=role))
            self.keys[agent] = issued.plaintext
        return {"Authorization": f"Bearer {self.keys[agent]}"}

    def call(self, method: str, agent: str, path: str, body: Any = None, status: int = 200) -> Any:
        response = self.client.request(method, path, headers=self.headers(agent), json=body)
        if response.status_code != status:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.text[:500]}")
        return response.json()

    def observe(self, agent: str, content: str, family: str, uri: str) -> str:
        body = {"content": content, "source_type": "tool_output", "source_family": family,
                "source_uri": uri}  # fmt: skip
        return str(self.call("POST", agent, "/observations", body, 201)["id"])

    def learn(
        self, agent: str, content: str, parents: list[tuple[str, str]], confidence: float
    ) -> tuple[str, str]:
        body = {"content": content, "confidence": confidence,
                "derived_from": [{"type": t, "id": i} for t, i in parents]}  # fmt: skip
        request = self.call("POST", agent, "/learn", body, 202)
        process_pending(self.tenant_id)
        done = self.call("GET", agent, f"/learn/{request['id']}")
        if done["status"] != "applied" or not done["lesson"]:
            raise RuntimeError(f"learn did not apply: {done}")
        lesson = str(done["lesson"]["id"])
        lineage = self.call("GET", agent, f"/lessons/{lesson}/lineage")
        [belief] = [n["id"] for n in lineage["nodes"] if n["type"] == "belief"]
        return lesson, str(belief)

    def believe(
        self,
        agent: str,
        content: str,
        parents: list[tuple[str, str]],
        confidence: float,
        supports: str | None = None,
        contradicts: str | None = None,
    ) -> str:
        body: dict[str, Any] = {
            "content": content, "confidence": confidence,
            "derived_from": [{"type": t, "id": i} for t, i in parents],
        }  # fmt: skip
        if supports:
            body["supports"] = supports
        if contradicts:
            body["contradicts"] = contradicts
        return str(self.call("POST", agent, "/beliefs", body, 201)["id"])

    def lesson(self, lesson: str) -> dict[str, Any]:
        return dict(self.call("GET", "reader", f"/lessons/{lesson}"))

    def corroborated(self, lesson: str) -> bool:
        return self.lesson(lesson)["corroboration"] == "corroborated"

    def decide(self, agent: str, action: str, lesson: str) -> str:
        body = {"action": action, "based_on": [lesson]}
        return str(self.call("POST", agent, "/decisions", body, 201)["id"])

    def invalidate(self, observation: str, reason: str) -> None:
        self.call("POST", "curator", f"/observations/{observation}/invalidate", {"reason": reason})

    def flagged(self) -> set[str]:
        answer = self.call("GET", "reader", "/decisions?status=needs_review")
        return {str(d["id"]) for d in answer["decisions"]}

    def belief_statuses(self, lesson: str) -> dict[str, str]:
        lineage = self.call("GET", "reader", f"/lessons/{lesson}/lineage")
        return {str(n["id"]): n["status"] for n in lineage["nodes"] if n["type"] == "belief"}


def process_pending(tenant_id: uuid.UUID) -> None:
    """The worker's service, in this process, until the tenant has no
    pending learn left."""
    from memory.services.learn import learn_pending_drain

    learn_pending_drain(tenant_id=tenant_id)
