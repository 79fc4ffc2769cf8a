"""Where ``--tracker mlflow`` runs go, checked before a command starts: the store is probed once,
with a short deadline and no retries, and is refused in one line (its URI shown without a
password) when it cannot be used — MLflow's own client retries an unreachable server or an
unwritable SQLite file for minutes, then raises a long traceback.

What is probed: an ``http(s)://`` server answers one search of its experiments within
``CLAW_MLFLOW_PROBE_TIMEOUT`` seconds (default 3); a ``sqlite:///FILE`` database (MLflow's own
default, ``mlflow.db`` in the working directory, included) can be written, or created in its
folder; a plain path or ``file:`` URI is refused (MLflow 3 keeps runs in a database). Other
stores (``postgresql://``, ``databricks``...) are left to MLflow.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from claw.common.settings import env_seconds
from claw.learning.exceptions import InvalidConfigError, TrackingUnavailableError

PROBE_TIMEOUT = 3.0
"""Seconds a tracking server has to answer the probe (``CLAW_MLFLOW_PROBE_TIMEOUT``)."""
PROBE_TIMEOUT_VARIABLE = "CLAW_MLFLOW_PROBE_TIMEOUT"
QUIET_LOGGERS = ("mlflow", "alembic")
"""Loggers kept at WARNING while claw drives MLflow (their INFO lines never reach stderr)."""
_SEARCH = "/api/2.0/mlflow/experiments/search"
_SEARCH_FIELDS = {"experiments", "next_page_token"}


def quiet_mlflow() -> None:
    """MLflow's (and its migrations') INFO lines off: only warnings and errors reach stderr."""
    for name in QUIET_LOGGERS:
        logger = logging.getLogger(name)
        if logger.getEffectiveLevel() < logging.WARNING:
            logger.setLevel(logging.WARNING)


def hidden(uri: str) -> str:
    """``uri`` with the password in it (``user:PASSWORD@host``) shown as ``***``."""
    try:
        parts = urlsplit(uri)
        password = parts.password
    except ValueError:
        return uri
    if not password:
        return uri
    user = parts.username or ""
    netloc = parts.netloc.replace(f"{user}:{password}@", f"{user}:***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def hide_in(text: str, uri: str) -> str:
    """``text`` with ``uri``'s password, wherever it appears, shown as ``***``."""
    try:
        password = urlsplit(uri).password
    except ValueError:
        password = None
    return text.replace(password, "***") if password else text


def probe_timeout() -> float:
    """The probe's deadline: ``CLAW_MLFLOW_PROBE_TIMEOUT`` seconds, else ``PROBE_TIMEOUT``.

    Raises:
        InvalidConfigError: the variable is not a number from 0.1 to 600.
    """
    seconds = env_seconds(PROBE_TIMEOUT_VARIABLE, PROBE_TIMEOUT, 0.1, 600)
    if seconds is None:
        given = os.environ.get(PROBE_TIMEOUT_VARIABLE, "")[:40]
        raise InvalidConfigError(
            f"{PROBE_TIMEOUT_VARIABLE}={given!r}: allowed: a number of seconds from 0.1 to 600"
        )
    return seconds


def probe_store(tracking_uri: str | None, timeout: float | None = None) -> str:
    """Check that the tracking store runs would go to can be used; its URI.

    ``tracking_uri``: ``--tracking-uri``; ``None`` is MLflow's choice (``MLFLOW_TRACKING_URI``,
    else its default store in the working directory).

    Raises:
        TrackingUnavailableError: the server does not answer in time, refuses, or is no MLflow
            server; the SQLite file or its folder cannot be written; a path instead of a store.
        InvalidConfigError: ``CLAW_MLFLOW_PROBE_TIMEOUT`` is not a number of seconds.
    """
    import mlflow

    deadline = probe_timeout() if timeout is None else timeout
    quiet_mlflow()
    uri = tracking_uri or mlflow.get_tracking_uri()
    scheme = urlsplit(uri).scheme.lower() if "://" in uri or uri.startswith("file:") else ""
    if scheme in ("http", "https"):
        _probe_server(uri, deadline)
    elif scheme == "sqlite":
        _probe_sqlite(uri, default=tracking_uri is None)
    elif scheme in ("", "file"):
        raise TrackingUnavailableError(
            f"the tracking store {hidden(uri)!r} is a path, not a database or a server (MLflow 3 "
            "keeps runs in a database); allowed: sqlite:///FILE.db, http(s)://HOST:PORT (an "
            "MLflow server), or a database URL (postgresql://…)"
        )
    return uri


def _probe_server(uri: str, timeout: float) -> None:
    """One search of a server's experiments, no retries, within ``timeout`` seconds."""
    import requests

    parts = urlsplit(uri)
    host = parts.netloc.rpartition("@")[2]
    url = urlunsplit((parts.scheme, host, parts.path.rstrip("/") + _SEARCH, "", ""))
    user = parts.username or os.environ.get("MLFLOW_TRACKING_USERNAME")
    password = parts.password or os.environ.get("MLFLOW_TRACKING_PASSWORD")
    token = os.environ.get("MLFLOW_TRACKING_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    auth = (user, password or "") if user else None
    shown = hidden(uri)
    try:
        answer = requests.post(
            url, json={"max_results": 1}, headers=headers, auth=auth, timeout=timeout
        )
    except requests.RequestException as exc:
        raise TrackingUnavailableError(
            f"the tracking server {shown} cannot be reached within {timeout:g} s "
            f"({hide_in(_why(exc), uri)}); start it, or pass another --tracking-uri"
        ) from None
    if answer.status_code in (401, 403):
        raise TrackingUnavailableError(
            f"the tracking server {shown} refuses these credentials (HTTP {answer.status_code})"
        )
    if not answer.ok or not _searched(answer):
        raise TrackingUnavailableError(
            f"{shown} answered HTTP {answer.status_code} to {_SEARCH}, not with experiments: "
            "not an MLflow tracking server that can be used"
        )


def _searched(answer: Any) -> bool:
    """Whether an HTTP answer is an MLflow experiment search's (a JSON object of its fields
    only: another server answering 200 is no tracking store)."""
    try:
        body = answer.json()
    except ValueError:
        return False
    return isinstance(body, dict) and set(body) <= _SEARCH_FIELDS


def _why(exc: Exception) -> str:
    """What went wrong with a request, short: the system's words where there are some."""
    import requests

    text = " ".join(str(exc).split())
    found = re.search(r"\[Errno -?\d+\] [^'\")\]]+", text)
    if found is not None:
        return found.group().strip()
    if isinstance(exc, requests.Timeout):
        return "no answer"
    return f"{type(exc).__name__}: {text[:120]}"


def _probe_sqlite(uri: str, default: bool) -> None:
    """The SQLite file can be written, or created in its folder."""
    path = uri.split("://", 1)[1].split("?", 1)[0]
    if path in ("", "/", "/:memory:"):
        return  # an in-memory database
    database = Path(path[1:] if path.startswith("/") else path)
    which = "MLflow's default store (the working directory's)" if default else "the tracking store"
    try:
        if database.exists():
            database.open("r+b").close()
        elif not database.parent.is_dir():
            raise FileNotFoundError(2, "no such folder", str(database.parent))
        else:
            with tempfile.TemporaryFile(dir=database.parent):
                pass
    except OSError as exc:
        where = database if database.exists() else database.parent
        raise TrackingUnavailableError(
            f"{which} {hidden(uri)} cannot be written ({exc.strerror}: {where}); pass "
            "--tracking-uri sqlite:///A/WRITABLE/FOLDER/mlflow.db or a server's http(s)://URL"
        ) from None
