"""Every word the offline planner knows, in one place: object, colour, verb, relation,
direction and number words, the words of noun phrases (:mod:`claw.planner.language.reference`), and
the grammar's word lists (:data:`GRAMMAR_WORDS`: :mod:`claw.planner.language.parsing` writes each as
a rule of ``grammar.lark``, which keeps the structure only).

Adding a verb to a class is one entry in that class's tuple (``PLACE_VERBS``, ...); a new class
is an entry of :data:`VERB_CLASSES` and its reading in :mod:`claw.planner.language.grammar`.
"""

from __future__ import annotations

from typing import Literal

from claw.envs.objects import COLORS
from claw.envs.relations import compass_words, referring_phrases, relation_phrases, side_words

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
    # What else holds things put in it: furniture and dishes stand in for our boxes.
    "drawer": "box", "drawers": "box", "cabinet": "box", "cabinets": "box", "cupboard": "box",
    "cupboards": "box", "shelf": "box", "shelves": "box", "slider": "box", "plate": "box",
    "plates": "box", "dish": "box", "dishes": "box", "pot": "box", "pots": "box", "pan": "box",
    "pans": "box", "sink": "box",
    # Long objects (two-arm scenes); "stick" is a verb here.
    "bar": "bar", "bars": "bar", "rod": "bar", "rods": "bar", "beam": "bar", "beams": "bar",
    "plank": "bar", "planks": "bar", "pole": "bar", "poles": "bar",
}  # fmt: skip
HELD_WORDS = ("grasped", "held", "picked", "lifted", "grabbed", "gripped", "chosen", "selected")
"""Before a noun, the object an earlier request took ("the grasped block": the one named last)."""
# Shades name the palette colour they are a shade of. (The MiniLM embedder mostly cannot tell
# what colour a named shade is: `claw bench words` measures it, e.g. "carmine" nearest purple.)
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

# Two-arm scenes (claw.planner.steps.arms): what names an arm, and the verbs that pass an object to
# one.
ARM_NOUNS = ("arms", "arm", "hands", "hand", "claws", "claw", "grippers", "gripper")
HANDOVER_VERBS = ("hand over", "hand", "pass", "give", "transfer", "move", "put", "bring")
WHICH_ARMS = frozenset({"both", "two", "left", "right", "other", "each", "either", "one",
                        "middle", "third", "fourth", "center", "extra"})  # fmt: skip
"""Words that say which arm before an arm noun ("both arms", "the other gripper", "the middle
arm"): an arm noun after one is never left out unread."""

PLACE_VERBS = ("put", "place", "move", "set", "drop", "stick", "position", "lay", "bring",
               "transfer", "relocate", "carry", "deposit", "load", "throw", "toss", "insert",
               "store", "leave", "rest", "stash", "return", "shift", "reposition", "slot",
               "fit", "pack", "gather", "swap", "switch", "exchange", "rearrange",
               "arrange", "group", "cluster")  # fmt: skip
STACK_VERBS = ("stack", "pile")
PICK_VERBS = ("pick up", "pick", "grab", "lift", "take", "raise", "grasp", "hold", "get")
PUSH_VERBS = ("push", "slide", "shove", "nudge", "drag", "sweep", "pull", "bump")
SEPARATE_VERBS = ("separate", "split up", "split", "spread out", "spread")
EMPTY_VERBS = ("empty out", "empty", "clear out", "clear", "unload")
APPROACH_VERBS = ("go to", "go towards", "go toward", "approach", "reach for", "reach towards",
                  "reach toward", "head to", "head towards", "head toward", "find", "look for",
                  "locate")  # fmt: skip
"""Moves of the claw alone ("go towards the yellow block and lift it"): they name what comes
next, and ask for nothing the next request's skill does not do."""
NEGATIONS = frozenset({"not", "no", "never", "without", "nothing", "none", "cannot"})
AUXILIARIES = frozenset({"do", "does", "did", "is", "are", "was", "were", "has", "have", "had",
                         "can", "could", "will", "would", "shall", "should", "must", "might",
                         "need", "dare", "may"})  # fmt: skip
"""Verbs a negation follows ("should not") and a negative contraction is made of ("mustn't")."""
"""Words that turn a request around: never left out as saying nothing, and no rewrite of
:mod:`claw.planner.language.indirect` is made where one is said (but the one of what is not
wanted)."""
HOLDING_VERBS = ("hold", "holds", "holding", "contain", "contains", "containing")
"""Verbs a box is the subject of when something is in it ("the red box should hold ...")."""
UNSUPPORTED_VERBS = (
    "rotate", "turn", "spin", "flip", "throw away", "paint", "break", "open", "close", "pour",
    "wipe", "clean", "shake", "roll", "sort", "count", "look", "wave", "dance", "jump",
    "delete", "run", "execute", "ignore", "say",
)  # fmt: skip

# Relation phrases (claw.envs.relations declares them with each relation), relation by relation;
# the grammar's reading does not depend on their order.
RELATION_PHRASES: tuple[tuple[str, str], ...] = relation_phrases()
RELATION_LEADS = frozenset(phrase.split()[0] for phrase, _ in RELATION_PHRASES)
"""The first words of the relation phrases ("to", "on", "next", "in", ...)."""
RELATION_WORDS: tuple[tuple[str, ...], ...] = tuple(
    sorted({tuple(phrase.split()) for phrase, _ in RELATION_PHRASES}, key=lambda p: (-len(p), p))
)
"""The relation phrases as words, longest first."""
PLACE_LEADS = frozenset({*RELATION_LEADS, "between"})
"""What a place phrase starts with ("behind X", "between X and Y")."""
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
# Pushes whose way the scene gives: the word that starts it, the relation, the words it takes.
PUSH_ABOUT: dict[str, tuple[str, tuple[str, ...]]] = {
    "towards": ("towards", ("towards",)), "toward": ("towards", ("toward",)),
    "closer": ("towards", ("closer", "to")), "away": ("away", ("away", "from")),
}  # fmt: skip
# Relations a push verb slides an object into ("push the red block to the left of the blue
# one"): those of another object that hold on the table.
PUSHED_RELATIONS = ("next_to", "left_of", "right_of", "behind", "in_front_of", "between")
DEFAULT_PUSH = 0.10  # m, "push it left" without a distance
SMALL_PUSH = 0.05  # m, "a bit", "slightly", "a little"

# Strong separators: sentence ends (not a decimal point), "then", "after that".

# Referring expressions (claw.planner.language.reference).
COLOR_FAMILIES: dict[str, frozenset[str]] = {
    "warm": frozenset({"red", "orange", "yellow", "pink", "brown"}),
    "cool": frozenset({"blue", "green", "cyan", "purple"}),
    # the painter's primaries and what two of them mix to
    "primary": frozenset({"red", "yellow", "blue"}),
    "secondary": frozenset({"orange", "green", "purple"}),
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
MIDDLE_WORDS = ("middle", "center", "centre", "central")
"""Before a noun: the one in the middle of its row ("the middle block")."""
# Lightness, measured from each colour's rendered RGB (relative luminance): "the light colored
# block" is the lightest of those that could be meant.
LIGHTNESS_WORDS = {"light": "light", "lighter": "light", "lightest": "light", "pale": "light",
                   "paler": "light", "palest": "light", "bright": "light", "brighter": "light",
                   "brightest": "light", "dark": "dark", "darker": "dark",
                   "darkest": "dark"}  # fmt: skip
SIZE_WORDS = {"smallest": "small", "small": "small", "smaller": "small", "little": "small",
              "tiny": "small", "biggest": "big", "largest": "big", "big": "big", "bigger": "big",
              "large": "big", "larger": "big", "medium": "medium", "mid": "medium"}  # fmt: skip
ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                 "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6,
                 "last": -1}  # fmt: skip
# Relations a noun phrase may name its objects by ("the block left of the blue box"), and compass
# words, as the benchmarks draw the table from above: north is far (+x), west is left.
REFERRING_RELATIONS: dict[tuple[str, ...], str] = referring_phrases()
COMPASS = compass_words()
# "the block under the red block": the red block is on it (the relation with its sides swapped).
UNDER_WORDS: tuple[tuple[str, ...], ...] = (("under",), ("underneath",), ("beneath",),
                                            ("from", "under"), ("below",))  # fmt: skip
# Words of a table region: "the bottom right area" is the near right corner.
REGION_ALIASES = {"upper": "far", "lower": "near", "back": "far", "rear": "far", "front": "near",
                  "top": "far", "bottom": "near", "centre": "center", "central": "center",
                  "middle": "center", "mid": "center"}  # fmt: skip
REGION_NOUNS = ("area", "zone", "quadrant", "region", "part", "edge", "end", "half", "portion")

# "at the left of the blue box": the side of an object a place names
SIDE_RELATIONS = side_words()
# Words written out before reading: contractions, pronoun-words that are a determiner and a
# noun ("everything that is not a box"), a side named by a possessive ("to its right"), counts
# said with a noun ("a couple of").
EXPANSIONS = {"isn't": "is not", "aren't": "are not", "don't": "do not", "doesn't": "does not",
              "wasn't": "was not", "weren't": "were not", "everything": "all the objects",
              "anything": "any object", "to its left": "to the left of it",
              "to its right": "to the right of it", "on its left": "on the left of it",
              "on its right": "on the right of it", "to their left": "to the left of them",
              "to their right": "to the right of them",
              # counts said with a noun ("a couple of blocks": two of them)
              "a couple of the": "two of the", "a couple of": "two", "a pair of the": "two of the",
              "a pair of": "two", "a couple": "two",
              # a quantifier on a pronoun: what it refers to, all of it
              "all of them": "them", "them all": "them", "both of them": "them",
              "them both": "them", "each of them": "them"}  # fmt: skip


# ---- Casual typing (claw.planner.language.robust) ------------------------------------------------
# Chat forms written out before reading ("can u put it in the box pls").
ABBREVIATIONS = {"u": "you", "ya": "you", "ur": "your", "pls": "please", "plz": "please",
                 "plse": "please", "thx": "thanks", "thnx": "thanks", "ty": "thanks",
                 "r": "are", "n": "and", "&": "and", "w/": "with", "nxt": "next",
                 "abt": "about", "b4": "before", "2nd": "second", "frst": "first",
                 "cuz": "because", "bc": "because", "wanna": "want to", "gonna": "going to",
                 "gotta": "have to", "gimme": "give me", "lemme": "let me", "da": "the",
                 "em": "them",
                 # punctuation said aloud (dictation)
                 "comma": ",", "period": "."}  # fmt: skip
TABLE_NAMES = ("tabletop", "desk", "countertop", "counter", "worktop", "workbench", "bench",
               "surface", "workspace", "worksurface", "benchtop")  # fmt: skip
"""Other names of the table the objects stand on: read as "table"."""
# Contractions typed without their apostrophe ("dont", "id like").
CONTRACTIONS = {"dont": "do not", "doesnt": "does not", "isnt": "is not", "arent": "are not",
                "wasnt": "was not", "werent": "were not", "cant": "cannot", "wont": "will not",
                "im": "i am", "id": "i'd", "ive": "i have", "youre": "you are",
                "thats": "that is", "whats": "what is", "theyre": "they are",
                "shouldnt": "should not", "couldnt": "could not", "wouldnt": "would not",
                "didnt": "did not", "theres": "there is", "heres": "here is",
                "youd": "you would", "youll": "you will", "youve": "you have",
                "theyd": "they would", "theyll": "they will", "theyve": "they have",
                "itll": "it will", "weve": "we have"}  # fmt: skip
"""Contractions, keyed without their apostrophe (typed with one or not), written out; those
that spell another word without it ("we'll", "i'll", "it's") are not here."""
# Words that only hedge or soften: a reading may leave them out ("um so basically i want the
# red block in the box ok"), as it leaves out words it does not know.
HEDGES = ("like", "just", "so", "really", "actually", "maybe", "perhaps", "basically", "simply",
          "ok", "okay", "well", "kindly", "please", "literally", "quickly")  # fmt: skip
# Small words a casual sentence has one too many of ("for me", "if possible", "the red block,
# in the box"): a reading may leave out one, or two side by side, when every such reading
# means the same.
SOFT_WORDS = ("for", "me", "you", "if", "possible", "can", "could", "would", "will", "to", "be",
              "there", "here", "go", "ahead", "now", "also", "some", "sort", "kind", "of",
              "bit", "a", "over", "up", "the", "and", "have", ",", "both")  # fmt: skip

# ---- Noun phrases (claw.planner.language.reference) ----------------------------------------------
PRONOUNS = {"it", "them", "that", "this", "they", "those", "these"}
DEFINITE = {"the", "this", "that", "these", "those", "its", "their"}
INDEFINITE = {"a", "an", "any", "some"}
UNIVERSAL = {"all", "every", "each", "both", "whatever", "whichever"}
NO_OP = {"only", "single", "sole", "lone", "same"}  # "the only block": a definite singular
MATCH_WORDS = {"matching": True, "matched": True, "corresponding": True, "same": True,
               "identical": True, "identically": True, "mismatched": False,
               "mismatching": False, "unmatched": False, "different": False}  # fmt: skip
GENERIC_HEADS = {"one", "ones", "object", "objects", "thing", "things", "item", "items", "piece",
                 "pieces"}  # fmt: skip
PLURAL_HEADS = {"ones", "objects", "things", "items", "pieces"}
SOURCE_LEADS = (("on", "top", "of"), ("inside", "of"), ("inside",), ("in",), ("on",),
                ("out", "of"), ("off", "of"), ("off",), ("within",))  # fmt: skip
"""What may come between "from" and what an object rests in or on ("from on top of the box")."""
EXCEPT = (("other", "than"), ("except", "for"), ("except",), ("but",), ("apart", "from"),
          ("besides",), ("excluding",), ("save", "for"))  # fmt: skip
BE = {"is", "are", "was", "were", "that", "which", "has", "have", "having", "sits", "sit",
      "stands", "stand", "lies", "lie", "placed", "sitting", "standing", "lying", "located",
      "resting", "rests", "currently", "already", "hidden", "buried", "covered", "stacked",
      "kept", "left", "now"}  # fmt: skip
REGION_HEADS = {"corner", "side", "center", "middle", "centre", *REGION_NOUNS}
DIFFERENT = (("a", "different"), ("different",), ("another",), ("the", "other"), ("mismatched",),
             ("mismatching",), ("non", "matching"), ("unmatched",))  # fmt: skip
SAME = (("the", "same"), ("matching",), ("same",), ("its",), ("their",), ("its", "own"), ("that",),
        ("their", "own"), ("corresponding",), ("the", "corresponding"),
        ("the", "matching"))  # fmt: skip
ON_TABLE = (("on", "the", "table"), ("from", "the", "table"), ("off", "the", "table"),
            ("off", "of", "the", "table"))  # fmt: skip
WHOSE_COLOR_DIFFERS = (("whose", "color", "differs"), ("whose", "colour", "differs"),
                       ("whose", "color", "is", "different"),
                       ("whose", "colour", "is", "different"))  # fmt: skip
# Words that place a description in the past: the scene is grounded as it was when the
# instruction was given, so "the object that was previously at its north" needs nothing more.
TEMPORAL = (("previously",), ("before",), ("originally",), ("earlier",), ("initially",),
            ("at", "first"), ("used", "to", "be"), ("at", "the", "start"), ("too",),
            ("as", "well"), ("also",), ("one", "by", "one"), ("one", "at", "a", "time"),
            ("in", "turn"))  # fmt: skip
PARITY = tuple(
    (*lead, parity, *tail)
    for parity in ("even", "odd")
    for lead, tail in (
        (("of", "an"), ("number",)),
        (("whose", "color", "appears", "an"), ("number", "of", "times")),
        (("whose", "colour", "appears", "an"), ("number", "of", "times")),
    )
)
# Sizes compared ("the block of the same size as the red one"); blocks of one size are within
# SAME_SIZE of each other.
SIZE_NOUNS = {"size", "sizes", "dimensions", "dimension"}
SAME_SIZE = 0.005  # m
# Nouns for several objects at once: "the pile of blue blocks" is the blue blocks.
COLLECTIVE_NOUNS = {"pile", "group", "set", "bunch", "collection", "heap", "cluster", "row",
                    "line", "lot", "handful", "bundle", "batch", "pair"}  # fmt: skip
# The objects' only surface property is their colour: a texture is read as one.
COLOR_NOUNS = {"color", "colors", "colour", "colours", "colored", "coloured", "texture",
               "textures"}  # fmt: skip
ROBOT = (("the", "robot"), ("me",), ("you",), ("the", "claw"), ("the", "arm"))
MATCH_VERBS = (("match",), ("matches",), ("matching",), ("match", "with"))
OTHER_WORDS = ("other", "remaining", "rest", "others")  # "the others", "the rest": a head too

# ---- Clauses (claw.planner.language.grammar) -----------------------------------------------------
# Words a definition cannot define ("this is a the block")
UNDEFINABLE = {"the", "a", "an", "that", "this", "those", "these", "its", "of"}
POLITE = ("please", "pls", "thanks", r"thank\s+you", "thx")  # regular expressions, dropped

# The verb classes (grammar rules), preferred in this order where a clause reads as more than
# one; "tower" and "unstack" are grammar rules of their own (tower_verb, unstack_verb below).
VERB_CLASSES: dict[str, tuple[str, ...]] = {
    "v_unsupported": UNSUPPORTED_VERBS,
    "v_push": PUSH_VERBS,
    "v_separate": SEPARATE_VERBS,
    "v_empty": EMPTY_VERBS,
    "v_approach": APPROACH_VERBS,
    "v_pick": PICK_VERBS,
    "v_stack": STACK_VERBS,
    "v_place": PLACE_VERBS,
}
VERB_ORDER = ("tower", "unstack", *VERB_CLASSES)
Action = Literal["place", "stack", "pick", "push", "unstack", "swap", "note"]
"""What a clause asks for (``Request.action``): each verb class reads as one of these, and
grounding has a handler for each that is not a place, a stack or a pick."""

# The grammar's word lists: each is the rule of that name in grammar.lark, one alternative a
# phrase (words split at spaces).
GRAMMAR_WORDS: dict[str, tuple[str, ...]] = {
    **VERB_CLASSES,
    "v_unit": tuple(UNITS),
    "v_number": tuple(NUMBER_WORDS),
    "v_size": tuple(SIZE_WORDS),
    # "first", "then", "finally", "ok so": words that only order clauses
    "_sequence_word": ("first", "firstly", "then", "and", "also", "next", "after that",
                       "afterwards", "finally", "lastly", "last", "second", "secondly", "third",
                       "thirdly", "now", "ok", "okay", "so"),
    # politeness and filler before the verb ("keep": + -ing)
    "_filler_phrase": ("please", "would you mind", "do you mind", "can you", "could you",
                       "would you", "i want you to", "go and", "go", "now", "keep", "kindly",
                       "i'd like you to", "i would like you to", "you should", "let's", "lets",
                       "go ahead and", "try to", "i need you to", "you can", "just"),
    "_address": ("robot", "claw"),
    "tower_verb": ("build", "make", "create", "form", "construct", "assemble"),
    "tower_prep": ("out of", "of", "with", "from", "using"),
    "_tower_kind": ("tower", "stack", "pile"),
    "unstack": ("unstack", "destack", "dismantle", "disassemble", "take apart", "take off",
                "collapse", "remove"),
    "off_verb": ("take", "get", "lift", "move", "put", "pick", "grab", "remove"),
    "updown": ("up", "down", "away"),
    "_tower_word": ("tower", "towers", "stack", "stacks", "pile", "piles"),
    "_group": ("group", "place", "spot", "pile"),
    "be": ("is", "are", "end up", "ends up", "sit", "sits", "lies", "lie", "stand", "stands"),
    # "right next to", "directly behind", "over by"
    "adverb": ("right", "directly", "just", "immediately", "exactly", "anywhere", "somewhere",
               "over", "neatly", "carefully", "gently", "back", "slightly", "away"),
    "side": tuple(SIDE_RELATIONS),
    "push_word": ("by", "about", "around", "roughly", "some", "over"),  # "push it by about 5 cm"
    "parity": ("even", "odd"),
    "_swap_verb": ("swap", "switch", "exchange", "interchange", "trade"),
    "_swap_what": ("positions", "places", "spots", "locations", "containers", "boxes"),
    "_wish_lead": ("i want", "i need", "i would like", "i'd like", "make sure", "making sure",
                   "make sure that", "making sure that", "ensure", "ensure that",
                   "see to it that"),
    "_done": ("stacked", "placed", "put", "moved", "set", "sitting", "resting", "lying",
              "standing", "kept"),
    "_state_verb": ("be", "end up", "ends up", "sit", "sits", "stand", "stands", "lie", "lies",
                    "rest", "rests", "go", "goes"),
    "_must": ("should", "must", "needs to", "need to", "has to", "have to", "ought to", "goes",
              "go"),
    "_article": ("a", "an", "the"),
}  # fmt: skip
