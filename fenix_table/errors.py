"""One family of errors for the whole package.

Every error a user can cause (bad text, bad config, missing camera, corrupt record)
derives from :class:`FenixError`; the command line prints its message as one line
and exits with status 2.
"""


class FenixError(Exception):
    """Root of every error Fenix Table raises on purpose."""


class NotationError(FenixError, ValueError):
    """Malformed FPN, move token, cell name or FGN record. The message names the part."""


class IllegalMoveError(FenixError, ValueError):
    """A well-formed move that the rules do not allow in the given position."""


class RulesOptionError(FenixError, ValueError):
    """Unknown rules preset, option name or option value."""


class BoardNotFoundError(FenixError):
    """Vision could not locate the board in a frame."""


class CameraError(FenixError):
    """A frame source failed: unplugged camera, unreadable file, end of stream."""


class ConfigError(FenixError, ValueError):
    """Invalid configuration file or value."""


class RecordError(FenixError):
    """Corrupt, foreign or missing game record or database."""
