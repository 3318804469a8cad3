"""A fake LLM provider: a real HTTP server on loopback speaking the OpenAI
Chat Completions and Anthropic Messages wire formats, answering from a
script so tests can make it agree, contradict, return malformed JSON, time
out or answer 429."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def verdict(relation: str, target: str | None = None, confidence: float = 0.9) -> dict[str, Any]:
    return {"verdict": {"relation": relation, "target": target, "confidence": confidence,
                        "rationale": f"fake says {relation}"}}  # fmt: skip


MALFORMED = {"raw": "{'relation': duplicate"}  # not JSON
RATE_LIMITED = {"status": 429}
SERVER_ERROR = {"status": 500}


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """An answer that calls tools: (name, arguments) each."""
    return {"tool_calls": list(calls)}


def slow(seconds: float) -> dict[str, Any]:
    return {"sleep": seconds}


@dataclass
class FakeLLM:
    url: str = ""
    script: list[dict[str, Any]] = field(default_factory=list)
    default: dict[str, Any] | None = None  # the answer once the script has run out
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_step(self) -> dict[str, Any]:
        with self.lock:
            if not self.script:
                if self.default is not None:
                    return self.default
                raise AssertionError("the fake LLM was called more often than scripted")
            return self.script.pop(0)


def _openai_body(step: dict[str, Any], model: str) -> dict[str, Any]:
    if "tool_calls" in step:
        calls = [{"id": f"call_{i}", "type": "function",
                  "function": {"name": name, "arguments": json.dumps(args)}}
                 for i, (name, args) in enumerate(step["tool_calls"])]  # fmt: skip
        return {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None, "tool_calls": calls}}],
            "usage": {"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320},
        }  # fmt: skip
    content = step["raw"] if "raw" in step else json.dumps(step["verdict"])
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 210, "completion_tokens": 32, "total_tokens": 242,
                  "cost": 0.00042},
    }  # fmt: skip


def _anthropic_body(step: dict[str, Any], model: str) -> dict[str, Any]:
    if "tool_calls" in step:
        return {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args}
                        for i, (name, args) in enumerate(step["tool_calls"])],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 290, "output_tokens": 30},
        }  # fmt: skip
    if "raw" in step:  # text instead of the forced tool call
        content = [{"type": "text", "text": step["raw"]}]
    else:
        content = [{"type": "tool_use", "id": "toolu_fake", "name": "record_verdict",
                    "input": step["verdict"]}]  # fmt: skip
    return {
        "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 190, "output_tokens": 28},
    }  # fmt: skip


@contextmanager
def fake_llm() -> Iterator[FakeLLM]:
    fake = FakeLLM()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            headers = {k.lower(): v for k, v in self.headers.items()}
            fake.requests.append({"path": self.path, "headers": headers, "body": body})
            step = fake.next_step()
            if "sleep" in step:
                time.sleep(step["sleep"])
                step = {"status": 504}
            if "status" in step:
                kind = "rate_limit_error" if step["status"] == 429 else "api_error"
                payload = json.dumps({"error": {"type": kind, "message": "fake"}}).encode()
                self.send_response(step["status"])
                if step["status"] == 429:
                    self.send_header("retry-after", "0")
            else:
                make = _openai_body if self.path.endswith("/chat/completions") else _anthropic_body
                payload = json.dumps(make(step, body.get("model", ""))).encode()
                self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(payload)  # (a timed-out client has gone)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
