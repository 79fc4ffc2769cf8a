"""The offline planner's vocabulary: object, colour, verb, relation and direction words."""

from __future__ import annotations

from claw.envs.objects import COLORS

TYPE_WORDS = {
    "block": "block", "blocks": "block", "cube": "block", "cubes": "block", "brick": "block",
    "bricks": "block", "box": "box", "boxes": "box", "container": "box", "containers": "box",
    "bin": "box", "bins": "box", "basket": "box", "baskets": "box", "tray": "box", "trays": "box",
    "bowl": "box", "bowls": "box", "crate": "box", "crates": "box",
}  # fmt: skip
COLOR_WORDS = {c: c for c in COLORS} | {"grey": "gray", "violet": "purple", "teal": "cyan"}

PLACE_VERBS = ("put", "place", "move", "set", "drop", "stick", "position", "lay", "bring",
               "transfer", "relocate", "carry", "deposit", "load", "throw", "toss", "insert",
               "store", "leave", "rest", "stash", "return", "shift", "reposition", "slot",
               "fit")  # fmt: skip
STACK_VERBS = ("stack", "pile")
PICK_VERBS = ("pick up", "pick", "grab", "lift", "take", "raise", "grasp", "hold", "get")
PUSH_VERBS = ("push", "slide", "shove", "nudge", "drag", "sweep", "pull", "bump")
UNSUPPORTED_VERBS = (
    "rotate", "turn", "spin", "flip", "throw away", "paint", "break", "open", "close", "pour",
    "wipe", "clean", "shake", "roll", "sort", "count", "find", "look", "wave", "dance", "jump",
    "delete", "run", "execute", "ignore", "say",
)  # fmt: skip

# Relation phrases, longest first so "on top of" wins over "on".
RELATION_PHRASES: tuple[tuple[str, str], ...] = (
    ("on top of", "on"), ("on to", "on"), ("onto", "on"), ("atop", "on"), ("on", "on"),
    ("upon", "on"), ("inside of", "in"), ("inside", "in"), ("into", "in"), ("in to", "in"),
    ("within", "in"), ("in", "in"), ("next to", "next_to"), ("beside", "next_to"),
    ("besides", "next_to"), ("alongside", "next_to"), ("close to", "next_to"),
    ("near to", "next_to"), ("near", "next_to"), ("by", "next_to"), ("adjacent to", "next_to"),
    ("to the left of", "left_of"), ("on the left of", "left_of"), ("left of", "left_of"),
    ("to the right of", "right_of"), ("on the right of", "right_of"), ("right of", "right_of"),
    ("in front of", "in_front_of"), ("before", "in_front_of"), ("behind", "behind"),
    ("in back of", "behind"), ("beyond", "behind"), ("above", "on"), ("at", "at"), ("to", "at"),
)  # fmt: skip
DIRECTION_WORDS: tuple[tuple[str, str], ...] = (
    ("to the left", "left"), ("leftward", "left"), ("leftwards", "left"), ("left", "left"),
    ("to the right", "right"), ("rightward", "right"), ("rightwards", "right"),
    ("right", "right"), ("forward", "far"), ("forwards", "far"),
    ("away from the robot", "far"), ("away from you", "far"), ("away from me", "far"),
    ("further away", "far"), ("farther away", "far"), ("away", "far"),
    ("further", "far"), ("farther", "far"), ("far", "far"), ("ahead", "far"),
    ("to the top", "far"), ("up the table", "far"), ("backward", "near"), ("backwards", "near"),
    ("towards me", "near"), ("toward me", "near"), ("towards you", "near"),
    ("toward you", "near"), ("towards the robot", "near"), ("toward the robot", "near"),
    ("closer", "near"), ("near", "near"), ("back", "near"), ("to the bottom", "near"),
    ("down the table", "near"),
)  # fmt: skip
UNITS = {"cm": 0.01, "centimeters": 0.01, "centimetres": 0.01, "centimeter": 0.01,
         "centimetre": 0.01, "mm": 0.001, "millimeters": 0.001, "millimetres": 0.001, "m": 1.0,
         "meter": 1.0, "meters": 1.0, "metre": 1.0, "metres": 1.0, "inch": 0.0254,
         "inches": 0.0254}  # fmt: skip
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "fifteen": 15, "twenty": 20, "a": 1}  # fmt: skip
DEFAULT_PUSH = 0.10  # m, "push it left" without a distance
SMALL_PUSH = 0.05  # m, "a bit", "slightly", "a little"

# Strong separators: sentence ends (not a decimal point), "then", "after that".
