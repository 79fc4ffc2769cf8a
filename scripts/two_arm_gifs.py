"""Film the two-arm runs the docs show (docs/two_arms_*.gif: README.md, the two-arms page).

    MUJOCO_GL=egl python scripts/two_arm_gifs.py

Each is ``claw "INSTRUCTION" --scene two_arms`` (seed 0, the offline planner) recorded at 10
frames per simulated second, 240 x 320, from the front camera (facing both arms).
"""

from __future__ import annotations

from pathlib import Path

from claw.planner.offline import OfflinePlanner
from claw.runtime import Session, run_instruction

RUNS = {
    "two_arms_handover.gif": "hand the red block to the other arm",
    "two_arms_lift.gif": "lift the bar with both arms",
}
OUT = Path(__file__).resolve().parents[1] / "docs"


def main() -> None:
    for name, instruction in RUNS.items():
        with Session("two_arms", video=OUT / name, frame_size=(240, 320), fps=10) as session:
            session.reset(0)
            result = run_instruction(session.env, instruction, OfflinePlanner())
            session.save_video()
        size = (OUT / name).stat().st_size / 1024
        print(f"{name}: {instruction!r} success={result.success} ({size:.0f} KiB)")


if __name__ == "__main__":
    main()
