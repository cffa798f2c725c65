"""JSON in and out for the command line, shared by :mod:`rules.cli` and :mod:`rules.word.cli` so that
neither imports the other's module for them."""

from __future__ import annotations

import json
from typing import Any, TextIO


class InputError(Exception):
    """The input file cannot be read as JSON; `code` is the CLI's error code."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def read_json(path: str, stdin: TextIO):
    """The JSON document in `path` ("-" for standard input)."""
    try:
        if path == "-":
            text = stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise InputError("cannot_read", f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise InputError("cannot_read", f"{path} is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError("bad_json", f"not valid JSON: {e}") from None


def emit(out: TextIO, payload: dict[str, Any]) -> None:
    out.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


def error(out: TextIO, code: str, message: str, **extra: Any) -> int:
    """Print the error document and return exit code 2 (the input could not be used)."""
    emit(out, {"error": {"code": code, "message": message, **extra}})
    return 2
