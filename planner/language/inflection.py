"""The -ing, past-participle and third-person forms of the reader's verbs, by English spelling
rules ("drop": "dropping", "dropped", "drops"; "place": "placing", "placed", "places") and a
table of irregular participles.

API::

    gerund("put")          # "putting"
    participle("bring")    # "brought"
    third_person("push")   # "pushes"
    verb_forms("ing")      # {"putting": "put", "placing": "place", ...}
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from claw.planner.language import lexicon

__all__ = ["gerund", "participle", "third_person", "verb_forms"]

IRREGULAR_PARTICIPLES = {
    "put": "put", "set": "set", "lay": "laid", "bring": "brought", "throw": "thrown",
    "stick": "stuck", "leave": "left", "hold": "held", "take": "taken", "get": "gotten",
    "slide": "slid", "sweep": "swept", "build": "built", "make": "made", "spin": "spun",
    "split": "split", "spread": "spread", "fit": "fit", "run": "run", "break": "broken",
    "shake": "shaken", "say": "said", "find": "found", "keep": "kept", "turn": "turned",
}  # fmt: skip
"""Participles that no spelling rule gives (``get``: also "got", in :func:`verb_forms`)."""

_VOWELS = "aeiou"


def _doubles(verb: str) -> bool:
    """Whether the final consonant doubles before a suffix: one vowel, then one consonant
    ("drop", "grab", "put"; not "push", "lift", "sweep", "position")."""
    return (
        len(re.findall(r"[aeiou]+", verb)) == 1
        and re.search(r"[^aeiou][aeiou][^aeiouwxy]$", verb) is not None
    )


def _inflect(verb: str, suffix: Literal["ing", "ed"]) -> str:
    """``verb`` with a regular ``-ing`` or ``-ed`` suffix, spelled as English spells it."""
    if suffix == "ing" and verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        return verb[:-1] + suffix
    if suffix == "ed" and re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ied"
    if _doubles(verb):
        return verb + verb[-1] + suffix
    return verb + suffix


def gerund(verb: str) -> str:
    """The -ing form of a verb (its first word, for "pick up")."""
    head, _, tail = verb.partition(" ")
    return " ".join(filter(None, [_inflect(head, "ing"), tail]))


def participle(verb: str) -> str:
    """The past participle of a verb (its first word, for "pick up")."""
    head, _, tail = verb.partition(" ")
    return " ".join(filter(None, [IRREGULAR_PARTICIPLES.get(head) or _inflect(head, "ed"), tail]))


def _verbs() -> list[str]:
    """The one-word verbs the reader knows: its verb classes', the tower verbs, "keep"."""
    phrases = [p for table in lexicon.VERB_CLASSES.values() for p in table]
    phrases += [*lexicon.GRAMMAR_WORDS["tower_verb"], "keep"]
    return list(dict.fromkeys(p for p in phrases if " " not in p))


def third_person(verb: str) -> str:
    """The third person singular of a verb (its first word): "places", "pushes", "carries"."""
    head, _, tail = verb.partition(" ")
    if re.search(r"(s|sh|ch|x|z|o)$", head):
        head += "es"
    elif re.search(r"[^aeiou]y$", head):
        head = head[:-1] + "ies"
    else:
        head += "s"
    return " ".join(filter(None, [head, tail]))


@cache
def verb_forms(form: Literal["ing", "participle", "third"]) -> dict[str, str]:
    """Each verb's -ing form, past participle or third person singular, to the verb."""
    if form == "third":  # "the robot arm removes ...": the unstack verbs too
        words = lexicon.GRAMMAR_WORDS["unstack"] + lexicon.GRAMMAR_WORDS["off_verb"]
        verbs = _verbs() + [w for w in words if " " not in w]
        return {third_person(verb): verb for verb in dict.fromkeys(verbs)}
    inflected = gerund if form == "ing" else participle
    suffix = "ing" if form == "ing" else "ed"
    forms: dict[str, str] = {}
    for verb in _verbs():
        forms[inflected(verb)] = verb
        if re.search(r"[aeiou][^aeiouwxy]$", verb):  # a stressed last syllable: "transferred"
            forms.setdefault(verb + verb[-1] + suffix, verb)
    if form == "participle":
        forms.setdefault("got", "get")
    return forms
