"""The LangChain tools: their schemas (every belief-writing tool requires
``derived_from``) and calls against the live service."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ValidationError
from tributary_client import AsyncTributary, Tributary
from tributary_client.langchain import tributary_tools

from tests.conftest import make_caller, process_pending

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = ["tribal_recall", "tribal_learn", "tribal_observe", "tribal_believe", "tribal_reinforce"]


def tools_by_name(client: Tributary | AsyncTributary) -> dict[str, StructuredTool]:
    tools = tributary_tools(client, learn_wait=0)
    assert [tool.name for tool in tools] == NAMES
    return {tool.name: tool for tool in tools}


def parameters(tool: StructuredTool) -> dict:
    """What a model is shown: the OpenAI function-calling schema."""
    return convert_to_openai_tool(tool)["function"]["parameters"]


def test_belief_writing_tools_require_derived_from():
    tools = tools_by_name(Tributary("http://unused.test", "trib_k"))
    learn, believe = parameters(tools["tribal_learn"]), parameters(tools["tribal_believe"])
    assert "derived_from" in learn["required"] and "derived_from" in believe["required"]
    assert believe["properties"]["derived_from"]["minItems"] == 1
    assert "minItems" not in learn["properties"]["derived_from"]  # [] = first-hand
    parent = learn["properties"]["derived_from"]["items"]
    assert set(parent["properties"]) == {"type", "id"}
    assert parent["properties"]["type"]["enum"] == ["observation", "belief", "lesson"]
    assert parameters(tools["tribal_recall"])["required"] == ["query"]

    with pytest.raises(ValidationError, match="derived_from"):
        tools["tribal_learn"].invoke({"content": "Restart the cache after deploys."})
    with pytest.raises(ValidationError, match="derived_from"):
        tools["tribal_believe"].invoke({"content": "It works.", "derived_from": []})
    with pytest.raises(ValidationError, match="type"):
        tools["tribal_believe"].invoke(
            {"content": "It works.", "derived_from": [{"type": "rumour", "id": "x"}]}
        )


def test_descriptions_say_when_to_use_the_memory_and_when_not():
    tools = tools_by_name(Tributary("http://unused.test", "trib_k"))
    for name in NAMES:
        description = tools[name].description
        assert "Use it" in description and "Do not" in description
    assert "pure computation" in tools["tribal_recall"].description
    assert "untrusted data" in tools["tribal_recall"].description


def test_an_agent_observes_learns_recalls_believes_and_reinforces_through_the_tools(live_server):
    alice = make_caller("acme", "alice")
    bob = make_caller("acme", "bob")
    with (
        Tributary(live_server.url, alice.key) as as_alice,
        Tributary(live_server.url, bob.key) as as_bob,
    ):
        mine, theirs = tools_by_name(as_alice), tools_by_name(as_bob)
        seen = json.loads(
            mine["tribal_observe"].invoke(
                {"content": "pytest exited 137 on the 2 GB runner.", "source_type": "log"}
            )
        )
        assert seen["type"] == "observation"
        # As a model calls it: a tool call in, a ToolMessage out.
        message = mine["tribal_learn"].invoke(
            {
                "type": "tool_call",
                "id": "call-1",
                "name": "tribal_learn",
                "args": {
                    "content": "The test suite needs a runner with at least 4 GB of memory.",
                    "derived_from": [{"type": "observation", "id": seen["id"]}],
                    "kind": "fact",
                },
            }
        )
        assert isinstance(message, ToolMessage) and message.tool_call_id == "call-1"
        learned = json.loads(str(message.content))
        assert learned["status"] == "pending"
        process_pending(alice.agent.tenant_id)
        [lesson] = as_alice.lessons()
        assert lesson.kind == "fact" and lesson.author == "alice"
        assert as_alice.learn_request(learned["request_id"]).lesson == lesson

        recalled = json.loads(theirs["tribal_recall"].invoke({"query": "runner memory for tests"}))
        assert "untrusted data" in recalled["untrusted_data"]
        [hit] = recalled["results"]
        assert hit["id"] == lesson.id and hit["trust"]["author"] == "alice"

        # The service's refusals come back as something the model can read.
        cycle = json.loads(
            theirs["tribal_believe"].invoke(
                {
                    "content": "Alice says the suite needs 4 GB.",
                    "derived_from": [{"type": "lesson", "id": lesson.id}],
                    "supports": lesson.id,
                }
            )
        )
        assert cycle["error"]["status"] == 409 and cycle["error"]["code"] == "provenance_cycle"
        ci_log = json.loads(
            theirs["tribal_observe"].invoke({"content": "CI run 88: OOM-killed at 2 GB."})
        )
        belief = json.loads(
            theirs["tribal_believe"].invoke(
                {
                    "content": "2 GB is too little for the test suite.",
                    "derived_from": [{"type": "observation", "id": ci_log["id"]}],
                    "supports": lesson.id,
                }
            )
        )
        assert belief["type"] == "belief"
        reinforced = json.loads(
            theirs["tribal_reinforce"].invoke(
                {"lesson_id": lesson.id, "evidence": {"content": "CI run 91: passed with 4 GB."}}
            )
        )
        assert reinforced["reinforcement_count"] == 1
        lineage = as_alice.lineage(lesson.id)
        assert {n.id for n in lineage.of_type("belief")} >= {belief["id"]}
        after = as_alice.lesson(lesson.id)
        assert (after.agreeing_agents, after.independent_sources) == (2, 3)

        eve = make_caller("globex", "eve")
        with Tributary(live_server.url, eve.key) as as_eve:
            refused = json.loads(tools_by_name(as_eve)["tribal_reinforce"].invoke(
                {"lesson_id": lesson.id}
            ))  # fmt: skip
        assert refused["error"]["status"] == 404 and refused["error"]["code"] == "not_found"


def test_the_tools_are_async_with_the_async_client(live_server):
    alice = make_caller("acme", "alice")

    async def scenario() -> dict:
        async with AsyncTributary(live_server.url, alice.key) as client:
            tools = tools_by_name(client)
            seen = json.loads(await tools["tribal_observe"].ainvoke({"content": "Disk 91% full."}))
            return json.loads(
                await tools["tribal_learn"].ainvoke(
                    {
                        "content": "Rotate the logs when the disk is over 90% full.",
                        "derived_from": [{"type": "observation", "id": seen["id"]}],
                    }
                )
            )

    learned = asyncio.run(scenario())
    assert learned["status"] == "pending"
    process_pending(alice.agent.tenant_id)
    with Tributary(live_server.url, alice.key) as client:
        result = client.learn_request(learned["request_id"])
        assert result.outcome == "inserted" and result.lesson is not None
        assert result.lesson.independent_sources == 1
