"""A real OpenAI-compatible chat-completions server for tests, on 127.0.0.1.

It speaks the wire format (``POST /v1/chat/completions`` -> a ``chat.completion`` JSON
object) and answers from a script: ``script(request_json, call_number) -> Reply``. Replies
can be a normal answer, an HTTP error with headers (429 + ``Retry-After``), a malformed
body, a hang longer than the client's timeout, or a slow answer. Every request body is
kept in ``requests`` so tests can check what was sent (and that no ground truth was).
"""
from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

__all__ = ["Reply", "ChatServer", "answer", "error", "malformed", "hang", "drop",
           "reasoning_answer"]


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict = field(default_factory=dict)
    delay_s: float = 0.0


def answer(text: str | None, delay_s: float = 0.0, model: str = "scripted",
           finish_reason: str = "stop", **message_fields) -> Reply:
    body = {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "finish_reason": finish_reason,
                         "message": {"role": "assistant", "content": text,
                                     **message_fields}}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}
    return Reply(200, json.dumps(body).encode(), {"Content-Type": "application/json"}, delay_s)


def error(status: int, message: str = "error", headers: dict | None = None) -> Reply:
    body = json.dumps({"error": {"message": message, "type": "test", "code": status}})
    return Reply(status, body.encode(), {"Content-Type": "application/json", **(headers or {})})


def malformed() -> Reply:
    return Reply(200, b'{"id": "x", "choices": [', {"Content-Type": "application/json"})


def hang(seconds: float = 5.0) -> Reply:
    return Reply(200, b"", {}, delay_s=seconds)


def drop() -> Reply:
    """The connection is closed without any response (a poisoned request)."""
    return Reply(0)


def reasoning_answer(reasoning: str, content: str | None = None,
                     finish_reason: str = "length") -> Reply:
    """A reasoning model's body: the reasoning in ``reasoning_content``, and ``content``
    null when the token budget ran out before any answer."""
    return answer(content, finish_reason=finish_reason, reasoning_content=reasoning)


Script = Callable[[dict, int], Reply]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        """A client that hangs up (a worker stopped mid-request) is normal here; the stock
        handler prints its traceback to stderr, where the tests read the CLI's own output."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class ChatServer:
    """``with ChatServer(script) as server: server.base_url``."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                    request = json.loads(self.rfile.read(length) or b"{}")
                except (ValueError, OSError):
                    return   # a client stopped mid-body: nothing to answer, nothing to print
                with outer._lock:
                    number = len(outer.requests)
                    outer.requests.append(request)
                reply = outer.script(request, number)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status == 0:     # drop(): hang up without answering
                    self.close_connection = True
                    return
                try:
                    self.send_response(reply.status)
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    @staticmethod
    def prompt_of(request: dict) -> str:
        return request["messages"][-1]["content"]
