"""A fake OpenAI-compatible server on 127.0.0.1 that answers chat completions by behaviour.

Its behaviour is chosen by the `--api-base` path: `http://127.0.0.1:PORT/b/BEHAVIOUR/CASE/v1`.
"""

from __future__ import annotations

import http.server
import socketserver
import threading
import time
from dataclasses import dataclass

from .answers import BEHAVIOURS, ROUTE, Reply, answer


@dataclass
class Request:
    behaviour: str
    size: int
    at: float


class FakeLLM:
    """A threaded HTTP server on 127.0.0.1 answering chat completions by behaviour."""

    def __init__(self) -> None:
        self.requests: dict[str, list[Request]] = {}
        self.custom: dict[str, str] = {}  # token -> content, for behaviour "custom"
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._send(Reply(status=404, body=b'{"error": {"message": "not here"}}'))

            def do_POST(self) -> None:
                try:
                    length = int(self.headers.get("content-length") or 0)
                    body = self.rfile.read(min(length, 64 * 1024 * 1024))
                    parts = self.path.strip("/").split("/")
                    behaviour, token = (
                        (parts[1], parts[2]) if len(parts) > 3 and parts[0] == "b" else ("?", "?")
                    )
                    if behaviour == "route":  # the behaviour named in the instruction
                        found = ROUTE.search(body)
                        behaviour = found.group(1).decode() if found else "?"
                    with server.lock:
                        log = server.requests.setdefault(token, [])
                        index = len(log)
                        log.append(Request(behaviour, len(body), time.monotonic()))
                    if behaviour == "custom":
                        reply = answer(server.custom.get(token, ""))
                    else:
                        reply = BEHAVIOURS.get(behaviour, lambda i: Reply(status=404))(index)
                    self._send(reply)
                except Exception:  # a client that hung up; nothing to report
                    pass

            def _send(self, reply: Reply) -> None:
                deadline = time.monotonic() + reply.delay_s
                while time.monotonic() < deadline and not server.stopping.is_set():
                    time.sleep(0.1)
                self.send_response(reply.status)
                headers = {"content-type": "application/json", **reply.headers}
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(reply.body)))
                self.end_headers()
                if not reply.trickle:
                    self.wfile.write(reply.body)
                    return
                for n, byte in enumerate(reply.body):  # bounded: the body, or 60 s
                    if n > 120 or server.stopping.is_set():
                        break
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.5)

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def base(self, behaviour: str, token: str) -> str:
        return f"http://127.0.0.1:{self.port}/b/{behaviour}/{token}/v1"

    def log(self, token: str) -> list[Request]:
        with self.lock:
            return list(self.requests.get(token, []))
