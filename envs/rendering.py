"""Offscreen images (MuJoCo's renderer, headless through EGL) and the interactive viewer."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # mujoco is imported only once MUJOCO_GL is settled (see claw.envs)
    import mujoco


def has_display() -> bool:
    """True when a window can be opened (an X11 or Wayland display is set)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class Renderers:
    """Offscreen renderers by image size for one model, and an optional passive viewer."""

    def __init__(self, model: mujoco.MjModel) -> None:
        self.model = model
        self._offscreen: dict[tuple[int, int], mujoco.Renderer] = {}
        self._viewer: Any = None

    def image(self, data: mujoco.MjData, size: tuple[int, int], camera: str) -> np.ndarray:
        """An RGB image (height x width x 3, uint8) of ``data`` from a named camera."""
        renderer = self._offscreen.get(size)
        if renderer is None:
            import mujoco

            try:
                renderer = mujoco.Renderer(self.model, *size)
            except mujoco.FatalError as exc:
                raise RuntimeError(
                    f"offscreen rendering failed ({exc}); without a display set MUJOCO_GL=egl "
                    "before mujoco is first imported (importing claw.envs first does this)"
                ) from None
            self._offscreen[size] = renderer
        renderer.update_scene(data, camera=camera)
        return renderer.render()

    def sync_viewer(self, data: mujoco.MjData) -> None:
        """Show ``data`` in MuJoCo's interactive viewer, opening it on first use."""
        if self._viewer is None:
            import mujoco.viewer

            self._viewer = mujoco.viewer.launch_passive(self.model, data)
        self._viewer.sync()

    def close(self) -> None:
        for renderer in self._offscreen.values():
            renderer.close()
        self._offscreen.clear()
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None
