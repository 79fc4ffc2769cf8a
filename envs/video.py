"""Record episodes to ``.mp4`` (imageio-ffmpeg) or ``.gif`` (Pillow)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from claw.common.outputs import check_output_file
from claw.envs.tabletop import TabletopEnv

VIDEO_SUFFIXES = (".mp4", ".gif")


def check_video_path(path: str | os.PathLike[str]) -> Path:
    """The path as a ``Path`` if a video we write (``.mp4``, ``.gif``) can go there."""
    return check_output_file(path, VIDEO_SUFFIXES, what="video file")


def write_video(frames: Sequence[np.ndarray], path: str | os.PathLike[str], fps: float) -> Path:
    """Write RGB frames (H x W x 3, uint8) to ``path``; the file appears whole or not at all."""
    import imageio.v2 as imageio

    path = check_video_path(path)
    if not frames:
        raise ValueError("no frames to write")
    suffix = path.suffix.lower()
    fd, tmp = tempfile.mkstemp(suffix=suffix, dir=path.parent, prefix=f".{path.stem}.")
    os.close(fd)
    try:
        if suffix == ".mp4":
            writer = imageio.get_writer(
                tmp, format="FFMPEG", fps=fps, codec="libx264", quality=7, macro_block_size=8
            )
            # Not ``with``: imageio's __exit__ skips close() on an error, which leaves ffmpeg
            # running to write the temporary file after it has been removed below.
            try:
                for frame in frames:
                    writer.append_data(frame)
            finally:
                writer.close()
        else:
            imageio.mimsave(tmp, list(frames), format="GIF", duration=1000.0 / fps, loop=0)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as a plainly created file, not mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


class RecordEpisode(gym.Wrapper[Any, Any, Any, Any]):
    """Keep frames of ``env.render()`` at a fixed rate of simulated time; ``save`` writes them.

    Frames are taken whenever the physics advances past the next frame time, whether through
    ``step`` or through controllers driving the env directly (skills), so a video shows all that
    happened. The wrapped env must have ``render_mode="rgb_array"``. Frames accumulate from one
    reset to the next.
    """

    def __init__(
        self, env: gym.Env[Any, Any], path: str | os.PathLike[str], fps: float | None = None
    ):
        super().__init__(env)
        if env.render_mode != "rgb_array":
            raise ValueError("RecordEpisode needs an env made with render_mode='rgb_array'")
        self.path = check_video_path(path)
        self.fps = float(fps or env.metadata.get("render_fps", 20))
        if self.fps <= 0:
            raise ValueError(f"fps must be positive, got {self.fps}")
        self.frames: list[np.ndarray] = []
        self._next_time = np.inf
        tabletop = env.unwrapped
        if not isinstance(tabletop, TabletopEnv):
            raise ValueError(f"RecordEpisode records a TabletopEnv, not {type(tabletop).__name__}")
        self._tabletop = tabletop
        tabletop.step_callbacks.append(self._on_advance)

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self.frames = [self._frame()]
        self._next_time = self._sim_time() + 1.0 / self.fps
        return obs, info

    def _sim_time(self) -> float:
        return float(self._tabletop.data.time)

    def _on_advance(self, _env: Any) -> None:
        now = self._sim_time()
        if now + 1e-9 >= self._next_time:
            self.frames.append(self._frame())
            while self._next_time <= now + 1e-9:
                self._next_time += 1.0 / self.fps

    def _frame(self) -> np.ndarray:
        frame = self.env.render()
        assert isinstance(frame, np.ndarray)
        return frame

    def save(self, path: str | os.PathLike[str] | None = None) -> Path:
        """Write the frames recorded since the last reset; returns the file written."""
        return write_video(self.frames, path or self.path, self.fps)

    def close(self) -> None:
        callbacks = self._tabletop.step_callbacks
        if self._on_advance in callbacks:
            callbacks.remove(self._on_advance)
        super().close()
