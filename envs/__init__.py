"""The simulated world: a Gymnasium env over MuJoCo, scenes from a spec, ground-truth predicates.

Importing this package registers ``claw/Tabletop-v0``::

    import gymnasium as gym
    import claw.envs

    env = gym.make("claw/Tabletop-v0", render_mode="rgb_array")
    obs, info = env.reset(seed=0, options={"scene": "default"})
"""

import os

from claw.envs.rendering import has_display

# Render offscreen through EGL when there is no display, unless the user chose a backend.
if not has_display():
    os.environ.setdefault("MUJOCO_GL", "egl")

from gymnasium.envs.registration import register, registry

from claw.envs import pick_place as _pick_place  # noqa: F401  (lists its task in tasks.TASKS)
from claw.envs.exceptions import (
    InvalidSceneError,
    InvalidSeedError,
    PredicateError,
    UnknownObjectError,
    YamlLimitError,
)
from claw.envs.predicates import (
    GoalResult,
    Predicate,
    PredicateResult,
    evaluate,
    evaluate_goal,
    parse_goal,
    parse_predicate,
)
from claw.envs.randomization import DomainRandomization
from claw.envs.regions import REGIONS, WORKSPACE_X, WORKSPACE_Y, region_anchor, resolve_region
from claw.envs.relations import (
    Placing,
    Relation,
    find_relation,
    register_relation,
    registry_version,
    relation,
    relation_names,
    relations,
    unregister_relation,
)
from claw.envs.scene import ObjectSpec, PlacedObject, SceneSpec, builtin_scenes
from claw.envs.seeding import SEED_MAX, check_seed
from claw.envs.state import GripperState, ObjectState, WorldState
from claw.envs.tabletop import TabletopEnv
from claw.envs.world import held_object, supported_by

TABLETOP_ID = "claw/Tabletop-v0"
REACH_ID = "claw/Reach-v0"
PUSH_ID = "claw/Push-v0"
PICK_PLACE_ID = "claw/PickAndPlace-v0"

# id, entry point, kwargs, episode length
_ENVS: tuple[tuple[str, str, dict[str, str], int], ...] = (
    (TABLETOP_ID, "claw.envs.tabletop:TabletopEnv", {}, 500),
    (REACH_ID, "claw.envs.goal:make_task_env", {"task": "reach"}, 50),
    (PUSH_ID, "claw.envs.goal:make_task_env", {"task": "push"}, 80),
    (PICK_PLACE_ID, "claw.envs.goal:make_task_env", {"task": "pick_place"}, 60),
)
for env_id, entry_point, kwargs, steps in _ENVS:
    if env_id not in registry:
        register(id=env_id, entry_point=entry_point, kwargs=kwargs, max_episode_steps=steps)

__all__ = [
    "PICK_PLACE_ID",
    "PUSH_ID",
    "REACH_ID",
    "REGIONS",
    "SEED_MAX",
    "TABLETOP_ID",
    "WORKSPACE_X",
    "WORKSPACE_Y",
    "DomainRandomization",
    "GoalResult",
    "GripperState",
    "InvalidSceneError",
    "InvalidSeedError",
    "ObjectSpec",
    "ObjectState",
    "PlacedObject",
    "Placing",
    "Predicate",
    "PredicateError",
    "PredicateResult",
    "Relation",
    "SceneSpec",
    "TabletopEnv",
    "UnknownObjectError",
    "WorldState",
    "YamlLimitError",
    "builtin_scenes",
    "check_seed",
    "evaluate",
    "evaluate_goal",
    "find_relation",
    "held_object",
    "parse_goal",
    "parse_predicate",
    "region_anchor",
    "register_relation",
    "registry_version",
    "relation",
    "relation_names",
    "relations",
    "resolve_region",
    "supported_by",
    "unregister_relation",
]
