"""File names as AccessBench stores and shows them, whatever bytes the file system allowed.

A name that is not UTF-8 is stored in the `documents` table as its bytes in base64 (`fs64:…`, given back
exactly by :func:`file_name`) and shown with those bytes as ``\\xNN`` escapes (:func:`readable_name`).
"""

from __future__ import annotations

import base64
import os

FS_NAME = "fs64:"  # a file name that is not UTF-8, stored as its bytes in base64


def stored_name(name: str) -> str:
    """A file name as the `documents` table can hold it and give back exactly: UTF-8 names as they
    are, others (bytes the file system allows but UTF-8 does not) as their bytes in base64."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return FS_NAME + base64.urlsafe_b64encode(os.fsencode(name)).decode("ascii")
    return name


def file_name(stored: str) -> str:
    """The name :func:`stored_name` stored, as the file system has it."""
    if stored.startswith(FS_NAME):
        return os.fsdecode(base64.urlsafe_b64decode(stored[len(FS_NAME):]))
    return stored


def readable_name(name: object) -> str:
    """A file name for display and JSON: bytes that are not UTF-8 shown as \\xNN escapes."""
    return os.fsencode(str(name)).decode("utf-8", "backslashreplace")


def shown_name(stored: str) -> str:
    """A stored name (:func:`stored_name`) as a person reads it."""
    return readable_name(file_name(stored))
