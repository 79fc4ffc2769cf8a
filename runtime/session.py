"""One run's world: the env built from a scene, its recorder when a video is asked for, the
viewer when one is; what ``claw "…"`` and each case of ``claw eval`` open.

::

    with Session("default", video=Path("run.mp4")) as session:
        session.reset(seed=0)
        result = run_instruction(session.env, "put the red block in the blue box", planner)
        session.save_video()
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from claw.envs.scene import SceneSpec
from claw.envs.tabletop import TabletopEnv
from claw.envs.video import RecordEpisode
from claw.perception.sensing import Sensing

if TYPE_CHECKING:  # imported where a run sees through a perceiver: a run on the truth needs none
    from claw.perception import Belief

SceneSource = str | Mapping[str, Any] | SceneSpec
"""A built-in scene's name or a YAML file, a scene as a mapping, or a spec."""


class Session:
    """An env on ``scene`` for one run, recorded to ``video`` (``.mp4`` or ``.gif``) or shown in
    MuJoCo's viewer when asked; closing the session closes both.

    Args:
        scene: The scene (see :data:`SceneSource`).
        video: Record the run to this file (written by :meth:`save_video`).
        viewer: Show the run in MuJoCo's viewer (needs a display).
        frame_size: The video's frames, (height, width); the env's default without it.
        fps: Video frames per simulated second; the env's rate without it.
        sensing: The perceiver the planner and the skills see through (``truth`` without
            it) and whether the sensor model is on; the goal is judged on the truth either
            way.

    Raises:
        InvalidSceneError: the scene cannot be built.
        InvalidPerceptionError: an unknown perceiver.
        RuntimeError: a viewer without a display.
    """

    def __init__(
        self,
        scene: SceneSource,
        *,
        video: Path | None = None,
        viewer: bool = False,
        frame_size: tuple[int, int] | None = None,
        fps: float | None = None,
        sensing: Sensing | None = None,
    ) -> None:
        sensing = (sensing or Sensing()).check()
        render_mode = "human" if viewer else ("rgb_array" if video is not None else None)
        if frame_size is None:
            self.env = TabletopEnv(scene=scene, render_mode=render_mode)
        else:
            self.env = TabletopEnv(scene=scene, render_mode=render_mode, render_size=frame_size)
        self.video = video
        self.reset_options = sensing.reset_options()
        self.belief: Belief | None = sensing.attach(self.env)
        self.recorder: RecordEpisode | None = None
        if video is not None:
            try:
                self.recorder = RecordEpisode(self.env, video, fps=fps)
            except BaseException:
                self.env.close()
                raise

    def reset(self, seed: int) -> None:
        """Put the scene in its start state for ``seed`` (the video starts here)."""
        (self.recorder or self.env).reset(seed=seed, options=self.reset_options)

    def save_video(self) -> Path | None:
        """Write the frames recorded since the reset; the video's path (``None``: no video)."""
        if self.recorder is None:
            return None
        self.recorder.save()
        return self.video

    def close(self) -> None:
        """Close the env (and its recorder, its viewer, its perceiver)."""
        if self.belief is not None:
            self.belief.detach()
        (self.recorder or self.env).close()

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
