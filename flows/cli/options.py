"""Command-line options generated from an options model (`tasks.engine.options`), and its errors as one line each.

Each field becomes one option: `--the-field-name` (or the flag its `Cli` metadata names), its help from
the field's description with the default, its choices from the field's enum. Every option defaults to
"not given" (`argparse.SUPPRESS`), so the model, not the parser, supplies defaults and checks values:
`options_from(args, Model)` validates what was given and `describe_errors` words a failure per option,
with the did-you-mean the model's validators add.
"""

from __future__ import annotations

import argparse
import types
from collections.abc import Iterable
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from tasks.engine.options import Cli, cli_meta


def flag_of(model: type[BaseModel], name: str) -> str:
    return cli_meta(model, name).flag or "--" + name.replace("_", "-")


def _base_type(annotation: Any) -> Any:
    """`list[str] | None` → `list[str]`; `float` → `float`."""
    if get_origin(annotation) in (Union, types.UnionType):
        kinds = [a for a in get_args(annotation) if a is not type(None)]
        return kinds[0] if len(kinds) == 1 else str
    return annotation


def _enum(info: FieldInfo) -> list[str] | None:
    extras = [info.json_schema_extra] + [getattr(m, "json_schema_extra", None) for m in info.metadata]
    for extra in extras:
        if isinstance(extra, dict):
            values = extra.get("enum") or (extra.get("items") or {}).get("enum")
            if values:
                return [v for v in values if v is not None]
    return None


def _help(info: FieldInfo, choices: list[str] | None) -> str:
    text = info.description or ""
    default = info.get_default(call_default_factory=True)
    if default not in (None, False, [], "") and "default" not in text:
        shown = " ".join(default) if isinstance(default, list) else default
        text += f" (default {shown})"
    if choices and not any(c in text for c in choices[:2]):
        text += f"; one of: {', '.join(choices)}"
    return text.replace("%", "%%")


def add_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup, model: type[BaseModel],
                names: Iterable[str] | None = None) -> None:
    """One option per field of `model` (or of `names`, in that order) that the CLI shows."""
    for name in names or model.model_fields:
        info = model.model_fields[name]
        meta: Cli = cli_meta(model, name)
        if meta.hidden:
            continue
        kind = _base_type(info.annotation)
        choices = _enum(info)
        options: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS, "help": _help(info, choices)}
        if kind is bool:
            options["action"] = "store_true"
        else:
            item = get_args(kind)[0] if get_origin(kind) is list else kind
            options["type"] = item if item in (int, float) else str
            options["metavar"] = meta.metavar or ("{" + ",".join(choices) + "}" if choices
                                                  else flag_of(model, name).lstrip("-").upper().replace("-", "_"))
            if get_origin(kind) is list:
                if meta.append:
                    options["action"] = "append"
                else:
                    options["nargs"] = "+"
        parser.add_argument(flag_of(model, name), **options)


def given(args: argparse.Namespace, model: type[BaseModel]) -> dict[str, Any]:
    """The options of `model` that the user gave on the command line."""
    return {name: value for name, value in vars(args).items() if name in model.model_fields}


def describe_errors(exc: ValidationError, model: type[BaseModel]) -> str:
    """One line per invalid option, worded for the command line: `--repeats: must be ≥ 1 (got 0)`."""
    lines = []
    for error in exc.errors():
        where = error["loc"][0] if error["loc"] else None
        ctx = error.get("ctx") or {}
        kind = error["type"]
        if kind == "value_error":
            text = str(ctx.get("error", error["msg"]))
        elif kind in _WORDS:
            text = _WORDS[kind].format(**ctx)
        else:
            text = error["msg"][:1].lower() + error["msg"][1:]
        got = error.get("input")
        if kind not in ("value_error", "missing") and not isinstance(got, dict | list):
            text += f" (got {got!r})"
        if isinstance(where, str) and where in model.model_fields:
            text = f"{flag_of(model, where)}: {text}"
        lines.append(text)
    return "\n".join(lines)


_WORDS = {
    "greater_than_equal": "must be ≥ {ge}", "greater_than": "must be > {gt}",
    "less_than_equal": "must be ≤ {le}", "less_than": "must be < {lt}",
    "int_parsing": "must be a whole number", "int_from_float": "must be a whole number",
    "float_parsing": "must be a number", "too_short": "needs at least {min_length} value(s)",
    "extra_forbidden": "is not an option of this command",
}
