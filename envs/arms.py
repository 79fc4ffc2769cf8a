"""Arms of the tabletop: their names, bases and model prefixes, which arm a caller drives, and
:class:`Lockstep`, which runs one controller per arm in one simulation at the same time.

One arm (the default) stands at the origin, as it always has. With two, the same arm is mounted
twice beside each other at the table's near edge, both facing +x like a person's two arms:
``left`` at y = +ARM_SPACING / 2 (its MJCF names unprefixed, so one-arm code addresses it),
``right`` at y = -ARM_SPACING / 2 (its names prefixed ``right/``).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Literal, TypeVar

ArmName = Literal["left", "right"]
ARM_NAMES: tuple[str, ...] = ("left", "right")
ARM_PREFIX: dict[str, str] = {"left": "", "right": "right/"}
ARM_SPACING = 0.6  # m between the two bases
REST_REACH = 0.35  # m in front of its base: where an arm's claw is at rest (the MJCF's rest key)
MAX_ARMS = len(ARM_NAMES)

T = TypeVar("T")


def arm_names(count: int) -> tuple[str, ...]:
    """The names of a scene's arms: ``("left",)`` for one, ``("left", "right")`` for two."""
    return ARM_NAMES[:count]


def arm_base(arm: str, count: int) -> tuple[float, float, float]:
    """Where ``arm``'s base stands (world x, y, z) in a scene of ``count`` arms."""
    if count == 1:
        return (0.0, 0.0, 0.0)
    side = 1.0 if arm == "left" else -1.0
    return (0.0, side * ARM_SPACING / 2, 0.0)


class ArmContext:
    """Which arm the calling thread drives: the default arm unless a caller or a lane says."""

    def __init__(self, arms: tuple[str, ...]) -> None:
        self.arms = arms
        self._local = threading.local()

    @property
    def current(self) -> str:
        """The arm this thread drives now."""
        return getattr(self._local, "arm", self.arms[0])

    @property
    def lockstep(self) -> Lockstep | None:
        """The lockstep this thread is a lane of, or ``None`` outside parallel lanes."""
        return getattr(self._local, "lockstep", None)

    @property
    def others_busy(self) -> frozenset[str]:
        """The objects the other lanes work with: this lane's waits for rest leave them out
        (another arm's carried block moves while this one places)."""
        return getattr(self._local, "others_busy", frozenset())

    def check(self, arm: str) -> str:
        """``arm`` if the scene has it.

        Raises:
            ValueError: no such arm (the message lists the scene's arms).
        """
        if arm not in self.arms:
            raise ValueError(f"unknown arm {arm!r}; allowed: {', '.join(self.arms)}")
        return arm

    def bind(
        self, arm: str, lockstep: Lockstep | None = None, others_busy: frozenset[str] = frozenset()
    ) -> None:
        """Make ``arm`` this thread's arm (and ``lockstep`` its lane, beside lanes busy with
        ``others_busy``), until :meth:`release`."""
        self._local.arm = self.check(arm)
        self._local.lockstep = lockstep
        self._local.others_busy = others_busy

    def release(self) -> None:
        """Back to the default arm, outside any lane."""
        self._local.__dict__.clear()

    @contextlib.contextmanager
    def driving(self, arm: str) -> Iterator[None]:
        """Drive ``arm`` from this thread inside the ``with`` block (outside any lane).

        Raises:
            ValueError: no such arm.
            RuntimeError: this thread is a lane of a :class:`Lockstep` (its arm is fixed).
        """
        if self.lockstep is not None:
            raise RuntimeError(f"a {self.current} lane cannot drive the {arm} arm")
        before = getattr(self._local, "arm", None)
        self.bind(arm)
        try:
            yield
        finally:
            self.release()
            if before is not None:
                self.bind(before)


class Lockstep:
    """Runs one function per arm, each in its own thread, advancing one simulation together.

    A lane that asks the physics to advance (``request``) waits until every live lane has asked;
    then the physics advances by the shortest request and the lanes whose request is complete go
    on. Only one simulation exists and it only moves while every lane waits, so the result is
    deterministic and each lane's controller sees the state every other lane's sees.
    """

    def __init__(self, context: ArmContext, advance: Callable[[int], None]) -> None:
        self._context, self._advance = context, advance
        self._cond = threading.Condition()
        self._due: dict[str, int] = {}
        self._live: set[str] = set()

    def request(self, arm: str, substeps: int) -> None:
        """Called by ``arm``'s lane: block until the physics advanced ``substeps`` steps."""
        with self._cond:
            self._due[arm] = substeps
            self._cond.notify_all()
            self._cond.wait_for(lambda: arm not in self._due)

    def run(
        self, jobs: Mapping[str, Callable[[], T]], busy: Mapping[str, Iterable[str]] | None = None
    ) -> dict[str, T]:
        """Run every ``arm -> function`` at the same time; their results by arm. ``busy``: the
        objects each arm works with (:attr:`ArmContext.others_busy` of the other lanes).

        Raises:
            BaseException: the first lane's exception (by arm order), after every lane ended.
        """
        results: dict[str, T] = {}
        errors: dict[str, BaseException] = {}
        self._live = set(jobs)

        def lane(arm: str, job: Callable[[], T]) -> None:
            others = (names for other, names in (busy or {}).items() if other != arm)
            self._context.bind(arm, self, frozenset().union(*others))
            try:
                results[arm] = job()
            except BaseException as exc:  # handed to the caller below
                errors[arm] = exc
            finally:
                self._context.release()
                with self._cond:
                    self._live.discard(arm)
                    self._due.pop(arm, None)
                    self._cond.notify_all()

        threads = [threading.Thread(target=lane, args=item, daemon=True) for item in jobs.items()]
        for thread in threads:
            thread.start()
        with self._cond:
            while True:
                self._cond.wait_for(lambda: all(a in self._due for a in self._live))
                if not self._live:
                    break
                step = min(self._due[a] for a in self._live)
                self._advance(step)
                for arm in list(self._due):
                    self._due[arm] -= step
                    if self._due[arm] <= 0:
                        del self._due[arm]
                self._cond.notify_all()
        for thread in threads:
            thread.join()
        for arm in jobs:
            if arm in errors:
                raise errors[arm]
        return results
