"""The sensor model applied to images: a depth camera's noise, holes and quantisation, RGB noise
and lighting, and the calibration error of a camera's pose (levels in ``SensorNoise``)."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from claw.envs.randomization import SensorNoise

EDGE_JUMP = 0.01
"""A depth step (m) between neighbouring pixels that counts as an edge, at 1 m."""


def calibration_error(
    config: SensorNoise, rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """How far one camera truly is from its calibration: a position shift (m) and a small
    rotation as a quaternion (w, x, y, z), each uniform per axis up to the model's bounds."""
    shift = rng.uniform(-config.extrinsics_position, config.extrinsics_position, size=3)
    angles = np.radians(rng.uniform(-config.extrinsics_rotation, config.extrinsics_rotation, 3))
    angle = float(np.linalg.norm(angles))
    if angle < 1e-12:
        return shift, np.array([1.0, 0.0, 0.0, 0.0])
    axis = angles / angle
    turn = np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * axis])
    return shift, turn


def depth_edges(depth: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Pixels next to a depth step larger than :data:`EDGE_JUMP` (scaled by depth)."""
    padded = cv2.copyMakeBorder(depth, 1, 1, 1, 1, cv2.BORDER_REPLICATE)
    biggest = cv2.dilate(padded, np.ones((3, 3), np.uint8))[1:-1, 1:-1]
    smallest = cv2.erode(padded, np.ones((3, 3), np.uint8))[1:-1, 1:-1]
    return (biggest - smallest) > EDGE_JUMP * np.maximum(depth, 0.1)


def depth(
    image: NDArray[np.float32], config: SensorNoise, rng: np.random.Generator
) -> NDArray[np.float32]:
    """A depth image as a stereo depth camera returns it: Gaussian error growing with the square
    of depth, quantised in steps that grow likewise, and holes at a share of the edge pixels."""
    valid = image > 0
    squared = image * image
    noisy = image + rng.standard_normal(image.shape).astype(np.float32) * (
        config.depth_noise * squared
    )
    if config.depth_step > 0:
        step = np.maximum(config.depth_step * squared, 1e-6)
        noisy = np.round(noisy / step) * step
    holes = depth_edges(image) & (rng.random(image.shape) < config.edge_dropout)
    noisy[holes | ~valid] = 0.0
    return noisy.astype(np.float32)


def rgb(
    image: NDArray[np.uint8], config: SensorNoise, rng: np.random.Generator
) -> NDArray[np.uint8]:
    """An RGB frame under a lighting change (one brightness factor per frame) and per-pixel
    noise."""
    gain = 1.0 + rng.uniform(-config.lighting, config.lighting)
    noisy = image.astype(np.float32) * gain
    noisy += rng.standard_normal(image.shape).astype(np.float32) * config.rgb_noise
    return np.clip(noisy, 0, 255).astype(np.uint8)
