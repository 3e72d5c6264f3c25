"""Errors that reach the user as a message and exit code 2, never as a traceback.

Raise :class:`InputError` for bad input data (it names the table, column and row at fault) and
:class:`UsageError` for a request that cannot be carried out as asked (wrong option, refused
endpoint, missing optional extra). The command line turns both into a short message with the next
step to take.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

EXIT_BAD_INPUT = 2


class AdmitdxError(Exception):
    """Base class: a problem the user can fix; shown without a traceback, exit code 2."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  → {self.hint}"


class InputError(AdmitdxError):
    """Bad input data: names where it is (table, column, row) so the user can find it."""

    def __init__(
        self,
        message: str,
        *,
        table: str | None = None,
        column: str | None = None,
        row: int | None = None,
        hint: str | None = None,
    ) -> None:
        where = ", ".join(
            f"{k} {v}" for k, v in (("table", table), ("column", column), ("row", row)) if v is not None
        )
        super().__init__(f"{message} ({where})" if where else message, hint=hint)
        self.detail = message  # the message without the "(table …, column …, row …)" suffix
        self.table = table
        self.column = column
        self.row = row


class UsageError(AdmitdxError):
    """A request that cannot be carried out as asked (bad option, refused host, missing extra)."""


_WRITE_FAILURES = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exhausted",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.EFBIG: "the file would exceed this process's file-size limit (ulimit -f)",
}


@contextmanager
def output_errors(out: Path) -> Iterator[None]:
    """Turn a failed write while producing ``out`` (no permission, disk full, a file-size limit,
    read-only file system) into a UsageError naming the file and what to do; other OSErrors pass
    unchanged."""
    try:
        yield
    except OSError as e:
        reason = _WRITE_FAILURES.get(e.errno or 0)
        if reason is None:
            raise
        where = e.filename or out
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            fix = f"free space on that disk or choose an --out on another one ({out})"
        elif e.errno == errno.EFBIG:
            fix = "raise the limit (`ulimit -f unlimited`, or ask your scheduler for larger files)"
        else:
            fix = f"choose an --out this user can write to, or fix the permissions of {where}"
        raise UsageError(f"cannot write {where}: {reason}", hint=f"{fix}, then rerun the same command") from e


def writable_dir(out: Path) -> None:
    """Create ``out`` (and parents) or raise UsageError saying why it cannot be written to."""
    with output_errors(out):
        out.mkdir(parents=True, exist_ok=True)
        if not os.access(out, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(out))
