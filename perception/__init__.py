"""Perception: what the sensors give turned into the ``WorldState`` the planner, the skills and
the feedback consume, between ``claw.envs`` (the world) and ``claw.skills`` (acting on it).

::

    from claw.envs import TabletopEnv
    from claw.perception import attach

    env = TabletopEnv("stacked")
    env.reset(seed=0)
    belief = attach(env, "camera")      # env.world_state() is now what two RGB-D views show
    world = env.world_state()
    truth = env.true_world_state()      # what judges a run

Perceivers are registered by name (``truth``, ``camera``, a user's own, or an installed
package's through the ``claw.perceivers`` entry-point group).
"""

from typing import TYPE_CHECKING

from claw.common.lazy import lazy_surface

if TYPE_CHECKING:
    from claw.perception.base import ObjectBelief, Perceiver, Perception
    from claw.perception.exceptions import InvalidPerceptionError
    from claw.perception.link import Belief, attach
    from claw.perception.registry import (
        DEFAULT_PERCEIVER,
        check_perceiver,
        make_perceiver,
        perceiver_names,
        register_perceiver,
        unregister_perceiver,
    )
    from claw.perception.sensing import Sensing

__all__ = [
    "DEFAULT_PERCEIVER",
    "Belief",
    "InvalidPerceptionError",
    "ObjectBelief",
    "Perceiver",
    "Perception",
    "Sensing",
    "attach",
    "check_perceiver",
    "make_perceiver",
    "perceiver_names",
    "register_perceiver",
    "unregister_perceiver",
]

__getattr__, __dir__ = lazy_surface(__name__, __file__)
