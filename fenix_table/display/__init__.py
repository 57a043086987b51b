"""The table's screen: what the players see and touch, and the main loop behind it.

:mod:`.model` folds the referee's events into what to show; :mod:`.render` draws it with
pygame; :mod:`.controls` turns touches, clicks and keys into requests; :mod:`.i18n`
speaks en/de/fr/nl; :mod:`.app` runs camera → vision → referee → display; :mod:`.demo`
plays the bundled recording. Importing this package loads nothing heavy.
"""
import os as _os

# pygame prints a greeting on import; the table's console is for its own messages.
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
