"""A target's settings: what, besides the target file, decides what a run does. They are part of
a saved session (`set NAME VALUE` lines), so replaying it reproduces the run.

The debugger's own three come first; the rest are GE's options, a field for each row of
ge_core/ge_options.py under the row's name, so `set NAME` takes what `gewb compile --NAME` and
`gewb exec --NAME` take."""
from __future__ import annotations

from dataclasses import fields, make_dataclass, replace

from ge_core.ge_options import GE_OPTIONS, GeOption, option_map, shown_value


class SettingError(ValueError):
    """A bad `set`: the message names the setting."""


# The debugger's own settings, not GE's: (name, type, default, help)
DEBUGGER_SETTINGS = (
    ("seed", int, 0, "seed of the generated model inputs"),
    ("race-check", bool, False, "check stream orderings against memory accesses (the "
                                "runtime's happens-before race detector)"),
    ("input", str, "", "NAME=FILE.npy,...: input values (others seeded random); their shapes "
                       "fix the model's symbolic dims"),
)
_OWN = {name: GeOption(name, "", kind, default, text, stage=None)
        for name, kind, default, text in DEBUGGER_SETTINGS}
_ALL: dict[str, GeOption] = {**_OWN, **{o.name: o for o in GE_OPTIONS}}

Settings = make_dataclass(
    "Settings", [(o.attr, o.type, o.default) for o in _ALL.values()], frozen=True,
    namespace={"__doc__": "Every setting's value, by its name as an identifier "
                          "(stream_max_parallel_num)",
               "ge_options": lambda self: option_map(vars(self))})


def names() -> list[str]:
    return list(_ALL)


def choices(name: str) -> list[str]:
    """What completes `set NAME `'s value."""
    option = _ALL.get(name)
    return list(option.choices) if option is not None else []


def help_rows() -> list[tuple[str, str, str, str]]:
    """(setting, GE's option, default, meaning): `help set`'s table."""
    return [(o.name, o.key or "(debugger)", shown_value(o, o.default), o.help)
            for o in _ALL.values()]


def with_setting(settings: Settings, name: str, text: str) -> Settings:
    option = _ALL.get(name)
    if option is None:
        raise SettingError(f"no setting {name!r} (settings: {', '.join(names())})")
    try:
        value = option.parse(text)
    except ValueError as exc:
        raise SettingError(f"set {name}: bad value {text!r}: {exc}") from exc
    return replace(settings, **{option.attr: value})


def shown(settings: Settings) -> list[tuple[str, str]]:
    """Every setting as (name, value text), the way `set` takes it."""
    return [(o.name, shown_value(o, getattr(settings, f.name)))
            for o, f in zip(_ALL.values(), fields(Settings))]
