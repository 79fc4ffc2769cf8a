"""The ground truth of the tabletop, read from the live MuJoCo state: object speeds, finger
contacts, and the :class:`~claw.envs.state.WorldState` snapshot the predicates judge.

:class:`GroundTruth` is a part of :class:`~claw.envs.tabletop.TabletopEnv` (a mixin): it reads
the arrays the env builds when it loads a scene, and writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco
import numpy as np

from claw.envs.arms import ArmContext
from claw.envs.objects import inner_half_width
from claw.envs.predicates import GoalResult, Predicate, evaluate_goal
from claw.envs.robot import RobotIndex
from claw.envs.scene import PlacedObject
from claw.envs.state import GripperState, ObjectState, WorldState


class GroundTruth:
    """What holds in the simulation now, for skills, planners and the predicates."""

    # Set by TabletopEnv when it loads a scene.
    data: mujoco.MjData
    arms: ArmContext
    robots: dict[str, RobotIndex]
    object_names: list[str]
    _placed: list[PlacedObject]
    _obj_body: np.ndarray
    _obj_qvel: np.ndarray
    _obj_lin_qvel: np.ndarray
    _sum3: np.ndarray
    _geom_object: np.ndarray
    _finger_side: dict[str, np.ndarray]

    def object_speeds(self) -> np.ndarray:
        """Linear speed (m/s) of every object, in scene order."""
        velocity = self.data.qvel[self._obj_lin_qvel]
        return np.sqrt(velocity * velocity @ self._sum3)

    @property
    def geom_objects(self) -> np.ndarray:
        """For every geom of the model, the index of the scene object it belongs to, or -1."""
        return self._geom_object

    def object_speeds_here(self) -> np.ndarray:
        """:meth:`object_speeds` of the objects the caller's lane may wait on: all but those
        the other lanes work with."""
        speeds = self.object_speeds()
        busy = self.arms.others_busy
        if not busy:
            return speeds
        keep = [i for i, name in enumerate(self.object_names) if name not in busy]
        return speeds[keep]

    def true_world_state(self) -> WorldState:
        """The true geometric snapshot of the objects and the claw: what judges a run.

        What the robot believes is :meth:`TabletopEnv.world_state`, the same unless a perceiver
        is attached (``claw.perception``).
        """
        data = self.data
        objects = {}
        for i, obj in enumerate(self._placed):
            body = self._obj_body[i]
            objects[obj.name] = ObjectState(
                name=obj.name,
                type=obj.type,
                position=data.xpos[body].copy(),
                rotation=data.xmat[body].reshape(3, 3).copy(),
                half_extents=np.array(obj.half_extents),
                inner_half_width=inner_half_width(obj.type, obj.size),
                linear_velocity=data.qvel[self._obj_qvel[i, :3]].copy(),
                color=obj.color,
            )
        grippers = {arm: self._gripper_state(arm) for arm in self.arms.arms}
        arm = self.arms.current
        return WorldState(objects=objects, gripper=grippers[arm], grippers=grippers, arm=arm)

    def _gripper_state(self, arm: str) -> GripperState:
        touching = self.finger_contacts(arm)
        pads = self.robots[arm].pad_sites
        return GripperState(
            left_tip=self.data.site_xpos[pads[0]].copy(),
            right_tip=self.data.site_xpos[pads[1]].copy(),
            left_contacts=frozenset(touching[0]),
            right_contacts=frozenset(touching[1]),
        )

    def finger_contacts(self, arm: str | None = None) -> tuple[set[str], set[str]]:
        """The objects touching the left and the right finger of ``arm`` (the caller's) now."""
        touching: tuple[set[str], set[str]] = (set(), set())
        finger_side = self._finger_side[arm or self.arms.current]
        ncon = self.data.ncon
        if ncon:
            for g1, g2 in self.data.contact.geom[:ncon]:
                for finger, other in ((g1, g2), (g2, g1)):
                    side, obj = finger_side[finger], self._geom_object[other]
                    if side >= 0 and obj >= 0:
                        touching[side].add(self.object_names[obj])
        return touching

    def check(self, goal: Sequence[str | Predicate]) -> GoalResult:
        """Judge goal predicates on the true physics state (never on a perceiver's belief)."""
        return evaluate_goal(goal, self.true_world_state())
