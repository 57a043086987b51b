"""Rules presets and options (``../shared/spec/rules.md``, section Presets)."""
from __future__ import annotations

from types import MappingProxyType
from typing import Iterable, Mapping

from ..errors import RulesOptionError

#: Every option with its allowed values; the first value listed is not special.
OPTION_VALUES: Mapping[str, tuple] = MappingProxyType({
    "setup_reach": ("any", "orthogonal"),
    "king_first": (True, False),
    "general_vs_capture": ("capture_first", "free"),
    "king_reach": ("orthogonal", "neighbour", "anywhere"),
    "general_reach": ("orthogonal", "neighbour", "anywhere"),
    "no_move": ("loss", "draw"),
    "repetition": ("draw", "repeater_loses", "off"),
    "no_capture_limit": int,
})

PRESETS: Mapping[str, Mapping[str, object]] = MappingProxyType({
    "official": MappingProxyType({
        "setup_reach": "any", "king_first": True, "general_vs_capture": "capture_first",
        "king_reach": "orthogonal", "general_reach": "orthogonal", "no_move": "loss",
        "repetition": "draw", "no_capture_limit": 100,
    }),
    "strike": MappingProxyType({
        "setup_reach": "orthogonal", "king_first": True, "general_vs_capture": "capture_first",
        "king_reach": "anywhere", "general_reach": "orthogonal", "no_move": "loss",
        "repetition": "repeater_loses", "no_capture_limit": 100,
    }),
})


def _coerce(key: str, value: object) -> object:
    allowed = OPTION_VALUES[key]
    if allowed is int:
        if isinstance(value, bool):
            raise RulesOptionError(f"option {key}: expected a whole number >= 0, got {value!r}")
        if isinstance(value, str):
            if not value.strip().isdigit():
                raise RulesOptionError(f"option {key}: expected a whole number >= 0, got {value!r}")
            value = int(value)
        if not isinstance(value, int) or value < 0:
            raise RulesOptionError(f"option {key}: expected a whole number >= 0, got {value!r}")
        return value
    if isinstance(value, str) and True in allowed:
        lowered = value.strip().lower()
        if lowered in ("true", "yes", "1", "on"):
            value = True
        elif lowered in ("false", "no", "0", "off"):
            value = False
    if value not in allowed:
        choices = "|".join(str(v).lower() if isinstance(v, bool) else str(v) for v in allowed)
        raise RulesOptionError(f"option {key}: {value!r} is not one of {choices}")
    return value


class Rules:
    """An immutable rules configuration: a preset name plus option values.

    >>> Rules.preset("strike").options["king_reach"]
    'anywhere'
    >>> Rules.preset("official", no_capture_limit=50).no_capture_limit
    50

    Raises :class:`RulesOptionError` for an unknown preset, option or value.
    """

    __slots__ = ("name", "_options", "setup_reach", "king_first", "general_vs_capture",
                 "king_reach", "general_reach", "no_move", "repetition", "no_capture_limit")

    def __init__(self, name: str = "official", **overrides: object) -> None:
        if name not in PRESETS:
            raise RulesOptionError(f"unknown rules preset {name!r} (official|strike)")
        options = dict(PRESETS[name])
        for key, value in overrides.items():
            if key not in OPTION_VALUES:
                raise RulesOptionError(
                    f"unknown rules option {key!r} (known: {', '.join(OPTION_VALUES)})")
            options[key] = _coerce(key, value)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_options", MappingProxyType(options))
        for key, value in options.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, key, value):
        raise AttributeError("Rules is immutable; use Rules.preset(name, **overrides)")

    @classmethod
    def preset(cls, name: str = "official", **overrides: object) -> "Rules":
        return cls(name, **overrides)

    @classmethod
    def from_strings(cls, name: str = "official", assignments: Iterable[str] = ()) -> "Rules":
        """Build from command-line style ``key=value`` strings."""
        overrides = {}
        for item in assignments:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise RulesOptionError(f"option {item!r}: expected key=value")
            overrides[key.strip()] = value.strip()
        return cls(name, **overrides)

    @property
    def options(self) -> Mapping[str, object]:
        return self._options

    def overrides(self) -> dict:
        """The options that differ from this preset's defaults."""
        base = PRESETS[self.name]
        return {k: v for k, v in self._options.items() if base[k] != v}

    def describe(self) -> str:
        """``official`` or ``official king_first=false ...`` (as in an FGN Rules tag)."""
        extra = " ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                         for k, v in self.overrides().items())
        return f"{self.name} {extra}".strip()

    @classmethod
    def from_description(cls, text: str) -> "Rules":
        parts = text.split()
        if not parts:
            return cls()
        return cls.from_strings(parts[0], parts[1:])

    def __eq__(self, other):
        return isinstance(other, Rules) and self.name == other.name and \
            dict(self._options) == dict(other._options)

    def __hash__(self):
        return hash((self.name, tuple(sorted(self._options.items()))))

    def __repr__(self):
        return f"Rules({self.describe()!r})"


OFFICIAL = Rules("official")
STRIKE = Rules("strike")
