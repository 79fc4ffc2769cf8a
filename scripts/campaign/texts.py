"""Named texts a table row writes as `${NAME}` inside any of its strings (arguments, files, env).

They are the instructions and values that are too long, too strange or too secret to write out:
`${INSTR}` is put in at load time, unlike `{DIR}` or `{API:behaviour}`, which each case expands
when it runs.
"""

from __future__ import annotations

import hashlib

from .answers import DEEP_NOT, ESCAPES
from .limits import API_KEY

INSTR = "put the green block next to the blue box"  # succeeds on the default scene, seed 0
BAD_OBJECT = "put the purple block in the blue box"  # unknown_object, before anything moves
TWO_BOXES = "put the red block in the red box, then put the blue block in the blue box"
#: README: "an instruction over 1,000 characters ..., or a sentence of it ... over 80 words".
CHARS_1001 = ("put the green block next to the blue box. " * 24)[:1001]
CHARS_990 = "put the green block next to the blue box. " * 22  # 924 characters
WORDS_90 = " and ".join(["put the green block next to the blue box"] * 10)
CLAUSES_100 = ", then ".join(["push the red block 1 cm to the left"] * 100)
AND_100 = " and ".join(["put the green block next to the blue box"] * 100)
KB_100 = ("put the green block next to the blue box and " * 2300)[:100_000]
WORD_100KB = "a" * 100_000
#: Finding 4: README: "100 KB is refused at once, by every planner: no model is asked".
KB_119 = ("put the green block next to the blue box and " * 2700)[:119_000]
#: Finding 7: the byte 0xff as the shell passes it (a surrogate escape in Python's argv).
BAD_UTF8 = "put the green block \udcff next to the blue box"
#: Finding 8: fullwidth letters (NFKC: the same instruction as INSTR).
FULLWIDTH = "".join(chr(ord(c) + 0xFEE0) if c != " " else c for c in INSTR)
#: Finding 6: a hybrid nested a thousand times.
NESTED_HYBRID = "offline+" * 1000 + "openai/whatever"
#: Finding 21: -k expressions of about 1,000 characters (the cap) whose reason comes last.
K_LONG_MALFORMED = "next or " * 124 + "(("
K_LONG_NOTHING = "zzz or " * 142 + "zzz"
#: Finding 3: a password inside a tracking URI, which must never be shown.
TRACKING_PASSWORD = "pw-" + hashlib.sha256(b"tracking" + API_KEY.encode()).hexdigest()[:24]
#: A billion laughs inside one `--hyperparams` value.
BOMB_HYPER_VALUE = (
    "her=["
    + ", ".join(
        [f"&b{n} [" + ", ".join([f"*b{n - 1}" if n else "lol"] * 9) + "]" for n in range(9)]
    )
    + "]"
)

#: Every text a row may name, by its name.
TEXTS: dict[str, str] = {
    "INSTR": INSTR,
    "BAD_OBJECT": BAD_OBJECT,
    "TWO_BOXES": TWO_BOXES,
    "CHARS_1001": CHARS_1001,
    "CHARS_990": CHARS_990,
    "WORDS_90": WORDS_90,
    "CLAUSES_100": CLAUSES_100,
    "AND_100": AND_100,
    "KB_100": KB_100,
    "WORD_100KB": WORD_100KB,
    "KB_119": KB_119,
    "BAD_UTF8": BAD_UTF8,
    "FULLWIDTH": FULLWIDTH,
    "NESTED_HYBRID": NESTED_HYBRID,
    "K_LONG_MALFORMED": K_LONG_MALFORMED,
    "K_LONG_NOTHING": K_LONG_NOTHING,
    "TRACKING_PASSWORD": TRACKING_PASSWORD,
    "BOMB_HYPER_VALUE": BOMB_HYPER_VALUE,
    "DEEP_NOT": DEEP_NOT,  # not( nested 5,000 deep (finding 5)
    "ESCAPES": ESCAPES,  # terminal escapes and rich markup
    "API_KEY": API_KEY,
}
