"""Learned pick and place: the shipped pick-and-place policy as skills, on the main physics."""

from __future__ import annotations

import json

import numpy as np
import pytest

from claw.envs import TabletopEnv, evaluate
from claw.skills import execute_calls, get_skill
from claw.skills.learned import LEARNED_SKILLS, ShippedPolicies
from claw.skills.learned_grasp import LearnedPick, LearnedPlace
from claw.skills.policy import PolicyNetwork
from tests.witness import PhysicsWitness


def test_one_policy_serves_pick_and_place() -> None:
    assert LEARNED_SKILLS["pick_place"] == (LearnedPick, LearnedPlace)
    network = ShippedPolicies().policy(LearnedPick)
    assert network.config.task == "pick_place" and network.config.env_id == "claw/PickAndPlace-v0"
    assert network.config.evaluation["episodes"] == 200
    assert network.config.training["demonstrations"].startswith("claw/pick_place/")


@pytest.mark.slow
def test_learned_pick_and_place_act_only_through_the_actuators(clear_env: TabletopEnv) -> None:
    env = clear_env
    witness = PhysicsWitness(env)
    env.step_callbacks.append(witness)
    try:
        picked = get_skill("pick", "learned")(env, object="red_block")
        placed = get_skill("place", "learned")(env, target="blue_box", relation="in")
    finally:
        env.step_callbacks.remove(witness)
    witness.check(env)
    assert picked.success, picked.reason
    assert placed.success, placed.reason
    assert (picked.implementation, placed.implementation) == ("learned", "learned")
    assert evaluate("in(red_block, blue_box)", env.world_state()).holds
    assert witness.periods > 30 and witness.mismatches == []  # 0.1 s periods of two skills


@pytest.mark.slow
@pytest.mark.parametrize(
    ("block", "relation", "target"),
    [("green_block", "on", "orange_block"), ("yellow_block", "next_to", "red_block")],
)
def test_learned_place_makes_the_relation_hold(
    clear_env: TabletopEnv, block: str, relation: str, target: str
) -> None:
    outcome = execute_calls(
        clear_env,
        [
            {"skill": "pick", "args": {"object": block}},
            {"skill": "place", "args": {"target": target, "relation": relation}},
        ],
        prefer="learned",
    )
    assert outcome.success, outcome.failed
    assert [s.implementation for s in outcome.steps] == ["learned", "learned"]
    assert evaluate(f"{relation}({block}, {target})", clear_env.world_state()).holds


@pytest.mark.slow
def test_a_policy_that_does_nothing_fails_on_the_state(clear_env: TabletopEnv) -> None:
    """Success is measured from the physics, never taken from the policy: a still claw fails."""
    shipped = ShippedPolicies().policy(LearnedPick)
    still = PolicyNetwork(shipped.config, _zeroed())
    outcome = LearnedPick(network=still)(clear_env, object="red_block")
    assert not outcome.success
    assert "did not lift red_block" in outcome.reason


def _zeroed() -> dict[str, np.ndarray]:
    """The network's tensors with every layer's weights and biases zero (actions all 0)."""
    from safetensors.numpy import load_file

    from claw.skills.learned import POLICIES_DIR
    from claw.skills.policy import WEIGHTS_FILE

    tensors = load_file(str(POLICIES_DIR / "pick_place" / WEIGHTS_FILE))
    return {k: (v if k.startswith("obs_rms") else np.zeros_like(v)) for k, v in tensors.items()}


@pytest.mark.slow
def test_a_run_says_which_implementation_ran_each_step(claw_in_process) -> None:
    result = claw_in_process(
        "put the red block next to the blue box", "--prefer", "learned", "--json"
    )
    assert result.returncode == 0, result.stderr
    steps = json.loads(result.stdout)["steps"]
    assert [(s["skill"], s["implementation"]) for s in steps] == [
        ("pick", "learned"),
        ("place", "learned"),
    ]
