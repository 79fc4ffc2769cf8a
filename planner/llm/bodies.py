"""A model's HTTP answer, bounded as it is decoded: ``MAX_BODY_BYTES`` of it at most.

litellm reads a provider's answer through httpx, whatever the provider (the OpenAI SDK's client,
or litellm's own handler), and httpx decodes a ``Content-Encoding: gzip`` body whole: 4 MB on
the wire can be 4 GiB in memory before any cap on the message applies. While a model call runs
(:func:`bounded_bodies`, in the thread making it), every body httpx reads in that thread is
decoded here instead, a bounded piece at a time (``zlib``'s ``max_length``), and the read stops
with :class:`BodyTooLarge` once the decoded bytes pass the cap. Other threads, and httpx outside
a model call, are untouched. Encodings read: identity, ``gzip``, ``deflate``, one layer: the
requests made inside say ``Accept-Encoding: gzip, deflate``, and a body in any other (``br``,
``zstd``, layers) is refused, since its decoded size cannot be bounded here.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from claw.planner.exceptions import BodyTooLarge

MAX_BODY_BYTES = 16 * 2**20
"""The most bytes of a model's answer read, decoded. An answer's message is read up to 1,000,000
characters (``claw.planner.text``), 12 MB at most in JSON's ``\\uXXXX`` escapes; a plan needs a
few KB."""
READ_ENCODINGS = ("identity", "gzip", "deflate")
PIECE = 2**16
"""The most bytes decoded at a time: a body over the cap is stopped within this of it."""


@dataclass
class BodyLimit:
    """The cap of one model call's bodies, and what stopped a read (``None``: nothing did)."""

    limit: int
    problem: str | None = None

    def refuse(self, problem: str) -> BodyTooLarge:
        """Keep ``problem`` (the first one) and the error that stops the read."""
        self.problem = self.problem or problem
        return BodyTooLarge(self.problem)


_scope = threading.local()
_installed: list[Callable[..., Any]] = []  # httpx's own iter_bytes and send, once patched


def size_text(size: int) -> str:
    """``16 MiB``, ``4 KiB``, ``512 B``."""
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} B"


@contextmanager
def bounded_bodies(limit: int | None = None) -> Iterator[BodyLimit]:
    """Bound every HTTP body httpx reads in this thread while the block runs (``limit``:
    ``MAX_BODY_BYTES`` unless given); the limit says whether one went over."""
    install()
    state = BodyLimit(MAX_BODY_BYTES if limit is None else limit)
    _scope.limit = state
    try:
        yield state
    finally:
        _scope.limit = None


def install() -> None:
    """Send httpx's requests through :func:`_send` and read its bodies through
    :func:`_iter_bytes` (once per process)."""
    import httpx

    if not _installed:
        _installed.extend((httpx.Response.iter_bytes, httpx.Client.send))
        setattr(httpx.Response, "iter_bytes", _iter_bytes)  # noqa: B010  (the hooks)
        setattr(httpx.Client, "send", _send)  # noqa: B010


def _send(client: Any, request: Any, **options: Any) -> Any:
    """httpx's ``Client.send``; inside :func:`bounded_bodies` it asks for no encoding but those
    read here (httpx asks for ``br`` and ``zstd`` too where their packages are installed)."""
    if getattr(_scope, "limit", None) is not None:
        request.headers["Accept-Encoding"] = ", ".join(READ_ENCODINGS[1:])
    return _installed[1](client, request, **options)


def _iter_bytes(response: Any, chunk_size: int | None = None) -> Iterator[bytes]:
    """httpx's ``Response.iter_bytes``, bounded in a thread inside :func:`bounded_bodies`."""
    state: BodyLimit | None = getattr(_scope, "limit", None)
    if state is None or hasattr(response, "_content"):  # not a model's, or read already
        yield from _installed[0](response, chunk_size)
        return
    encodings = [
        value.strip().lower()
        for value in response.headers.get_list("content-encoding", split_commas=True)
        if value.strip().lower() not in ("", "identity")
    ]
    if len(encodings) > 1 or (encodings and encodings[0] not in READ_ENCODINGS):
        raise state.refuse(f"its Content-Encoding {', '.join(encodings)!r} is not read")
    decoder = BoundedDecoder(encodings[0] if encodings else "identity", state)
    pieces = (piece for raw in response.iter_raw() for piece in decoder.decode(raw))
    if not chunk_size:
        yield from pieces
        return
    pending = bytearray()
    for piece in pieces:
        pending += piece
        while len(pending) >= chunk_size:
            yield bytes(pending[:chunk_size])
            del pending[:chunk_size]
    if pending:
        yield bytes(pending)


class BoundedDecoder:
    """Decodes one body a bounded piece at a time; past the cap it raises."""

    def __init__(self, encoding: str, state: BodyLimit) -> None:
        self.encoding, self.state, self.total = encoding, state, 0
        self.inflate: Any = None
        if encoding == "gzip":
            self.inflate = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif encoding == "deflate":
            self.inflate = zlib.decompressobj()
        self.first = True

    def decode(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of ``data``, each at most ``PIECE`` bytes (and the room left
        under the cap + 1)."""
        if self.inflate is None:
            yield self._counted(data)
            return
        while data:
            room = self.state.limit - self.total
            try:
                piece = self.inflate.decompress(data, min(room + 1, PIECE))
            except zlib.error as exc:
                if not (self.first and self.encoding == "deflate"):
                    raise self.state.refuse(f"its {self.encoding} body is broken: {exc}") from None
                self.inflate = zlib.decompressobj(-zlib.MAX_WBITS)  # deflate without its header
                self.first = False
                continue
            self.first = False
            if piece:
                yield self._counted(piece)
            data = self.inflate.unconsumed_tail

    def _counted(self, piece: bytes) -> bytes:
        self.total += len(piece)
        if self.total > self.state.limit:
            encoded = "" if self.encoding == "identity" else f" (Content-Encoding {self.encoding})"
            raise self.state.refuse(
                f"its answer is over {size_text(self.state.limit)} decoded{encoded}; a plan is a "
                "few KB"
            )
        return piece
