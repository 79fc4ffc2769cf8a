"""Episode videos: ``RecordEpisode`` frames, ``.mp4``/``.gif`` files that play, atomic writes."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from pathlib import Path

import imageio.v2 as imageio_v2
import imageio.v3 as iio
import numpy as np
import pytest

from claw.envs import TabletopEnv
from claw.envs.video import RecordEpisode, check_video_path, write_video

MakeEnv = Callable[..., TabletopEnv]

SIZE = (64, 96)  # multiples of 8: ffmpeg's macro blocks, so frames are not resized
STEPS = 8
# Moves the arm every step, so that consecutive frames differ (GIF writers merge equal frames).
MOVE = np.array([1.0, 0.0, -0.5, 0.5, 1.0], np.float32)


def _recorder(
    make_env: MakeEnv, path: Path, fps: float | None = None, steps: int = STEPS
) -> RecordEpisode:
    env = make_env(render_mode="rgb_array", render_size=SIZE)
    recorder = RecordEpisode(env, path, fps=fps)
    recorder.reset(seed=0)
    for _ in range(steps):
        recorder.step(MOVE)
    return recorder


def _folder(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir())


def test_recorded_mp4_and_gif_play(make_env: MakeEnv, tmp_path: Path) -> None:
    """a recorded episode file plays: both formats decode to the recorded frames."""
    recorder = _recorder(make_env, tmp_path / "episode.mp4")
    frames = recorder.frames
    assert len(frames) == STEPS + 1  # the reset, then every step
    assert all(f.shape == (*SIZE, 3) and f.dtype == np.uint8 for f in frames)
    assert all(not np.array_equal(a, b) for a, b in itertools.pairwise(frames))

    mp4 = recorder.save()
    gif = recorder.save(tmp_path / "episode.gif")
    assert (mp4, gif) == (tmp_path / "episode.mp4", tmp_path / "episode.gif")
    assert _folder(tmp_path) == ["episode.gif", "episode.mp4"]  # no temporary files left

    with imageio_v2.get_reader(mp4) as reader:
        assert reader.get_meta_data()["fps"] == pytest.approx(20.0)
        decoded = np.stack(list(reader.iter_data()))
    assert decoded.shape == (STEPS + 1, *SIZE, 3)
    # Lossy, but the same pictures in the same order.
    error = np.abs(decoded.astype(int) - np.stack(frames)).mean(axis=(1, 2, 3))
    assert error.max() < 8.0, error

    decoded = iio.imread(gif, index=None)
    assert decoded.shape[:3] == (STEPS + 1, *SIZE)
    error = np.abs(decoded[..., :3].astype(int) - np.stack(frames)).mean(axis=(1, 2, 3))
    assert error.max() < 8.0, error


def test_fps_sets_the_frame_rate_in_sim_time(make_env: MakeEnv, tmp_path: Path) -> None:
    recorder = _recorder(make_env, tmp_path / "sparse.mp4", fps=10)
    assert len(recorder.frames) == 1 + STEPS // 2
    with imageio_v2.get_reader(recorder.save()) as reader:
        assert reader.get_meta_data()["fps"] == pytest.approx(10.0)
        assert reader.count_frames() == 1 + STEPS // 2


def test_reset_starts_a_new_episode(make_env: MakeEnv, tmp_path: Path) -> None:
    recorder = _recorder(make_env, tmp_path / "a.gif", steps=2)
    assert len(recorder.frames) == 3
    recorder.reset(seed=1)
    recorder.step(MOVE)
    assert len(recorder.frames) == 2
    assert iio.imread(recorder.save(), index=None).shape[0] == 2


BAD_NAMES = ["episode.avi", "episode", "episode.mp4.txt"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_bad_suffix_is_rejected(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match=r"\.mp4 or \.gif"):
        check_video_path(tmp_path / name)
    with pytest.raises(ValueError, match=r"\.mp4 or \.gif"):
        write_video([np.zeros((8, 8, 3), np.uint8)], tmp_path / name, fps=20)
    assert _folder(tmp_path) == []
    assert check_video_path(tmp_path / "x.GIF").suffix == ".GIF"  # case does not matter


def test_recorder_rejects_bad_suffix(make_env: MakeEnv, tmp_path: Path) -> None:
    env = make_env(render_mode="rgb_array", render_size=SIZE)
    for name in BAD_NAMES:
        with pytest.raises(ValueError, match=r"\.mp4 or \.gif"):
            RecordEpisode(env, tmp_path / name)
    recorder = RecordEpisode(env, tmp_path / "ok.mp4")
    recorder.reset(seed=0)
    for name in BAD_NAMES:
        with pytest.raises(ValueError, match=r"\.mp4 or \.gif"):
            recorder.save(tmp_path / name)
    assert _folder(tmp_path) == []


def test_recording_needs_rgb_array_render_mode(make_env: MakeEnv, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="rgb_array"):
        RecordEpisode(make_env(), tmp_path / "episode.mp4")


def test_no_frames_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no frames"):
        write_video([], tmp_path / "empty.mp4", fps=20)
    assert _folder(tmp_path) == []


@pytest.mark.parametrize("suffix", [".mp4", ".gif"])
def test_failed_write_leaves_nothing_behind(tmp_path: Path, suffix: str) -> None:
    """The write is atomic: a failure leaves no temporary file and the old video intact."""
    path = tmp_path / f"episode{suffix}"
    frames = [np.full((16, 16, 3), 40 * i, np.uint8) for i in range(3)]
    write_video(frames, path, fps=10)
    before = path.read_bytes()
    mismatched = [*frames, np.zeros((24, 24, 3), np.uint8)]
    with pytest.raises(ValueError):
        write_video(mismatched, path, fps=10)
    assert _folder(tmp_path) == [path.name]
    assert path.read_bytes() == before
    (tmp_path / "sub").mkdir()
    with pytest.raises(ValueError):
        write_video(mismatched, tmp_path / "sub" / path.name, fps=10)
    assert _folder(tmp_path / "sub") == []


def test_frames_follow_sim_time_through_actuate(make_env: MakeEnv, tmp_path: Path) -> None:
    """Controllers that drive the env directly (skills) are recorded too, at the same rate."""
    recorder = _recorder(make_env, tmp_path / "skill.gif", steps=0)
    env = recorder.unwrapped
    target = env.data.ctrl[env.robot.arm_actuators].copy()
    for _ in range(50):  # 0.5 s of physics in 10 ms control periods
        target[0] += 0.004
        env.actuate(target, substeps=5)
    assert len(recorder.frames) == 1 + 10  # 20 frames a second of simulated time
    recorder.close()
    env.actuate(target, substeps=100)
    assert len(recorder.frames) == 11  # closed: no longer recording


def test_video_file_gets_ordinary_permissions(tmp_path: Path) -> None:
    path = write_video([np.zeros((8, 8, 3), np.uint8)] * 2, tmp_path / "perm.gif", fps=10)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
