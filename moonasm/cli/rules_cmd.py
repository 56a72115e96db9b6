"""Print the rules of MOON as moonasm plays them: the machine, the operations and their
power, hackers, the cards, the cooperative and the competitive game, extras, and the choices
moonasm makes where the printed rulebook is silent (docs/rules.md)."""

from __future__ import annotations

import argparse
import sys

from moonasm.status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    del p  # no options: the whole text, to read or to pipe into a pager


def main(args: argparse.Namespace) -> int:
    from moonasm.rules import text

    sys.stdout.write(text())
    return ExitStatus.OK
