"""Suite cases as Ray tasks: the same cases, seeds and scenes as local workers, on a cluster.

Cases run in tasks of one CPU, a few cases each. Results come back as tasks finish; a case whose
worker or node dies is retried once by Ray and reported as failed if it dies again. Ray is
imported only here, and only when a run asks for it (``claw eval --ray``, the ``ray`` extra).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from claw.eval.exceptions import RayUnavailableError
from claw.eval.suite import Case, Suite

if TYPE_CHECKING:
    from claw.eval.runner import CaseResult
    from claw.planner.completion import ModelSettings

LOCAL = "local"
"""``--ray`` without an address: a Ray instance started for this run on this machine."""
RETRIES = 1
"""How often a case lost with its worker or node is run again before it is reported."""
FORWARDED_ENV = ("CLAW_HOME", "CLAW_EMBEDDER", "CLAW_MODEL", "CLAW_API_BASE")
"""claw's settings a worker on another node must see as the driver does."""


class CaseOutcome(BaseModel):
    """What a case's task sent back: its result as local workers give it, and where it ran."""

    index: int
    result_json: str | None = None
    answers: dict[str, str] = Field(default_factory=dict)
    node: str = ""
    lost: str = ""
    """Why the case has no result (its worker or node died twice); empty when it ran."""


def check_address(address: str) -> str:
    """``address`` if it is one ``--ray`` takes: ``local``, ``auto``, ``ray://HOST:PORT`` or
    ``HOST:PORT`` (a running head's GCS).

    Raises:
        ValueError: anything else, e.g. a suite name taken as the address.
    """
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if address in (LOCAL, "auto") or (host and port.isdigit()):
        return address
    raise ValueError(
        f"--ray got {address!r}: an address is local, auto, ray://HOST:PORT or HOST:PORT "
        "(write --ray=ADDRESS, or --ray after the suite)"
    )


def with_bare_ray_flag(args: list[str]) -> list[str]:
    """Command-line ``args`` with a bare ``--ray`` (last, or before an option or a word that is
    no address, e.g. the suite) written as ``--ray=local``."""
    out = list(args)
    for i, arg in enumerate(out):
        if arg != "--ray":
            continue
        following = out[i + 1] if i + 1 < len(out) else "-"
        try:
            if not following.startswith("-"):
                check_address(following)
                continue
        except ValueError:
            pass
        out[i] = f"--ray={LOCAL}"
    return out


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
    return ray


def connect(address: str = LOCAL, num_cpus: int | None = None) -> bool:
    """Join the Ray cluster at ``address`` or start a local one with ``num_cpus`` CPUs.

    Returns:
        True when this call started or joined Ray (the caller shuts it down: :func:`joined`
        does), False when this process was already connected.

    Raises:
        RayUnavailableError: Ray is not installed or the cluster does not answer.
    """
    ray = ray_module()
    if ray.is_initialized():
        return False
    env = {name: os.environ[name] for name in FORWARDED_ENV if name in os.environ}
    options: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": logging.ERROR,
        "log_to_driver": False,
        "runtime_env": {"env_vars": env} if env else None,
    }
    if address == LOCAL:
        options.update(num_cpus=num_cpus, object_store_memory=256 * 1024**2)
    try:
        ray.init(address=None if address == LOCAL else address, **options)
    except Exception as exc:  # ConnectionError, a timeout, a version mismatch ...
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RayUnavailableError(f"Ray at {address!r} cannot be used: {first}") from None
    return True


@contextmanager
def joined(address: str = LOCAL, num_cpus: int | None = None) -> Iterator[None]:
    """Ray for the ``with`` block (see :func:`connect`), left again at its end (a local Ray
    stopped) if this block joined it; a connection made before stays as it was."""
    started = connect(address, num_cpus)
    try:
        yield
    finally:
        if started:
            ray_module().shutdown()


def cluster_cpus() -> int:
    """The CPUs the connected cluster has, all nodes together."""
    return int(ray_module().cluster_resources().get("CPU", 0))


def _run_case(
    suite_json: str,
    index: int,
    planner: str,
    record: bool,
    prefer: str | None,
    settings_json: str | None,
) -> CaseOutcome:
    """One case in a Ray worker, exactly as a local worker runs it."""
    import ray

    from claw.eval.runner import _worker

    text, answers = _worker((suite_json, index, planner, record, prefer, settings_json))
    node = ray.get_runtime_context().get_node_id()
    return CaseOutcome(index=index, result_json=text, answers=answers, node=node)


CASES_PER_TASK = 4
"""The most cases one task runs: Ray's dispatch costs a worker 10–20 ms between tasks here (a
0.2 s case), so a few cases share a task while every CPU still gets several tasks."""


def chunks(count: int, cpus: int) -> list[list[int]]:
    """Case indices in runs of at most ``CASES_PER_TASK``, at least four tasks per CPU."""
    size = max(1, min(CASES_PER_TASK, count // max(1, 4 * cpus)))
    return [list(range(i, min(i + size, count))) for i in range(0, count, size)]


def _run_chunk(
    case_fn: Callable[..., CaseOutcome], suite_json: str, indices: list[int], *args: Any
) -> list[CaseOutcome]:
    """Cases ``indices``, one after another in this worker."""
    return [case_fn(suite_json, index, *args) for index in indices]


def run_cases(
    suite_json: str,
    cases: list[Case],
    planner: str,
    record: bool,
    prefer: str | None,
    settings_json: str | None,
    case_fn: Callable[..., CaseOutcome] = _run_case,
) -> Iterator[CaseOutcome]:
    """Every case of the suite run by ``case_fn`` in Ray tasks (a few cases each, see
    :func:`chunks`) where Ray places them; outcomes as their tasks finish.

    Ctrl-C (or leaving the loop early) cancels the cases not yet finished.
    """
    ray = ray_module()
    task = ray.remote(num_cpus=1, max_retries=RETRIES)(_run_chunk)
    suite_ref = ray.put(suite_json)
    args = (planner, record, prefer, settings_json)
    pending: dict[Any, list[int]] = {
        task.remote(case_fn, suite_ref, indices, *args): indices
        for indices in chunks(len(cases), cluster_cpus())
    }
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                yield from _outcomes(ray, ref, pending.pop(ref))
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


def _outcomes(ray: Any, ref: Any, indices: list[int]) -> list[CaseOutcome]:
    """A finished task's outcomes; a task that raised in a case re-raises it here, one lost
    with its worker or node (after the retry) gives lost outcomes."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:  # a case itself raised: as a local run would
        raise exc.as_instanceof_cause() from None
    except ray.exceptions.RayError as exc:  # worker crashed, node died, object lost ...
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        why = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
        lost = f"lost twice with its worker or node ({why})"
        return [CaseOutcome(index=index, lost=lost) for index in indices]


def run_suite_cases(
    suite: Suite,
    planner: str,
    workers: int,
    record: bool,
    prefer: str | None,
    settings: ModelSettings | None,
    address: str,
    results: list[CaseResult | None],
    recorded: dict[str, str],
    ran_on: dict[str, int],
    progress: Callable[[CaseResult], None] | None,
) -> None:
    """:func:`claw.eval.runner.run_suite`'s cases as Ray tasks, filling ``results`` (by case),
    ``recorded`` (the answers) and ``ran_on`` (cases per node) as they finish."""
    from claw.eval.runner import CaseResult
    from claw.library import policy_source

    policy_source()  # synced here once, before any worker opens it
    model = settings.model_dump_json() if settings is not None else None
    with (
        joined(address, num_cpus=workers if workers > 1 else None),
        closing(
            run_cases(suite.model_dump_json(), suite.cases, planner, record, prefer, model)
        ) as outcomes,  # closed early (Ctrl-C), the cases not yet finished are cancelled
    ):
        for outcome in outcomes:
            case = suite.cases[outcome.index]
            if outcome.result_json is None:
                result = CaseResult(id=case.id, tags=case.tags, success=False, reason=outcome.lost)
            else:
                result = CaseResult.model_validate_json(outcome.result_json)
                ran_on[outcome.node] = ran_on.get(outcome.node, 0) + 1
            results[outcome.index] = result
            recorded.update(outcome.answers)
            if progress is not None:
                progress(result)
