"""A fake OpenAI-compatible server on 127.0.0.1 for tests: scripted answers, each request
counted, and a gzip-encoded body of any decoded size made as it is sent (a decompression bomb
in a few kilobytes of memory)."""

from __future__ import annotations

import json
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHUNK = 1 << 20  # bytes of the bomb's content compressed at a time


@dataclass
class Script:
    """What the server answers: ``answers`` in turn (the last again once they run out), or,
    with ``bomb`` set, a gzip body whose content is that many bytes of ``a``."""

    answers: list[str] = field(default_factory=list)
    bomb: int = 0
    encoding: str = ""
    """A ``Content-Encoding`` to claim for a plain answer."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Every request's JSON body, in order."""
    sent: int = 0
    """Bytes written on the wire, in all."""
    accepted: list[str] = field(default_factory=list)
    """Every request's ``Accept-Encoding``."""


def completion(content: str) -> bytes:
    """An OpenAI chat completion whose message is ``content``."""
    message = {"role": "assistant", "content": content}
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "test",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70},
        }
    ).encode()


def gzip_bomb(size: int) -> bytes:
    """A gzip stream of a chat completion whose content is ``size`` bytes of ``a``; compressed
    a megabyte at a time, so making it never holds the decoded body."""
    head, tail = completion("\x00").split(b"\\u0000")
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    parts = [packer.compress(head)]
    block = b"a" * CHUNK
    for start in range(0, size, CHUNK):
        parts.append(packer.compress(block[: min(CHUNK, size - start)]))
    parts += [packer.compress(tail), packer.flush()]
    return b"".join(parts)


def _handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            script.requests.append(json.loads(body or b"{}"))
            script.accepted.append(self.headers.get("Accept-Encoding", ""))
            if script.bomb:
                data, encoding = gzip_bomb(script.bomb), "gzip"
            else:
                turn = min(len(script.requests), len(script.answers)) - 1
                data, encoding = completion(script.answers[turn]), script.encoding
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if encoding:
                self.send_header("Content-Encoding", encoding)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
                script.sent += len(data)
            except OSError:  # the client stopped reading
                pass

    return Handler


@contextmanager
def fake_server(script: Script) -> Iterator[str]:
    """Serve ``script`` on 127.0.0.1 while the block runs; its ``/v1`` address."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
