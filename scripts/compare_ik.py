"""Compare claw's damped least-squares IK with mink on the claw's arm: speed and accuracy.

Run: ``pip install mink && python scripts/compare_ik.py``. Both solve the same task (tool point
position, claw pointing down at a yaw) on the robot-only model, warm-started from the rest pose
(cold) or from the previous solution along a 1 mm-per-step path (tracking, as skills use it).
"""

from __future__ import annotations

import time

import mink
import numpy as np

from claw.envs.model import build_model
from claw.envs.robot import DifferentialIK, RobotIndex, down_rotation


def targets(n: int, seed: int = 0) -> list[tuple[np.ndarray, float]]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        x, y = rng.uniform(0.3, 0.65), rng.uniform(-0.3, 0.3)
        out.append((np.array([x, y, rng.uniform(0.02, 0.3)]), float(rng.uniform(-1.5, 1.5))))
    return out


def main() -> None:
    model = build_model([])
    index = RobotIndex.from_model(model)
    dls = DifferentialIK(model, index)
    configuration = mink.Configuration(model)
    task = mink.FrameTask("tcp", "site", position_cost=1.0, orientation_cost=1.0)
    limits = [mink.ConfigurationLimit(model)]
    goals = targets(200)

    def mink_solve(position: np.ndarray, yaw: float, q0: np.ndarray, iters: int) -> np.ndarray:
        q = model.key_qpos[0].copy()
        q[index.arm_qpos] = q0
        configuration.update(q)
        rotation = mink.SO3.from_matrix(down_rotation(yaw))
        task.set_target(mink.SE3.from_rotation_and_translation(rotation, position))
        for _ in range(iters):
            velocity = mink.solve_ik(configuration, [task], 0.01, "daqp", 1e-3, limits=limits)
            configuration.integrate_inplace(velocity, 0.01)
            error = task.compute_error(configuration)
            if np.linalg.norm(error[:3]) < 1e-4 and np.linalg.norm(error[3:]) < 1e-3:
                break
        return configuration.q[index.arm_qpos].copy()

    def error_of(q: np.ndarray, position: np.ndarray, yaw: float) -> tuple[float, float]:
        p, r = dls.tool_pose(q)
        angle = np.arccos(np.clip((np.trace(down_rotation(yaw).T @ r) - 1) / 2, -1, 1))
        return float(np.linalg.norm(p - position)), float(angle)

    rest = index.rest_qpos
    for name, solve in (
        ("claw DLS", lambda p, y, q, k: dls.solve(p, down_rotation(y), q, k)[0]),
        ("mink (daqp)", mink_solve),
    ):
        tic = time.perf_counter()
        errors = [error_of(solve(p, y, rest, 200), p, y) for p, y in goals]
        cold = (time.perf_counter() - tic) / len(goals)
        pos, rot = np.array(errors).T
        # Tracking: 1 mm steps along a line, one iteration a step.
        q = solve(goals[0][0], 0.0, rest, 200)
        start = goals[0][0]
        path = [start + np.array([0.001 * k, 0.0005 * k, 0.0]) for k in range(200)]
        tic = time.perf_counter()
        worst = 0.0
        for point in path:
            q = solve(point, 0.0, q, 1)
            worst = max(worst, error_of(q, point, 0.0)[0])
        step = (time.perf_counter() - tic) / len(path)
        pos99, rot99 = np.percentile(pos, 99) * 1e3, np.degrees(np.percentile(rot, 99))
        print(
            f"{name:12s} cold solve {cold * 1e3:6.2f} ms, position error p99 {pos99:.3f} mm, "
            f"rotation p99 {rot99:.3f} deg | tracking step {step * 1e6:6.1f} us, "
            f"worst error {worst * 1e3:.3f} mm"
        )


if __name__ == "__main__":
    main()
