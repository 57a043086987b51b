"""Reading the files people hand the program (configuration, calibration, images): with a
size limit, and one line naming the file and the problem when it cannot be read.

Standard library only.
"""
from __future__ import annotations

from typing import Type

from .errors import FenixError


def read_limited(path: str, limit: int, what: str, error: Type[FenixError]) -> bytes:
    """The bytes of ``path``, at most ``limit``; ``error`` (one line naming ``what`` and
    ``path``) when the file is missing, a folder, unreadable or larger than ``limit``.

    >>> read_limited("/nonexistent.toml", 10, "configuration file", FenixError)
    Traceback (most recent call last):
    fenix_table.errors.FenixError: configuration file /nonexistent.toml: no such file
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise error(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{what} {path}: is a folder") from None
    except OSError as problem:
        raise error(f"{what} {path}: cannot read it ({problem.strerror})") from None
    if len(data) > limit:
        raise error(f"{what} {path}: larger than {_size(limit)}, too large to be one") from None
    return data


def read_text(path: str, limit: int, what: str, error: Type[FenixError]) -> str:
    """:func:`read_limited`, decoded as UTF-8 (``error`` when it is not)."""
    data = read_limited(path, limit, what, error)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{what} {path}: not UTF-8 text") from None


def _size(count: int) -> str:
    for unit, step in (("MB", 1_000_000), ("kB", 1_000)):
        if count >= step:
            return f"{count / step:g} {unit}"
    return f"{count} bytes"
