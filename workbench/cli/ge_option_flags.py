"""GE's options as command-line flags, made from the one table (ge_core/ge_options.py): the
same names as the debugger's `set`, and GraphManager.from_ge_options reads what they give."""
from __future__ import annotations

import argparse
from typing import Any, Callable, Iterable

from ge_core.ge_options import GE_OPTIONS, GeOption, Stage, option_map, shown_value

ALL_STAGES = frozenset(Stage)
BUILT = frozenset({Stage.COMPILE, Stage.BUILD})   # what an OM file fixed when it was built


def _arg_type(option: GeOption) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            return option.parse(text)
        except ValueError as exc:   # argparse shows this message after the flag's name
            raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
    parse.__name__ = option.type.__name__   # argparse's "invalid int value" when none is given
    return parse


def options_for(stages: frozenset[Stage]) -> tuple[GeOption, ...]:
    return tuple(o for o in GE_OPTIONS if o.stage in stages)


def add_ge_options(p: argparse.ArgumentParser, stages: frozenset[Stage] = ALL_STAGES) -> None:
    g = p.add_argument_group("GE options (as the debugger's `set NAME VALUE`; GE's key in "
                             "brackets)")
    for o in options_for(stages):
        add_ge_option(g, o)


def add_ge_option(g: argparse._ActionsContainer, o: GeOption) -> None:
    """One row of the table as a flag."""
    text = f"{o.help} [{o.key}]"
    if o.type is bool:
        g.add_argument(f"--{o.name}", action="store_true", help=text)
    else:
        default = f" (default {shown_value(o, o.default)})" if o.default != "" else ""
        g.add_argument(f"--{o.name}", type=_arg_type(o), default=o.default,
                       metavar=o.metavar or None, help=text + default)


def ge_option_map(args: argparse.Namespace,
                  stages: frozenset[Stage] = ALL_STAGES) -> dict[str, str]:
    """The flags given, as GE's option map."""
    return option_map(vars(args), options_for(stages))


def given(args: argparse.Namespace, stages: Iterable[Stage]) -> list[str]:
    """The flags of these stages given other than their defaults, as --NAME."""
    return [f"--{o.name}" for o in options_for(frozenset(stages))
            if getattr(args, o.attr, o.default) != o.default]
