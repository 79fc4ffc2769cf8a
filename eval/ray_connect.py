"""Joining Ray for a run: the addresses ``--ray`` takes, a connection deadline, Ray's own output
kept off the terminal, signals honoured, and workers at the caller's priority.

Ray is imported only here, and only when a run asks for it (``--ray``, the ``ray`` extra).
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import signal
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from claw.common.settings import env_seconds
from claw.eval.exceptions import InvalidRayOptionError, RayUnavailableError, RayUnreachableError
from claw.planner.text import clean_text

LOCAL = "local"
"""``--ray`` without an address: a Ray instance started for this run on this machine."""
FORWARDED_ENV = ("CLAW_HOME", "CLAW_EMBEDDER", "CLAW_MODEL", "CLAW_API_BASE", "CLAW_ANSWER_CACHE")
"""claw's settings a worker on another node must see as the driver does."""
CONNECT_TIMEOUT = 30.0
"""Seconds ``--ray ADDRESS`` waits for the cluster to answer before giving up."""
TIMEOUT_ENV = "CLAW_RAY_TIMEOUT"
"""The environment variable that sets another connection deadline, in seconds."""
_ADDRESS = re.compile(r"(?:ray://)?(?:[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\]):(?P<port>[0-9]{1,5})")
_CONNECTING = "claw-ray-connect"
"""The name of the thread that joins a cluster (it may outlive its deadline)."""


def check_address(address: str) -> str:
    """``address`` if it is one ``--ray`` takes: ``local``, ``auto``, ``ray://HOST:PORT`` or
    ``HOST:PORT`` (a running head's GCS), PORT from 1 to 65535.

    Raises:
        InvalidRayOptionError: anything else, e.g. a suite name or ``http://HOST:PORT``.
    """
    match = _ADDRESS.fullmatch(address)
    if address in (LOCAL, "auto") or (match and 0 < int(match["port"]) < 65536):
        return address
    raise InvalidRayOptionError(
        f"{clean_text(address, 80)!r} is no Ray address: one is local, auto, ray://HOST:PORT "
        "or HOST:PORT, PORT from 1 to 65535 (write --ray=ADDRESS, or --ray after the suite)"
    )


def connect_timeout() -> float:
    """The seconds to wait for a cluster: ``CLAW_RAY_TIMEOUT`` if set, else ``CONNECT_TIMEOUT``.

    Raises:
        InvalidRayOptionError: ``CLAW_RAY_TIMEOUT`` is not a number of seconds from 1 to 3600.
    """
    seconds = env_seconds(TIMEOUT_ENV, CONNECT_TIMEOUT, 1, 3600)
    if seconds is None:
        text = os.environ.get(TIMEOUT_ENV, "").strip()
        raise InvalidRayOptionError(
            f"{TIMEOUT_ENV}={clean_text(text, 40)!r}: the seconds to wait for a Ray cluster are a "
            f"number from 1 to 3600 (default {CONNECT_TIMEOUT:g})"
        )
    return seconds


def with_bare_ray_flag(args: list[str]) -> list[str]:
    """Command-line ``args`` with a bare ``--ray`` (last, or before an option or a word that is
    no address, e.g. the suite) written as ``--ray=local``. A word meant as an address (one with
    ``://``, or a colon and no ``/``) stays the address, for ``--ray``'s check to refuse."""
    out = list(args)
    for i, arg in enumerate(out):
        following = out[i + 1] if i + 1 < len(out) else "-"
        if arg == "--ray" and (following.startswith("-") or not _meant_as_address(following)):
            out[i] = f"--ray={LOCAL}"
    return out


def _meant_as_address(word: str) -> bool:
    if "://" in word or (":" in word and "/" not in word and "\\" not in word):
        return True
    try:
        return bool(check_address(word))
    except ValueError:
        return False


def ray_module() -> Any:
    """The ``ray`` module, imported now.

    Raises:
        RayUnavailableError: Ray is not installed.
    """
    try:
        import ray
    except ImportError:
        raise RayUnavailableError(
            "--ray needs Ray: pip install -e '.[ray]' (or pip install 'ray>=2.30')"
        ) from None
    warnings.filterwarnings("ignore", module=r"ray(\.|$)")  # Ray's own, e.g. its client's
    return ray


def connect(address: str = LOCAL, num_cpus: int | None = None) -> bool:
    """Join the Ray cluster at ``address`` (waiting at most :func:`connect_timeout` seconds) or
    start a local one with ``num_cpus`` CPUs whose workers run at this process's priority.

    Returns:
        True when this call started or joined Ray (the caller shuts it down: :func:`joined`
        does), False when this process was already connected.

    Raises:
        InvalidRayOptionError: a bad ``address`` or ``CLAW_RAY_TIMEOUT``.
        RayUnavailableError: Ray is not installed, or the cluster cannot be used
            (``RayUnreachableError``: nothing answers at ``address`` in time).
    """
    check_address(address)
    ray = ray_module()
    if ray.is_initialized():
        return False
    deadline = None if address == LOCAL else connect_timeout()
    env = {name: os.environ[name] for name in FORWARDED_ENV if name in os.environ}
    options: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": logging.ERROR,
        "log_to_driver": False,
        "runtime_env": {"env_vars": env} if env else None,
    }
    if address == LOCAL:  # Ray's workers add 15 to their raylet's niceness, this process's
        options.update(num_cpus=num_cpus, object_store_memory=256 * 1024**2)
        options["_system_config"] = {"worker_niceness": 0}
    try:
        if deadline is None:
            ray.init(address=None, **options)
        else:
            _init_within(ray, address, options, deadline)
    except RayUnavailableError:
        raise
    except Exception as exc:  # ConnectionError, a version mismatch ...
        first = next((line for line in str(exc).splitlines() if line.strip()), "")
        why = clean_text(first, 300) or type(exc).__name__
        raise RayUnavailableError(f"Ray at {address!r} cannot be used: {why}") from None
    return True


def _init_within(ray: Any, address: str, options: dict[str, Any], seconds: float) -> None:
    """``ray.init(address, **options)``, given up after ``seconds``; Ctrl-C stops the wait.

    Ray's connection blocks in native code that neither sees signals nor gives up for many
    minutes, so it runs in a thread of its own, left behind if it does not finish.
    """
    raised: list[BaseException] = []

    def init() -> None:
        try:
            ray.init(address=address, **options)
        except BaseException as exc:  # handed to the waiting thread
            raised.append(exc)

    thread = threading.Thread(target=init, name=_CONNECTING, daemon=True)
    thread.start()
    thread.join(seconds)  # Ctrl-C (or SIGTERM, see :func:`joined`) raises here
    if thread.is_alive():
        raise RayUnreachableError(
            f"Ray at {address!r} did not answer within {seconds:g} s: is a Ray head running "
            f"there (ray status --address ...)? ({TIMEOUT_ENV}=SECONDS waits longer)"
        )
    if raised:
        raise raised[0]


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM stops the block as Ctrl-C does (Ray's own handler exits without its results)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if before is None else before)


@contextmanager
def _native_stderr_to_log() -> Iterator[Path]:
    """Ray's native log lines (written to file descriptor 2) go to a log file for the block;
    ``sys.stderr`` (claw's messages, Python's) stays where it was. An empty log is removed;
    while a connection left behind (:func:`_init_within`) still runs, the log stays open."""
    sys.stderr.flush()
    fd, name = tempfile.mkstemp(prefix="claw-ray-", suffix=".log")
    saved = os.dup(2)
    os.dup2(fd, 2)
    os.close(fd)
    before = sys.stderr
    swapped = _writes_to_fd2(before)
    if swapped:  # the same stream, on a copy of the terminal's descriptor
        sys.stderr = os.fdopen(
            os.dup(saved), "w", buffering=1, encoding=before.encoding, errors="backslashreplace"
        )
    try:
        yield Path(name)
    finally:
        sys.stderr.flush()
        if any(t.name == _CONNECTING and t.is_alive() for t in threading.enumerate()):
            atexit.register(_remove_if_empty, name)
        else:
            os.dup2(saved, 2)
            if swapped:
                sys.stderr.close()
                sys.stderr = before
            _remove_if_empty(name)
        os.close(saved)


def _remove_if_empty(name: str) -> None:
    with suppress(OSError):
        if os.path.getsize(name) == 0:
            os.remove(name)


def _writes_to_fd2(stream: Any) -> bool:
    try:
        return bool(stream.fileno() == 2)
    except (AttributeError, OSError, ValueError):  # a captured or closed stream
        return False


@contextmanager
def joined(address: str = LOCAL, num_cpus: int | None = None) -> Iterator[None]:
    """Ray for the ``with`` block (see :func:`connect`), left again at its end (a local Ray
    stopped) if this block joined it; a connection made before stays as it was.

    In the block Ray's native log lines go to a file (named in a connection error), not the
    terminal, and SIGTERM stops it as Ctrl-C does (``KeyboardInterrupt``).
    """
    ray_module()  # imported first: Ray's Python logging keeps the process's own stderr
    with _native_stderr_to_log() as log:
        try:
            with _sigterm_interrupts():
                started = connect(address, num_cpus)
        except RayUnavailableError as exc:
            if log.is_file() and log.stat().st_size:
                raise type(exc)(f"{exc} (Ray's messages: {log})") from None
            raise
        with _sigterm_interrupts():  # again: a local Ray's start sets its own handler
            try:
                yield
            finally:
                if started:
                    ray_module().shutdown()


def niceness() -> int | None:
    """This process's niceness (None where the platform has none)."""
    return os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else None


def match_niceness(target: int) -> int:
    """Put every thread of this process at niceness ``target`` where it may be (raising it
    always can; lowering needs root or CAP_SYS_NICE, else it stays); its niceness now.

    Ray starts its workers at their raylet's niceness plus 15 (``worker_niceness``), so that a
    busy machine gives them the least CPU time, far less than the caller's own processes get.
    """
    try:  # on Linux a niceness is a thread's, and Ray's threads started before this task ran
        threads = [int(tid) for tid in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    for thread in threads:
        try:
            if os.getpriority(os.PRIO_PROCESS, thread) != target:
                os.setpriority(os.PRIO_PROCESS, thread, target)
        except OSError:  # not allowed to lower it, or the thread has ended
            pass
    return os.getpriority(os.PRIO_PROCESS, 0)
