"""The offline planner's vocabulary: object, colour, verb, relation and direction words."""

from __future__ import annotations

from claw.envs.objects import COLORS

TYPE_WORDS = {
    "block": "block", "blocks": "block", "cube": "block", "cubes": "block", "brick": "block",
    "bricks": "block", "box": "box", "boxes": "box", "container": "box", "containers": "box",
    "bin": "box", "bins": "box", "basket": "box", "baskets": "box", "tray": "box", "trays": "box",
    "bowl": "box", "bowls": "box", "crate": "box", "crates": "box", "bucket": "box",
    "buckets": "box", "tub": "box", "tubs": "box", "receptacle": "box", "receptacles": "box",
    "carton": "box", "cartons": "box", "cuboid": "block", "cuboids": "block",
    # A coloured zone that blocks go in is a box here (LoHoRavens' zones); "the top left zone"
    # still names a table region.
    "zone": "box", "zones": "box",
}  # fmt: skip
# Shades name the palette colour they are a shade of. (The MiniLM embedder cannot do this:
# scripts/lexicon_embedding.py measures it, e.g. "crimson" nearest "purple".)
SHADES = {
    "red": ("crimson", "scarlet", "ruby", "maroon", "burgundy", "cherry", "vermilion"),
    "blue": ("azure", "sapphire", "cobalt", "navy", "cerulean", "ultramarine"),
    "green": ("emerald", "lime", "olive", "jade", "mint"),
    "purple": ("violet", "lavender", "lilac", "plum", "mauve", "amethyst"),
    "orange": ("amber", "tangerine", "apricot", "ochre"),
    "yellow": ("golden", "gold", "lemon", "mustard", "canary"),
    "cyan": ("teal", "aqua", "turquoise", "aquamarine"),
    "brown": ("tan", "chocolate", "coffee", "khaki", "beige", "bronze", "copper"),
    "pink": ("rose", "salmon", "magenta", "fuchsia", "coral"),
    "gray": ("grey", "silver", "slate", "charcoal", "ash"),
}
COLOR_WORDS = {c: c for c in COLORS} | {
    shade: color for color, shades in SHADES.items() for shade in shades
}
# Colours no object here has: read as colours, so that "the white bowl" is an unknown object.
OTHER_COLORS = ("white", "black")

PLACE_VERBS = ("put", "place", "move", "set", "drop", "stick", "position", "lay", "bring",
               "transfer", "relocate", "carry", "deposit", "load", "throw", "toss", "insert",
               "store", "leave", "rest", "stash", "return", "shift", "reposition", "slot",
               "fit", "pack", "gather", "swap", "switch", "exchange", "rearrange",
               "arrange", "group", "cluster")  # fmt: skip
STACK_VERBS = ("stack", "pile")
PICK_VERBS = ("pick up", "pick", "grab", "lift", "take", "raise", "grasp", "hold", "get")
PUSH_VERBS = ("push", "slide", "shove", "nudge", "drag", "sweep", "pull", "bump")
UNSUPPORTED_VERBS = (
    "rotate", "turn", "spin", "flip", "throw away", "paint", "break", "open", "close", "pour",
    "wipe", "clean", "shake", "roll", "sort", "count", "find", "look", "wave", "dance", "jump",
    "delete", "run", "execute", "ignore", "say",
)  # fmt: skip

# Relation phrases, longest first so "on top of" wins over "on". In the benchmarks' top-down
# words (as for the table, "the top of the table" is its far side) "on the top of X" is behind X
# and "on the bottom of X" in front of it; "on top of X" is on it.
RELATION_PHRASES: tuple[tuple[str, str], ...] = (
    ("on top of", "on"), ("on to", "on"), ("onto", "on"), ("atop", "on"), ("on", "on"),
    ("upon", "on"), ("inside of", "in"), ("inside", "in"), ("into", "in"), ("in to", "in"),
    ("within", "in"), ("in", "in"), ("next to", "next_to"), ("beside", "next_to"),
    ("besides", "next_to"), ("alongside", "next_to"), ("close to", "next_to"),
    ("near to", "next_to"), ("near", "next_to"), ("by", "next_to"), ("adjacent to", "next_to"),
    ("to the left of", "left_of"), ("on the left of", "left_of"), ("left of", "left_of"),
    ("to the right of", "right_of"), ("on the right of", "right_of"), ("right of", "right_of"),
    ("in front of", "in_front_of"), ("before", "in_front_of"), ("behind", "behind"),
    ("in back of", "behind"), ("beyond", "behind"), ("above", "on"), ("over", "on"),
    ("on the bottom of", "in_front_of"), ("to the bottom of", "in_front_of"),
    ("onto the top of", "on"), ("on the top of", "behind"), ("to the top of", "behind"),
    ("at", "at"), ("to", "at"),
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

# Referring expressions (claw.planner.reference).
COLOR_FAMILIES: dict[str, frozenset[str]] = {
    "warm": frozenset({"red", "orange", "yellow", "pink", "brown"}),
    "cool": frozenset({"blue", "green", "cyan", "purple"}),
}
# Table sides an ordinal counts from, or a superlative points to: left = +y, far (top) = +x.
SIDE_WORDS = {"left": "left", "right": "right", "top": "far", "bottom": "near", "far": "far",
              "near": "near", "back": "far", "front": "near", "upper": "far", "lower": "near",
              "rear": "far"}  # fmt: skip
# Superlatives: a side ("the leftmost block"), or a distance ("the block closest to the box";
# before the noun, "the nearest block" is the one nearest the robot: the near side).
EXTREME_WORDS = {"leftmost": "left", "rightmost": "right", "topmost": "far", "uppermost": "far",
                 "bottommost": "near", "lowermost": "near", "closest": "closest",
                 "nearest": "closest", "farthest": "farthest", "furthest": "farthest"}  # fmt: skip
# Lightness, measured from each colour's rendered RGB (relative luminance): "the light colored
# block" is the lightest of those that could be meant.
LIGHTNESS_WORDS = {"light": "light", "lighter": "light", "lightest": "light", "pale": "light",
                   "paler": "light", "palest": "light", "bright": "light", "brighter": "light",
                   "brightest": "light", "dark": "dark", "darker": "dark",
                   "darkest": "dark"}  # fmt: skip
SIZE_WORDS = {"smallest": "small", "small": "small", "smaller": "small", "little": "small",
              "tiny": "small", "biggest": "big", "largest": "big", "big": "big", "bigger": "big",
              "large": "big", "larger": "big"}  # fmt: skip
ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                 "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6,
                 "last": -1}  # fmt: skip
# Relations a noun phrase may name its objects by ("the block left of the blue box"); in the
# benchmarks' top-down words, "to the top of" is behind (far), "to the bottom of" in front.
REFERRING_RELATIONS: dict[tuple[str, ...], str] = {
    tuple(phrase.split()): relation
    for phrase, relation in (
        ("on top of", "on"), ("on", "on"), ("atop", "on"), ("in", "in"), ("inside", "in"),
        ("inside of", "in"), ("within", "in"), ("next to", "next_to"), ("beside", "next_to"),
        ("near", "next_to"), ("close to", "next_to"), ("adjacent to", "next_to"),
        ("by", "next_to"), ("to the left of", "left_of"), ("left of", "left_of"),
        ("on the left of", "left_of"), ("to the right of", "right_of"),
        ("right of", "right_of"), ("on the right of", "right_of"), ("in front of", "in_front_of"),
        ("to the bottom of", "in_front_of"), ("below", "in_front_of"), ("behind", "behind"),
        ("to the top of", "behind"), ("in back of", "behind"), ("beyond", "behind"),
        ("north of", "behind"), ("to the north of", "behind"), ("south of", "in_front_of"),
        ("to the south of", "in_front_of"), ("west of", "left_of"), ("to the west of", "left_of"),
        ("east of", "right_of"), ("to the east of", "right_of"),
    )
}  # fmt: skip
# Compass words, as the benchmarks draw the table from above: north is far (+x), west is left.
COMPASS = {"north": "behind", "south": "in_front_of", "west": "left_of", "east": "right_of"}
# "the block under the red block": the red block is on it (the relation with its sides swapped).
UNDER_WORDS: tuple[tuple[str, ...], ...] = (("under",), ("underneath",), ("beneath",),
                                            ("from", "under"), ("below",))  # fmt: skip
# Words of a table region: "the bottom right area" is the near right corner.
REGION_ALIASES = {"upper": "far", "lower": "near", "back": "far", "rear": "far", "front": "near",
                  "top": "far", "bottom": "near", "centre": "center", "central": "center",
                  "middle": "center"}  # fmt: skip
REGION_NOUNS = ("area", "zone", "quadrant", "region", "part", "edge", "end", "half", "portion")

# "would you mind putting ...": the verb's -ing form
GERUNDS = {"putting": "put", "placing": "place", "moving": "move", "setting": "set",
           "dropping": "drop", "sticking": "stick", "stacking": "stack", "picking": "pick",
           "grabbing": "grab", "lifting": "lift", "taking": "take", "pushing": "push",
           "sliding": "slide", "nudging": "nudge", "shoving": "shove", "building": "build",
           "making": "make", "pulling": "pull", "holding": "hold", "keeping": "keep",
           "raising": "raise", "grasping": "grasp"}  # fmt: skip
# "at the left of the blue box": the side of an object a place names
SIDE_RELATIONS = {"left": "left_of", "right": "right_of", "front": "in_front_of",
                  "back": "behind", "rear": "behind"}  # fmt: skip
# Words written out before reading: contractions, and pronoun-words that are a determiner and a
# noun ("everything that is not a box"), and a side named by a possessive ("to its right").
EXPANSIONS = {"isn't": "is not", "aren't": "are not", "don't": "do not", "doesn't": "does not",
              "wasn't": "was not", "weren't": "were not", "everything": "all the objects",
              "anything": "any object", "to its left": "to the left of it",
              "to its right": "to the right of it", "on its left": "on the left of it",
              "on its right": "on the right of it", "to their left": "to the left of them",
              "to their right": "to the right of them"}  # fmt: skip
