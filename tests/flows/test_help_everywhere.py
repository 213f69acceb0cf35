"""Every option of every command says what it does: `accessbench X --help` never shows a bare flag."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from flows.cli.app import build_parser


def _parsers(parser: argparse.ArgumentParser,
             path: str = "accessbench") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:  # noqa: SLF001 - argparse exposes subparsers only this way
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for name, child in action.choices.items():
                yield from _parsers(child, f"{path} {name}")


def test_every_option_has_help() -> None:
    bare = []
    for path, parser in _parsers(build_parser()):
        for action in parser._actions:  # noqa: SLF001
            if not action.option_strings or action.help == argparse.SUPPRESS:
                continue
            if not (action.help or "").strip():
                bare.append(f"{path} {action.option_strings[-1]}")
    assert not bare, "options without help: " + ", ".join(bare)
