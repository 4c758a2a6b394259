"""User-facing errors: one line on stderr, exit code 1, never a traceback."""


class WalltimeError(Exception):
    """A mistake in the user's input or options (bad file, unknown trace, busy warehouse).

    The message is the whole story: it names the file and line, or the option, at fault.
    """


class WarehouseBusy(WalltimeError):
    """Another process is writing the warehouse (or holds it open)."""
