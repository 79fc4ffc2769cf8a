"""MkDocs hook: the JSON contracts, generated from the pydantic models' JSON schemas.

A page line ``<!-- generated: schema MODULE.CLASS MODE -->`` (MODE ``validation`` for what claw
reads, ``serialization`` for what it writes) becomes, at build time, a table of the model's fields
and of every model it nests (type, required or default, description), then the JSON schema
itself in a collapsed block. A field's description is pydantic's, else the attribute docstring
under the field in the class body. ``python scripts/docs_schemas.py MODULE.CLASS [MODE]`` prints
one.
"""

from __future__ import annotations

import ast
import html
import importlib
import inspect
import json
import re
import sys
import textwrap
import typing
from typing import Any

from pydantic import BaseModel

MARKER = re.compile(r"^<!-- generated: schema ([\w.]+) (validation|serialization) -->$", re.M)


def load_model(dotted: str) -> type[BaseModel]:
    """The pydantic model named ``module.Class``."""
    module, _, name = dotted.rpartition(".")
    model = getattr(importlib.import_module(module), name)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"{dotted} is not a pydantic model")
    return model


def attribute_docs(model: type) -> dict[str, str]:
    """The docstrings written under annotated fields in the class bodies (the MRO's, base first)."""
    docs: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if cls is object or not issubclass(cls, BaseModel) or cls is BaseModel:
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for field, after in zip(body, [*body[1:], None], strict=True):
            if not (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)):
                continue
            if (
                isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[field.target.id] = inspect.cleandoc(after.value.value)
    return docs


def nested_models(model: type[BaseModel]) -> dict[str, type[BaseModel]]:
    """Every pydantic model reachable from ``model``'s fields, by class name (as ``$defs``)."""
    found: dict[str, type[BaseModel]] = {}
    todo: list[Any] = [model]
    while todo:
        item = todo.pop()
        if isinstance(item, type) and issubclass(item, BaseModel):
            if item.__name__ in found:
                continue
            found[item.__name__] = item
            todo += [field.annotation for field in item.model_fields.values()]
        else:
            todo += list(typing.get_args(item))
    return found


def describe(schema: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """``schema`` with each model's and field's description filled in from its docstrings."""
    classes = nested_models(model)
    parts = [(model.__name__, schema)]
    parts += list(schema.get("$defs", {}).items())
    for name, part in parts:
        cls = classes.get(name)
        if cls is None:
            continue
        if "description" not in part and cls.__doc__:  # a type serialised as text (Predicate)
            part["description"] = inspect.cleandoc(cls.__doc__).split("\n\n")[0]
        if "properties" not in part:
            continue
        docs = attribute_docs(cls)
        for field, prop in part["properties"].items():
            key = next((k for k, f in cls.model_fields.items() if (f.alias or k) == field), field)
            if "description" not in prop and key in docs:
                prop["description"] = docs[key]
    return schema


def type_of(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    """A JSON schema's type, written briefly: ``string``, ``array of StepReport``, …; a nested
    model links to its table, a named type without fields (``Predicate``) shows its own type."""
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[-1]
        target = defs.get(name, {})
        if "properties" not in target:
            return f"{name} ({type_of(target, defs)})"
        return f"[{name}](#{name.lower()})"
    if "const" in prop:
        return json.dumps(prop["const"])
    if "enum" in prop:
        return " \\| ".join(json.dumps(value) for value in prop["enum"])
    if "anyOf" in prop:
        return " or ".join(type_of(option, defs) for option in prop["anyOf"])
    kind = prop.get("type", "any")
    if kind == "array":
        if "prefixItems" in prop:
            inner = ", ".join(type_of(item, defs) for item in prop["prefixItems"])
            return f"[{inner}]"
        return f"array of {type_of(prop.get('items', {}), defs)}"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"object of {type_of(prop['additionalProperties'], defs)}"
    return str(kind)


def _bounds(prop: dict[str, Any]) -> str:
    words = {"minimum": "≥", "maximum": "≤", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
    out = [f"{sign} {prop[key]}" for key, sign in words.items() if key in prop]
    if "minItems" in prop:
        out.append(f"at least {prop['minItems']}")
    if "maxItems" in prop and "prefixItems" not in prop:
        out.append(f"at most {prop['maxItems']}")
    return ", ".join(out)


def _cell(text: str) -> str:
    text = html.escape(" ".join(text.split()), quote=False)
    return text.replace("|", "\\|")


def table(name: str, part: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    """One model's fields as a Markdown table under its own heading."""
    lines = [f"### {name}", ""]
    if part.get("description"):
        lines += [_cell(part["description"]), ""]
    required = set(part.get("required", []))
    lines += ["| field | type | required / default | description |", "| --- | --- | --- | --- |"]
    for field, prop in part.get("properties", {}).items():
        if field in required:
            need = "required"
        elif "default" in prop:
            need = f"`{json.dumps(prop['default'])}`"
        else:
            need = "optional"  # a default made by a factory (an empty list, a mapping)
        kind = type_of(prop, defs)
        bounds = _bounds(prop)
        if bounds:
            kind += f" ({html.escape(bounds, quote=False)})"
        text = _cell(prop.get("description", ""))
        lines.append(f"| `{field}` | {kind} | {need} | {text} |")
    extra = part.get("additionalProperties")
    if extra is False:
        lines += ["", "No other field is accepted."]
    return [*lines, ""]


def render(dotted: str, mode: str = "validation") -> str:
    """The tables and the schema of the model named ``dotted``."""
    model = load_model(dotted)
    schema = describe(model.model_json_schema(mode=mode), model)  # type: ignore[arg-type]
    defs = schema.get("$defs", {})
    lines = table(model.__name__, schema, defs)
    for name, part in defs.items():
        if "properties" in part:
            lines += table(name, part, defs)
    body = textwrap.indent(json.dumps(schema, indent=2, ensure_ascii=False), "    ")
    lines += [f'??? note "JSON schema of {model.__name__} ({mode})"', "", "    ```json"]
    lines += [body, "    ```", ""]
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return MARKER.sub(lambda match: render(match.group(1), match.group(2)), markdown)


if __name__ == "__main__":
    print(render(*sys.argv[1:3]))
