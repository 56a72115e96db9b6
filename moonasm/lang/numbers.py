"""Number literals (spec §3): the one reader for programs, the command line and the REPL.

`read_number` is the rule everywhere a number is read: decimal `6`, binary `0b0110`,
hexadecimal `0x6`, power amounts in steps of ½ (`1.5`). A decimal literal with a leading zero
(`0011`) is refused with both readings suggested, since learners copy bit patterns from the
cards. A power amount is at most `MAX_POWER`, so that no value anywhere grows past what a
message, a log or JSON can print.

Callers name the place a number was written (`--goal`, `.set`) in front of the message.
"""

from __future__ import annotations

from moonasm.diagnostics import shorten

MAX_POWER = 1_000_000_000  # the most power a turn may have, and the largest power amount
MAX_POWER_HALVES = MAX_POWER * 2

# No machine or power amount needs more digits than this: longer literals are reported as too
# large without converting them (int() refuses decimals of more than 4,300 digits).
_MAX_DIGITS = 64


class NumberError(ValueError):
    """A literal that is not a number, or not one allowed here. `kind` is the diagnostic kind:
    "syntax" for a malformed literal (`reason` "malformed" or "leading zero"), "semantic" for a
    well-formed one that is not allowed here ("half steps": a fraction other than ½; "whole":
    a fraction where a whole number is wanted; "too large": a power amount over MAX_POWER)."""

    def __init__(self, reason: str, message: str):
        message = shorten(message)  # never a 10,000-digit literal in a message
        super().__init__(message)
        self.reason = reason
        self.kind = "syntax" if reason in ("malformed", "leading zero") else "semantic"
        self.message = message


def read_number(text: str, *, power: bool = False) -> int:
    """The value of a literal: a whole number, or with `power=True` a power amount in halves
    (`1.5` -> 3, at most `MAX_POWER`). Raises NumberError saying what is wrong."""
    if text.isascii() and text.isdigit() and (text[0] != "0" or len(text) == 1) \
            and len(text) <= _MAX_DIGITS:
        value = int(text)  # the common case: a plain decimal
        if not power:
            return value
        halves = value * 2
    else:
        halves = read_halves(text)
        if not power:
            if halves % 2:
                raise NumberError("whole", f"'{text}' is not a whole number")
            return halves // 2
    if halves > MAX_POWER_HALVES:
        raise NumberError("too large", f"power amounts go up to {MAX_POWER:,}, not '{text}'")
    return halves


def shown(value: int) -> str:
    """A number for a message; a huge one is described, not printed (Python refuses to print
    ints of more than 4,300 digits, and nobody wants to read them)."""
    if value.bit_length() <= 64:
        return str(value)
    return "(more than 64 bits)"


def too_large(bits: int) -> int:
    """A stand-in for a literal too long to convert: more than `bits` bits, which is more than
    any machine or power amount has."""
    return 1 << bits


def read_halves(text: str) -> int:
    """Any literal in halves, with no limit but a stand-in for the absurdly long (the caller
    compares it with its own limit). Raises NumberError."""
    low = text.lower()
    if low[:2] in ("0b", "0x"):
        digits, base = low[2:], (2 if low[1] == "b" else 16)
        allowed = "01" if base == 2 else "0123456789abcdef"
        if not digits or any(c not in allowed for c in digits):
            raise _invalid(text)
        significant = digits.lstrip("0")
        if len(significant) > _MAX_DIGITS:
            return too_large(_MAX_DIGITS * 4)
        return int(digits, base) * 2
    whole, dot, fraction = low.partition(".")
    if not whole.isascii() or not whole.isdigit() or dot and not (fraction.isascii()
                                                                  and fraction.isdigit()):
        raise _invalid(text)
    if len(whole) > 1 and whole[0] == "0":
        raise NumberError("leading zero", _leading_zero(text, whole, dot + fraction))
    tenths = fraction.rstrip("0")
    if tenths not in ("", "5"):
        raise NumberError("half steps", f"'{text}': power amounts go in steps of ½")
    if len(whole) > _MAX_DIGITS:
        return too_large(_MAX_DIGITS * 3)
    return int(whole) * 2 + (tenths == "5")


def _invalid(text: str) -> NumberError:
    return NumberError("malformed", f"invalid number '{text}'")


def _leading_zero(text: str, whole: str, fraction: str) -> str:
    decimal = (whole.lstrip("0") or "0") + fraction
    readings = [decimal]
    if not fraction and set(whole) <= {"0", "1"}:
        readings.insert(0, "0b" + whole)
    return (f"'{text}': a decimal number cannot start with 0 (did you mean "
            f"{', or '.join(readings)}?)")
