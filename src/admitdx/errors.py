"""Errors that reach the user as a message and exit code 2, never as a traceback.

Raise :class:`InputError` for bad input data (it names the table, column and row at fault) and
:class:`UsageError` for a request that cannot be carried out as asked (wrong option, refused
endpoint, missing optional extra). The command line turns both into a short message with the next
step to take.
"""

from __future__ import annotations

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
