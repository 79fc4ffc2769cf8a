"""The words that say which arm (claw.planner.language.arm_phrases), read in two-arm scenes: where
the object ends, after a second verb too; which arms work, the arms spoken to together; held level;
when, left to the lanes. A one-arm scene reads none of them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from claw.envs.tabletop import TabletopEnv
from claw.planner.language.arm_phrases import ArmIntent, read_arm_phrases
from claw.planner.offline import OfflinePlanner
from claw.skills.executor import execute_calls

ARMS = ("left", "right")
BAR = ["holding(yellow_bar, left)", "holding(yellow_bar, right)", "level(yellow_bar)"]


@pytest.fixture(scope="module")
def env() -> Iterator[TabletopEnv]:
    made = TabletopEnv(scene="two_arms")
    made.reset(seed=0)
    yield made
    made.close()


@pytest.mark.parametrize(
    ("instruction", "text", "intent"),
    [
        ("grab the red block, then pass it over to the right claw", "grab the red block",
         ArmIntent(to="right")),
        ("could you hand the red block to the other gripper?", "could you pick up the red block?",
         ArmIntent(to="other")),
        ("lift the red block with the left hand and give it to the right one",
         "lift the red block", ArmIntent(to="right", using="left")),
        ("take the red block and swap hands", "take the red block", ArmIntent(to="other")),
        ("would you both raise the bar", "would you raise the bar", ArmIntent(using="both")),
        ("carry the bar together and hold it steady", "carry the bar",
         ArmIntent(using="both", level=True)),
        ("use both arms to pick up the bar", "pick up the bar", ArmIntent(using="both")),
        ("pick up the bar without tipping it", "pick up the bar", ArmIntent(level=True)),
        ("put the red block in the brown box and simultaneously the blue block in the gray box",
         "put the red block in the brown box and the blue block in the gray box", ArmIntent()),
    ],
)  # fmt: skip
def test_arm_phrases_are_read_and_left_out(instruction: str, text: str, intent: ArmIntent) -> None:
    assert read_arm_phrases(instruction, ARMS) == (text, intent)


@pytest.mark.parametrize(
    "instruction",
    ["put the red block next to the right one", "put the blocks together", "stack them together"],
)
def test_words_that_name_no_arm_are_kept(instruction: str) -> None:
    assert read_arm_phrases(instruction, ARMS) == (instruction, ArmIntent())


def test_a_one_arm_scene_reads_no_arm_phrase() -> None:
    text = "pick up the red block and pass it to the other arm"
    assert read_arm_phrases(text, ("left",)) == (text, ArmIntent())


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        ("pick up the red block and pass it to the other arm", ["holding(red_block, right)"]),
        ("grab the blue block and switch hands", ["holding(blue_block, left)"]),
        ("please give the red block to the right gripper", ["holding(red_block, right)"]),
        ("lift the bar with both arms and keep it level", BAR),
        ("pick the bar up with both hands, don't let it tilt", BAR),
        ("could you both lift the bar", BAR),
    ],
)
def test_the_planner_reads_them_as_goals(
    env: TabletopEnv, instruction: str, goal: list[str]
) -> None:
    assert [str(p) for p in OfflinePlanner().plan(instruction, env).goal] == goal


@pytest.mark.slow
def test_a_handover_said_after_a_pick_runs_on_physics() -> None:
    env = TabletopEnv(scene="two_arms")
    env.reset(seed=0)
    plan = OfflinePlanner().plan("pick up the red block and pass it to the other arm", env)
    assert [c.skill for c in plan.steps] == ["pick", "handover"]
    assert execute_calls(env, plan.steps).success
    assert env.check(plan.goal).success  # holding(red_block, right), on the MuJoCo state
    env.close()
