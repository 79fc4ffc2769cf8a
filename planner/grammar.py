"""Reading instructions: a small grammar with synonyms, from words to goal predicates.

An instruction is one or more clauses joined by full stops, "then", "after that", or a comma or
"and" that starts a new request (a verb follows, or both sides say where: "put the red block in
the red box, the blue one in the blue box"); a clause without a verb takes the previous one's.
Each clause is a verb phrase: ``VERB OBJECTS [RELATION TARGET]`` (put, place, move, set, drop,
stick, stack, build a tower of, ...), ``pick up OBJECTS``, or ``push OBJECTS [DISTANCE] DIRECTION
[DISTANCE]`` (a place verb with a distance, "move it 5 cm left", is a push; a push verb with a
place, "slide it next to the box", is a place). Noun phrases name objects by colour and type
("the red block", "the blue bin", "the green one"), all objects of a type ("all the blocks"),
the boxes of matching colours, or a table region ("the far left corner", "the top of the table").
Politeness, sequence words and case are ignored. What cannot be read is ``unparseable``; what
reads but no skill can do is ``unsupported``; a colour and type absent from the scene is
``unknown_object`` — all before anything moves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from claw.envs.exceptions import ClawError, UnknownObjectError
from claw.planner.exceptions import UnparseableError, UnsupportedError
from claw.planner.reference import (
    Reference,
    RegionReference,
    named_region,
    parse_reference,
    parse_references,
    parse_region,
)
from claw.planner.vocabulary import (
    COLOR_WORDS,
    DEFAULT_PUSH,
    DIRECTION_WORDS,
    NUMBER_WORDS,
    PICK_VERBS,
    PLACE_VERBS,
    PUSH_VERBS,
    REGION_NOUNS,
    RELATION_PHRASES,
    SMALL_PUSH,
    STACK_VERBS,
    TYPE_WORDS,
    UNITS,
    UNSUPPORTED_VERBS,
)

_CLAUSE_SPLIT = re.compile(
    r"\s*(?:(?:[;:!?]|\.(?!\d))+|,?\s+(?:and\s+)?then\s+|,?\s+(?:and\s+)?after\s+that,?\s+|"
    r",?\s+(?:and\s+)?afterwards,?\s+)\s*"
)
# Weak separators: a comma or "and", a new clause only where a verb follows or both sides say where.
_WEAK_SPLIT = re.compile(r"(\s*,\s*(?:and\s+)?|\s+and\s+)")
# Words that order clauses ("first", "then", "finally") and politeness carry no request.
_SEQUENCE_WORDS = re.compile(
    r"^(?:(?:first(?:ly)?|then|and|also|next(?!\s+to\b)|after\s+that|afterwards|finally|"
    r"lastly|last|second(?:ly)?|third(?:ly)?|now|ok(?:ay)?|so),?\s+)+"
)
_POLITE = re.compile(r"\b(?:please|pls|thanks|thank\s+you|thx)\b[,!.]?")
_ARTICLES = {"the", "a", "an", "that", "this", "those", "these", "its", "of"}
_FILLER = re.compile(
    r"^(?:please\s+|(?:would|do)\s+you\s+mind\s+|can you\s+|could you\s+|would you\s+|"
    r"i want you to\s+|go and\s+|go\s+|now\s+|keep\s+(?=\w+ing\b)|"
    r"kindly\s+|robot,?\s+|claw,?\s+|i(?:'d|\s+would)\s+like\s+you\s+to\s+|you\s+should\s+|"
    r"let's\s+|lets\s+|go\s+ahead\s+and\s+|try\s+to\s+|"
    r"i\s+need\s+you\s+to\s+|you\s+can\s+|just\s+)+"
)
# "build a tower of/with ...", "make a pile from ..." mean "stack ..."
_TOWER = re.compile(
    r"^(?:build|make|create|form|construct|assemble)\s+(?:a|an|one)?\s*(?:\w+\s+)?"
    r"(?:tower|stack|pile)\s+(?:out\s+of|of|with|from|using)\s+"
)
# "on top of each other", "into a tower": a stack without a named base
_EACH_OTHER = re.compile(
    r"\s+(?:on\s+(?:top\s+of\s+)?|onto\s+)(?:each\s+other|one\s+another)\b|"
    r"\s+(?:in|into)\s+(?:a|one)\s+(?:single\s+)?(?:tower|stack|pile)\b"
)

# Where in the tower being built: "with the red block at the bottom", "the blue one on top"
_TOWER_LEVEL = re.compile(r"\s+(?:at|on|as)\s+(?:the\s+)?(?P<end>bottom|base|top)$")
# "put the blue objects together", "gather them into one group": all in one place
_TOGETHER = re.compile(
    r"\s+(?:together|(?:in|into)\s+(?:one|a|a\s+single)\s+(?:group|place|spot|pile))$"
)
# "gather the blue things into one group by putting the blue block in the blue bowl": the means
# says what to do
_BY_MEANS = re.compile(r"^.+?\s+by\s+(?=\w+ing\b)")

# "unstack the tower", "take the tower apart": every block resting on another goes to the table
_UNSTACK = re.compile(r"^(?:unstack|destack|dismantle|disassemble|take\s+apart)\b")
_TOWER_NOUN = re.compile(
    r"^(?:the\s+|all\s+(?:the\s+)?|every\s+|each\s+|both\s+(?:the\s+)?)?"
    r"(?:whole\s+|entire\s+)?(?:tower|stack|pile)s?(?:\s+apart)?$"
)
# "take the blocks off the red block": the target is what they rest on
_OFF = re.compile(r"\s+off\s+(?:of\s+)?(?:the\s+top\s+of\s+)?(?=\S)")
# "put every block (back) on the table": down from wherever they are stacked
_ON_TABLE = re.compile(r"^(.+?)\s+(?:back\s+)?(?:down\s+)?(?:on|onto|on\s+to)\s+the\s+table$")


@dataclass
class Request:
    """One clause read from an instruction."""

    action: str  # place | stack | pick | push | unstack | note (says what "it" is)
    objects: list[Reference] = field(default_factory=list)
    relation: str | None = None
    target: Reference | None = None
    region: str | None = None
    region_ref: RegionReference | None = None  # "the corner farthest from the purple bowl"
    levels: list[str | None] | None = None  # stack: each object's "bottom" / "top", if said
    direction: str | None = None
    distance: float | None = None
    text: str = ""


def normalise(instruction: str) -> str:
    """Lower case, plain spaces, no quotes; punctuation kept where it separates clauses."""
    text = instruction.lower().replace("’", "'").replace("_", " ")
    text = re.sub(r"[\"“”]", " ", text)
    text = re.sub(r"\bcentre\b", "center", text)
    text = re.sub(r"\b(it|that|what)'s\b", r"\1 is", text)
    text = re.sub(r"\bthey're\b", "they are", text)
    text = re.sub(r"\b(left|right)[- ]hand\b", r"\1", text)  # "the left-hand side"
    text = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)  # "warm-coloured", "top-left"
    text = re.sub(r"(\d)\s*(cm|mm|m)\b", r"\1 \2", text)
    text = _POLITE.sub(" ", text)
    return " ".join(text.split())


def _verb_at(text: str) -> str | None:
    """The verb a clause starts with (after filler words), if it starts with one."""
    text = _strip_filler(text)
    if _TOWER.match(text):
        return "stack"
    if _UNSTACK.match(text):
        return "unstack"
    for verb in (*UNSUPPORTED_VERBS, *PUSH_VERBS, *PICK_VERBS, *STACK_VERBS, *PLACE_VERBS, "sort"):
        if re.match(rf"{re.escape(verb)}\b", text):
            return verb
    return None


def _says_where(clause: str) -> bool:
    """True when ``clause`` reads as a full request with a place or direction."""
    try:
        request = parse_clause(clause, elide=False)
    except ClawError:
        return False
    return request.relation is not None or request.direction is not None


def split_clauses(text: str) -> list[str]:
    """Clauses joined by full stops, "then", or a comma or "and" that starts a new request.

    A comma or "and" separates clauses where a verb follows ("pick up the red block and put it
    ..."), or where both sides say where ("put the red block in the red box, the blue block in
    the blue box"); elsewhere it joins a list of objects ("the red, green and blue blocks").
    A clause without its own verb is given the previous clause's verb.
    """
    clauses: list[str] = []
    verb: str | None = None

    def with_verb(piece: str) -> str:
        return piece if _verb_at(piece) or verb is None else f"{verb} {piece}"

    for part in _CLAUSE_SPLIT.split(text):
        part = _SEQUENCE_WORDS.sub("", part.strip(" ,")).strip()
        if not part:
            continue
        pieces = _WEAK_SPLIT.split(part)
        current = with_verb(pieces[0])
        verb = _verb_at(current) or verb
        for sep, piece in zip(pieces[1::2], pieces[2::2], strict=True):
            piece = _SEQUENCE_WORDS.sub("", piece.strip()).strip()
            if not piece:
                continue
            if _verb_at(piece) or (_says_where(current) and _says_where(with_verb(piece))):
                if _strip_filler(current) != _verb_at(current):  # "grasp and lift X": one clause
                    clauses.append(current)
                current = with_verb(piece)
                verb = _verb_at(current) or verb
            else:
                current = f"{current}{sep}{piece}"
        clauses.append(current)
    return clauses


# "would you mind putting ...": the verb's -ing form
_GERUNDS = {"putting": "put", "placing": "place", "moving": "move", "setting": "set",
            "dropping": "drop", "sticking": "stick", "stacking": "stack", "picking": "pick",
            "grabbing": "grab", "lifting": "lift", "taking": "take", "pushing": "push",
            "sliding": "slide", "nudging": "nudge", "shoving": "shove", "building": "build",
            "making": "make", "pulling": "pull", "holding": "hold", "keeping": "keep",
            "raising": "raise", "grasping": "grasp"}  # fmt: skip


def _strip_filler(clause: str) -> str:
    text = _FILLER.sub("", clause).strip()
    means = _BY_MEANS.match(text)
    if means and text[means.end() :].split(" ", 1)[0] in _GERUNDS:
        text = text[means.end() :]
    first, _, rest = text.partition(" ")
    return f"{_GERUNDS[first]} {rest}".strip() if first in _GERUNDS else text


def _find_relation(rest: str) -> tuple[str, str, str] | None:
    """(objects text, relation, target text): the first relation phrase in ``rest`` whose two
    sides read — the objects as noun phrases (or nothing), the target as a noun phrase or a
    place on the table. "the block closest to the red bowl in the green box" splits at "in"."""
    found: list[tuple[int, int, str]] = []
    for phrase, relation in RELATION_PHRASES:
        for match in re.finditer(rf"(?:^|\s){re.escape(phrase)}(?:\s|$)", rest):
            found.append((match.start(), -(match.end() - match.start()), relation))
    first: tuple[str, str, str] | None = None
    for start, length, relation in sorted(found):
        end = start - length
        split = rest[:start].strip(), relation, rest[end:].strip()
        first = first or split
        if _reads_as_objects(split[0]) and _names_place(split[2]):
            return split
    return first


def _reads_as_objects(text: str) -> bool:
    if not text:
        return True
    try:
        parse_references(text)
    except UnparseableError:
        return False
    return True


def _region_of(text: str) -> str | None:
    """The table region a target phrase names outright, if it names one."""
    region = named_region(text.split())
    return None if region is None else region.region


def _names_place(target: str) -> bool:
    """True when ``target`` names objects or a table region ("the blue box", "the far side")."""
    nouns = {"side", "corner", "center", "middle", "table", *REGION_NOUNS}
    if _region_of(target) and nouns & set(target.split()):  # not a bare "the right"
        return True
    region = parse_region(target)
    if region is not None and region.region is None:  # "the corner farthest from the bowl"
        return True
    try:
        parse_reference(target)
    except UnparseableError:
        return False
    return True


def _parse_distance(text: str) -> tuple[float | None, str]:
    match = re.search(
        r"(\d+(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")\s+(" + "|".join(UNITS) + r")\b", text
    )
    if match:
        raw = match.group(1)
        value = float(raw) if raw[0].isdigit() else float(NUMBER_WORDS[raw])
        return value * UNITS[match.group(2)], (text[: match.start()] + text[match.end() :]).strip()
    small = re.search(r"\b(?:a (?:little )?bit|slightly|a little|a touch)\b", text)
    if small:
        return SMALL_PUSH, (text[: small.start()] + text[small.end() :]).strip()
    return None, text


def parse_clause(clause: str, elide: bool = True) -> Request:
    """One verb phrase to a ``Request``; with ``elide``, "put X Y" reads as "put X to Y"."""
    text = _strip_filler(clause)
    tower = _TOWER.match(text)
    if tower:  # "build a tower of the red, green and blue blocks"
        text = "stack " + text[tower.end() :]
    unstack = _UNSTACK.match(text)
    if unstack:
        return _parse_unstack(text[unstack.end() :].strip(), clause)
    apart = re.match(r"take\s+(.+?)\s+apart$", text)
    if apart:  # "take the tower apart"
        return _parse_unstack(apart.group(1), clause)
    off = _OFF.search(text)
    if off and re.match(r"(?:take|get|lift|move|put|pick|grab|remove)\b", text):
        words = re.sub(r"^\S+\s+", "", text[: off.start()])
        words = re.sub(r"^(?:up|down)\s+|\s+(?:up|down)$", "", words)
        return _parse_unstack(words, clause, target=text[off.end() :])
    for verb in UNSUPPORTED_VERBS:
        if re.match(rf"{re.escape(verb)}\b", text):
            rest = text[len(verb) :].strip()
            if verb == "sort" and _find_relation(rest) is not None:  # "sort the blocks into ..."
                return _parse_place(rest, clause, "place")
            raise UnsupportedError(
                f"{verb!r} is not something the claw can do; it can pick, place, stack and push"
            )
    for verb in PUSH_VERBS:
        if re.match(rf"{verb}\b", text):
            return _parse_push(text[len(verb) :].strip(), clause)
    for verb in PICK_VERBS:
        if re.match(rf"{verb}\b", text):
            rest = re.sub(r"^up\b", "", text[len(verb) :].strip()).strip()
            rest = re.sub(r"\s+up$", "", rest)
            if not _reads_as_objects(rest) and _find_relation(rest) is not None:
                return _parse_place(rest, clause, "place")  # "take the red block to the box"
            return Request("pick", objects=parse_references(rest), text=clause)
    for verb in STACK_VERBS:
        if re.match(rf"{verb}\b", text):
            return _parse_place(text[len(verb) :].strip(), clause, "stack")
    for verb in PLACE_VERBS:
        if re.match(rf"{verb}\b", text):
            return _parse_place(text[len(verb) :].strip(), clause, "place", elide)
    raise UnparseableError(
        f"cannot read {clause!r}: start with put, place, move, stack, pick up or push"
    )


_RELATION_WORDS = "|".join(
    re.escape(p) for p, _ in sorted(RELATION_PHRASES, key=lambda pr: -len(pr[0]))
)
_ADVERB = re.compile(  # "right next to" (but "the right into the box" is a side)
    r"(?<!the )\b(?:right|directly|just|immediately|exactly|anywhere|somewhere|over|neatly|"
    r"carefully|gently)\s+(?=(?:" + _RELATION_WORDS + r")\b)"
)
_DISTANCE = re.compile(r"\b\d+(?:\.\d+)?\s+(?:cm|mm|m|centimet(?:er|re)s?|met(?:er|re)s?)\b")
_SIDES = {"left": "left_of", "right": "right_of", "front": "in_front_of", "back": "behind",
          "rear": "behind"}  # fmt: skip
_SIDE_OF = re.compile(
    r"^(?:the\s+)?(left|right|front|back|rear)\s+(?:side\s+)?of\s+(?!(?:the\s+)?table\b)(.+)$"
)


def _parse_unstack(rest: str, clause: str, target: str | None = None) -> Request:
    """Blocks to take off whatever they rest on: "the tower", "the blocks", "it"."""
    rest = re.sub(r"\s+apart$", "", rest.strip())
    if not rest or _TOWER_NOUN.match(rest):
        objects = [Reference(quantity="all", type="block", text=rest or "the blocks")]
    else:
        objects = parse_references(rest)
    return Request("unstack", objects=objects, target=parse_reference(target) if target else None,
                   text=clause)  # fmt: skip


def _parse_place(rest: str, clause: str, action: str, elide: bool = False) -> Request:
    together = _TOGETHER.search(rest)
    if together and action == "place":  # "group the blue objects together": in one place
        return Request("place", objects=parse_references(rest[: together.start()]),
                       relation="together", text=clause)  # fmt: skip
    if action == "stack" and _TOWER_LEVEL.search(rest):
        # "a tower with the red block at the bottom, then the green block, …"
        objects, levels = [], []
        for part in (p for p in re.split(r"\s*(?:,|\band\b)\s*", rest) if p):
            level = _TOWER_LEVEL.search(part)
            named = parse_references(part[: level.start()] if level else part)
            objects += named
            levels += [level["end"] if level else None] * len(named)
        return Request("stack", objects=objects, levels=levels, text=clause)
    each_other = _EACH_OTHER.search(" " + rest)
    if each_other:  # "put the blocks on top of each other": a stack
        action, rest = "stack", (" " + rest)[: each_other.start()].strip()
    if re.search(r"\bbetween\b", rest):
        raise UnsupportedError(
            f"no skill places an object between two others ({clause!r}); "
            "say next to, left of, right of, behind or in front of one of them"
        )
    on_table = _ON_TABLE.match(rest)
    if on_table and action == "place":  # "put every block on the table": unstack them
        return _parse_unstack(on_table.group(1), clause)
    if re.search(r"(?:\bdown|\b(?:on|onto|to)\s+the\s+table|\baside)$", rest):
        raise UnsupportedError(
            f"no skill puts an object down at an unnamed spot ({clause!r}); name a table region "
            "(the center, the left side, the far right corner, ...) or an object to put it next to"
        )
    # "move the red block so (that) it is behind ...", "... so they end up in ..."
    rest = re.sub(
        r"\s+so(?:\s+that)?\s+(?:it|they|each(?:\s+one)?)(?:\s+(?:is|are|ends?\s+up|sits?|lies|"
        r"lie|stands?))?\b",
        "",
        rest,
    )
    rest = re.sub(r"\s+(?:up|down)\b(?=\s|$)", "", " " + rest).strip()
    if action == "place" and (
        _find_relation(rest) is None
        or re.search(r"\d|\b(?:a (?:little )?bit|slightly|a little)\b", rest)
    ):
        try:  # "move the red block 5 cm to the right": along the table, a push
            return _parse_push(rest, clause, allow_place=False)
        except UnparseableError:
            pass
    _, rest = _parse_distance(rest) if _DISTANCE.search(rest) else (None, rest)
    rest = _ADVERB.sub("", rest)  # "right next to", "directly behind", "over by"
    found = _find_relation(rest)
    under = re.search(r"\b(?:under|underneath|beneath|below)\b", rest)
    if under and (found is None or under.start() >= len(found[0])):  # not "the block under X"
        raise UnsupportedError(
            f"no skill puts an object under another ({clause!r}); put the other one on it instead"
        )
    if found is not None and found[1] in ("at", "on", "in"):
        side = _SIDE_OF.match(found[2])  # "at the left of the blue box": left of it
        if side:
            found = (found[0], _SIDES[side.group(1)], side.group(2))
    if found is None and elide:  # "put the yellow one the green thing" (sic)
        found = _elided_relation(rest)
    if found is None:
        if action == "stack":
            return Request("stack", objects=parse_references(rest), text=clause)
        raise UnparseableError(f"cannot read where to put things in {clause!r}")
    objects_text, relation, target_text = found
    if action == "stack" and relation in ("at", "in"):
        relation = relation if relation == "in" else "on"
    objects = parse_references(objects_text) if objects_text else [Reference(quantity="pronoun")]
    region = _region_of(target_text) if relation in ("at", "in", "on", "next_to") else None
    if region is not None:
        return Request("place" if action != "stack" else "stack", objects=objects, relation="at",
                       region=region, text=clause)  # fmt: skip
    region_ref = parse_region(target_text) if relation in ("at", "in", "on", "next_to") else None
    if region_ref is not None:  # "in the corner farthest from the purple bowl"
        return Request("place" if action != "stack" else "stack", objects=objects, relation="at",
                       region_ref=region_ref, text=clause)  # fmt: skip
    if relation == "at":  # "move the block to the bowl": into a container, else next to it
        if target_text.startswith(("the", "a ")):
            kind = parse_reference(target_text).type
            relation = {"box": "in", None: "to"}.get(kind, "next_to")  # "to": once grounded
        if relation == "at":
            raise UnparseableError(f"cannot read {target_text!r} as a place on the table")
    if action == "stack":
        relation = "on"
    return Request(action, objects=objects, relation=relation, target=parse_reference(target_text),
                   text=clause)  # fmt: skip


def _elided_relation(rest: str) -> tuple[str, str, str] | None:
    """(objects, "at", target) when ``rest`` is two noun phrases with no preposition between
    them: the target then reads as after "to" (into a box, else next to it)."""
    words = rest.split()
    for i, word in enumerate(words[1:], start=1):
        objects, target = " ".join(words[:i]), " ".join(words[i:])
        if word in ("the", "a", "an") and _reads_as_objects(objects) and _names_place(target):
            return objects, "at", target
    return None


def _parse_push(rest: str, clause: str, allow_place: bool = True) -> Request:
    found = _find_relation(rest) if allow_place else None
    if found is not None and found[0] and _names_place(found[2]):
        # "slide the red block next to the blue box", "slide it to the far left corner":
        # a place, by whatever skill gets it there
        return _parse_place(rest, clause, "place")
    distance, rest = _parse_distance(rest)
    direction = None
    for phrase, name in DIRECTION_WORDS:
        match = re.search(
            rf"(?:^|\s)(?:to\s+the\s+|towards\s+the\s+|toward\s+the\s+)?{re.escape(phrase)}(?:\s|$)",
            rest,
        )
        if match:
            direction = name
            rest = (rest[: match.start()] + " " + rest[match.end() :]).strip()
            break
    if direction is None:
        raise UnparseableError(
            f"cannot read which way to push in {clause!r}: say left, right, forward or back"
        )
    distance, rest = (distance, rest) if distance is not None else _parse_distance(rest)
    rest = re.sub(r"\b(?:by|about|around|roughly|some|over)\b", " ", rest)
    rest = " ".join(rest.split())
    objects = parse_references(rest) if rest else [Reference(quantity="pronoun")]
    distance = distance if distance is not None else DEFAULT_PUSH
    return Request("push", objects=objects, direction=direction, distance=distance, text=clause)


def parse_instruction(instruction: str) -> list[Request]:
    """The requests in an instruction, in order.

    Raises:
        UnparseableError: empty, or a clause that cannot be read.
        UnsupportedError: a clause asking for something no skill does.
    """
    text = normalise(instruction)
    if not re.search(r"[a-z]", text):
        raise UnparseableError(
            "the instruction is empty; say what to do, e.g. 'put the red block in the blue box'"
        )
    text = _distribute(text)
    requests: list[Request] = []
    names: dict[str, str] = {}  # new words the instruction defines ("this is a dax red block")
    for clause in split_clauses(text):
        defined = _definitions(clause)
        if defined:
            names.update(defined)
            continue
        told = _statement(clause)
        if told is not None:  # "the purple block is hidden under the orange block": context
            requests.append(told)
            continue
        for word, meaning in names.items():
            clause = re.sub(rf"\b(?:a|an|the|that|this)\s+{word}\b", meaning, clause)
        requests.append(parse_clause(clause))
    if all(r.action == "note" for r in requests):
        what = "defines words" if not requests else "says where things are"
        raise UnparseableError(f"{instruction.strip()!r} {what} but asks for nothing")
    return requests


# "for each color that has an even number of blocks, put those blocks in the zone of that
# color": the quantifier names the set the clause's "those blocks" / "them" refers to.
_FOR_EACH_COLOR = re.compile(
    r"^for\s+(?:each|every|any)\s+colou?r\s+(?:(?:that|which)\s+(?:has|have)|with)\s+(?:an?\s+)?"
    r"(?P<parity>even|odd)\s+number\s+of\s+(?P<noun>\w+)\s*,?\s+(?P<clause>.+)$"
)
_ANAPHOR = r"\b(?:those|these|the|its|their)\s+{noun}\b|\b(?:them|those|these)\b"


def _distribute(text: str) -> str:
    """The clause of a fronted "for each colour that has an even number of blocks, …", its
    "those blocks" (or "them") written out as "the blocks whose colour appears an even number of
    times"."""
    match = _FOR_EACH_COLOR.match(text)
    if match is None:
        return text
    noun = match["noun"]
    named = f"the {noun} whose color appears an {match['parity']} number of times"
    clause, count = re.subn(_ANAPHOR.format(noun=re.escape(noun)), named, match["clause"], count=1)
    return clause if count else text


# A new word for an object of the scene: "this is a dax red block", "a blicket is the blue
# block", "call the cyan block a dax" (VIMA-Bench's novel nouns); only words the lexicon lacks.
_DEFINE = (
    re.compile(r"^(?:this|that|it|here)\s+is\s+(?:a|an|the)\s+(?P<word>[a-z]+)\s+(?P<np>.+)$"),
    re.compile(r"^(?:a|an|the)\s+(?P<word>[a-z]+)\s+is\s+(?P<np>.+)$"),
    re.compile(r"^call\s+(?P<np>.+?)\s+(?:a|an)\s+(?P<word>[a-z]+)$"),
)


def _definitions(clause: str) -> dict[str, str]:
    """The words ``clause`` defines (word -> its noun phrase), or none when it is no definition."""
    clause = _strip_filler(clause)
    parts = re.split(r"\s+and\s+(?=(?:a|an|the)\s+[a-z]+\s+is\s|(?:the|a|an)\s)", clause)
    if clause.startswith("call "):
        parts = [parts[0], *(f"call {p}" for p in parts[1:])]
    found: dict[str, str] = {}
    for part in parts:
        match = next((m for m in (d.match(part) for d in _DEFINE) if m), None)
        if match is None or _known_word(match["word"]):
            return {}
        np = re.sub(r"^(?:a|an|the)\s+", "", match["np"].strip())
        try:
            parse_reference(f"the {np}")
        except UnparseableError:
            return {}
        found[match["word"]] = f"the {np}"
    return found


_STATEMENT = re.compile(r"^(?P<np>.+?)\s+(?:is|are)\s+(?P<where>.+)$")


def _statement(clause: str) -> Request | None:
    """A clause that says where something is, with no verb ("the purple block is hidden under
    the orange block"): it asks for nothing but names what "it" means next."""
    match = _STATEMENT.match(clause)
    if match is None or _verb_at(clause) is not None:
        return None
    try:
        objects = parse_references(match["np"])
        parse_reference(f"the object that is {match['where']}")  # a place it is said to be
    except UnparseableError:
        return None
    return Request("note", objects=objects, text=clause)


def _known_word(word: str) -> bool:
    known = word in COLOR_WORDS or word in TYPE_WORDS or word in _ARTICLES
    return known or _verb_at(word) is not None


def missing_object_error(noun: Reference, names: list[str]) -> UnknownObjectError:
    """The error for a noun phrase that matches no object of the scene."""
    what = " ".join(w for w in (noun.color, noun.type) if w) or noun.text
    return UnknownObjectError(f"there is no {what} in the scene; objects: {', '.join(names)}")
