"""The MOON instruction set: the one table every other part of moonasm reads.

Each operation is listed once with its mnemonic, the operand kinds it accepts, its cost family
and its effect. The checker validates against it, the interpreter and the compiler execute the
`effect` expressions from it, the lexer and completer take their words from it, and `:help` and
docs/language.md are generated from it (a test fails if the docs drift).

Power is counted in *halves* everywhere: an operation that costs ½ costs 1 here.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): typing
# compiles each NamedTuple field annotation given as a string, start-up time every run pays.

import enum
from typing import NamedTuple


class Slot(enum.Enum):
    """What one operand position accepts."""

    REG = "register"  # A-D
    RAM = "RAM module"  # RAM (own), RAM1-RAM4
    VALUE = "value"  # CMP: register, RAM, GOAL, GOALn, POWER, a game-state operand, a number
    LABEL = "label"
    PLAYER = "player"  # HACK n


class Family(enum.Enum):
    """Cost families; the values are the costs in halves (cooperative, competitive)."""

    BIT = (2, 2)  # NOT, ROL, ROR, SHL, SHR: 1
    ARITHMETIC = (4, 4)  # INC, DEC, ADD, SUB: 2
    COPY = (2, 1)  # MOV, XCHG: 1, ½ in competitive mode
    LOGIC = (1, 1)  # OR, AND, XOR, NOR, NAND, XNOR: ½
    THINK = (0, 0)  # control flow: free, but each is a step

    def halves(self, mode: str) -> int:
        return self.value[1] if mode == "versus" else self.value[0]


class Operation(NamedTuple):
    """One row of the table. (The table's rows are NamedTuples, not dataclasses: on Python
    3.11 making a dataclass costs ~0.6 ms, and every `moonasm run` and `check` makes them.)

    `effect` is a Python expression giving the destination's new value from `d` (destination),
    `s` (source), `M` (the all-ones mask) and `W1` (width − 1). `jump_if` is a condition on `c`,
    the sign of the last comparison (−1, 0, 1).
    """

    mnemonic: str
    forms: tuple[tuple[Slot, ...], ...]
    family: Family
    summary: str
    example: str
    effect: str | None = None
    jump_if: str | None = None
    extra: bool = False

    @property
    def arity(self) -> int:
        return len(self.forms[0])

    @property
    def is_machine_op(self) -> bool:
        """True for operations that change the machine and cost power (not control flow)."""
        return self.family is not Family.THINK

    def signature(self) -> str:
        """Operand forms as a person reads them, e.g. `reg, reg | reg, RAM | RAM, reg`."""
        names = {Slot.REG: "reg", Slot.RAM: "RAM", Slot.VALUE: "value", Slot.LABEL: "label",
                 Slot.PLAYER: "n"}
        return " | ".join(", ".join(names[s] for s in form) for form in self.forms) or "—"


R = (Slot.REG,)
RR = (Slot.REG, Slot.REG)

TABLE: tuple[Operation, ...] = (
    Operation("NOT", (R,), Family.BIT, "invert every bit", "NOT A    # 0110 -> 1001",
              effect="d ^ M"),
    Operation("INC", (R,), Family.ARITHMETIC, "add 1; all ones wraps to 0",
              "INC A    # 0111 -> 1000", effect="(d + 1) & M"),
    Operation("DEC", (R,), Family.ARITHMETIC, "subtract 1; 0 wraps to all ones",
              "DEC A    # 0000 -> 1111", effect="(d - 1) & M"),
    Operation("ROL", (R,), Family.BIT,
              "rotate left one bit; the bit leaving on the left enters on the right",
              "ROL A    # 1001 -> 0011", effect="((d << 1) | (d >> W1)) & M"),
    Operation("ROR", (R,), Family.BIT,
              "rotate right one bit; the bit leaving on the right enters on the left",
              "ROR A    # 0011 -> 1001", effect="(d >> 1) | ((d & 1) << W1)"),
    Operation("MOV", (RR, (Slot.REG, Slot.RAM), (Slot.RAM, Slot.REG)), Family.COPY,
              "copy the source into the destination (register or own RAM)",
              "MOV RAM, A   # keep A safe in your RAM", effect="s"),
    Operation("OR", (RR,), Family.LOGIC, "bitwise or", "OR A, B   # 0101 | 0011 = 0111",
              effect="d | s"),
    Operation("AND", (RR,), Family.LOGIC, "bitwise and", "AND A, B  # 0101 & 0011 = 0001",
              effect="d & s"),
    Operation("XOR", (RR,), Family.LOGIC, "bitwise exclusive or (XOR A, A clears A)",
              "XOR A, B  # 0101 ^ 0011 = 0110", effect="d ^ s"),
    Operation("XCHG", (RR,), Family.COPY, "swap two registers", "XCHG A, B", extra=True),
    Operation("SHL", (R,), Family.BIT, "shift left one bit; the bit leaving is lost, 0 enters",
              "SHL A    # 1011 -> 0110", effect="(d << 1) & M", extra=True),
    Operation("SHR", (R,), Family.BIT, "shift right one bit; the bit leaving is lost, 0 enters",
              "SHR A    # 1011 -> 0101", effect="d >> 1", extra=True),
    Operation("ADD", (RR,), Family.ARITHMETIC, "add, wrapping",
              "ADD A, B  # 1101 + 1000 = 0101", effect="(d + s) & M", extra=True),
    Operation("SUB", (RR,), Family.ARITHMETIC, "subtract, wrapping",
              "SUB A, B  # 0100 - 0110 = 1110", effect="(d - s) & M", extra=True),
    Operation("NOR", (RR,), Family.LOGIC, "bitwise or, then invert",
              "NOR A, B  # 0101 NOR 0011 = 1000", effect="(d | s) ^ M", extra=True),
    Operation("NAND", (RR,), Family.LOGIC, "bitwise and, then invert",
              "NAND A, B # 0101 NAND 0011 = 1110", effect="(d & s) ^ M", extra=True),
    Operation("XNOR", (RR,), Family.LOGIC, "bitwise exclusive or, then invert",
              "XNOR A, B # 0101 XNOR 0011 = 1001", effect="(d ^ s) ^ M", extra=True),
    Operation("CMP", ((Slot.VALUE, Slot.VALUE),), Family.THINK,
              "compare two values (unsigned) for the jumps that follow",
              "CMP A, GOAL"),
    Operation("JMP", ((Slot.LABEL,),), Family.THINK, "jump always", "JMP loop",
              jump_if="True"),
    Operation("JE", ((Slot.LABEL,),), Family.THINK, "jump if the last CMP found x = y",
              "JE done", jump_if="c == 0"),
    Operation("JNE", ((Slot.LABEL,),), Family.THINK, "jump if the last CMP found x ≠ y",
              "JNE loop", jump_if="c != 0"),
    Operation("JL", ((Slot.LABEL,),), Family.THINK, "jump if the last CMP found x < y",
              "JL up", jump_if="c < 0"),
    Operation("JLE", ((Slot.LABEL,),), Family.THINK, "jump if the last CMP found x ≤ y",
              "JLE up", jump_if="c <= 0"),
    Operation("JG", ((Slot.LABEL,),), Family.THINK, "jump if the last CMP found x > y",
              "JG down", jump_if="c > 0"),
    Operation("JGE", ((Slot.LABEL,),), Family.THINK, "jump if the last CMP found x ≥ y",
              "JGE down", jump_if="c >= 0"),
    Operation("END", ((),), Family.THINK, "end the turn now", "END"),
    Operation("HACK", ((Slot.PLAYER,),), Family.THINK,
              "competitive mode: spend a bug card to make player n show their goal",
              "HACK 2"),
)

OPERATIONS: dict[str, Operation] = {op.mnemonic: op for op in TABLE}
EXTRA_MNEMONICS: tuple[str, ...] = tuple(op.mnemonic for op in TABLE if op.extra)
JUMPS: tuple[str, ...] = tuple(op.mnemonic for op in TABLE if op.jump_if is not None)

REGISTERS: tuple[str, ...] = ("A", "B", "C", "D")
PLAYERS = range(1, 5)
RAM_WORDS: tuple[str, ...] = ("RAM",) + tuple(f"RAM{n}" for n in PLAYERS)
GOAL_WORDS: tuple[str, ...] = ("GOAL",) + tuple(f"GOAL{n}" for n in PLAYERS)
POWER_WORD = "POWER"


class StateParam(enum.Enum):
    """The word that follows a game-state operand which takes one (`COST ROL`)."""

    PLAYER = "n"  # SHOWN n: a player number 1-4
    OPERATION = "op"  # COST op: a machine operation
    ERRORABLE = "x"  # ERROR x: a register B-D or a machine operation

    def choices(self) -> tuple[str, ...]:
        """Every word that may stand here, for completion and suggestions."""
        if self is StateParam.PLAYER:
            return tuple(str(n) for n in PLAYERS)
        machine_ops = tuple(op.mnemonic for op in TABLE if op.is_machine_op)
        return machine_ops if self is StateParam.OPERATION else REGISTERS[1:] + machine_ops


class StateOperand(NamedTuple):
    """A game-state operand of spec §3.1: what a player at the table sees, readable by CMP.

    `numbered` rows take the player number in the word itself (`SCORE2`, like `GOAL2`);
    rows with a `param` take it as the next word (`COST ROL`, `SHOWN 2`, `ERROR B`)."""

    word: str
    summary: str
    example: str
    param: StateParam | None = None
    numbered: bool = False
    power: bool = False  # a power amount, in steps of ½ like POWER (COST)

    @property
    def form(self) -> str:
        """As the docs write it: `BITS`, `SCOREn`, `COST op`."""
        if self.numbered:
            return self.word + "n"
        return f"{self.word} {self.param.value}" if self.param else self.word

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(f"{self.word}{n}" for n in PLAYERS) if self.numbered else (self.word,)


STATE_OPERANDS: tuple[StateOperand, ...] = (
    StateOperand("BITS", "the machine's width", "CMP BITS, 4"),
    StateOperand("SEAT", "the acting player's seat (1-4)", "CMP SEAT, 1"),
    StateOperand("PLAYERS", "the number of players", "CMP PLAYERS, 2"),
    StateOperand("VERSUS", "1 in competitive mode, 0 in cooperative mode", "CMP VERSUS, 1"),
    StateOperand("ROUND", "the round being played, from 1 (scripts: the turns begun so far)",
                 "CMP ROUND, 10"),
    StateOperand("DECK", "cards left in the deck (scripts: 0)", "CMP DECK, 0"),
    StateOperand("SLOT", "cooperative: the slot (1-4) of the active goal; 0 when no goal is "
                 "pending or in competitive mode", "CMP SLOT, 3"),
    StateOperand("PENDING", "cooperative: goals pending, the active one included; "
                 "competitive: 0", "CMP PENDING, 1"),
    StateOperand("SCORE", "goals the acting player has solved so far", "CMP SCORE, SCORE2"),
    StateOperand("SCORE", "goals player n has solved so far", "CMP SCORE2, 3",
                 numbered=True),
    StateOperand("TOKENS", "hack tokens (BUG cards) the acting player holds", "CMP TOKENS, 0"),
    StateOperand("SHOWN", "1 when player n's goal is shown (readable as GOALn), else 0",
                 "CMP SHOWN 2, 1", param=StateParam.PLAYER),
    StateOperand("COST", "what one use of op costs the acting player now (hacker and free "
                 "uses included); more than any number and than POWER when op cannot be "
                 "used at all", "CMP COST ROL, POWER", param=StateParam.OPERATION, power=True),
    StateOperand("ERROR", "1 while register or operation x is disabled by an ERROR card, "
                 "else 0", "CMP ERROR B, 1", param=StateParam.ERRORABLE),
)
# Every word that starts a game-state operand, with its row: "SCORE2" -> the SCOREn row.
STATE_WORDS: dict[str, StateOperand] = {w: s for s in STATE_OPERANDS for w in s.words}
# The words only CMP reads: goals, power and the game's state.
VALUE_WORDS: tuple[str, ...] = GOAL_WORDS + (POWER_WORD,) + tuple(STATE_WORDS)
OPERAND_WORDS: tuple[str, ...] = REGISTERS + RAM_WORDS + VALUE_WORDS


class Hacker(NamedTuple):
    """A hacker card: a cheaper cost, or a number of free uses each turn, for named operations."""

    name: str
    mnemonics: frozenset[str]
    summary: str
    cost: int | None = None  # halves, replacing the family cost
    free_per_turn: int = 0


HACKERS: dict[str, Hacker] = {
    h.name: h
    for h in (
        Hacker("addition", frozenset({"INC", "DEC"}), "INC and DEC cost 1", cost=2),
        Hacker("copy", frozenset({"MOV"}), "the first MOV of each turn costs 0", free_per_turn=1),
        Hacker("rotation", frozenset({"ROL", "ROR"}), "ROL and ROR cost ½", cost=1),
        Hacker("logic", frozenset({"OR", "AND", "XOR"}),
               "the first two OR/AND/XOR of each turn cost 0", free_per_turn=2),
    )
}


def cost_of(op: Operation, mode: str, hacker: Hacker | None = None) -> int:
    """The cost in halves of one use of `op`, before any free use a hacker has left this turn."""
    if hacker is not None and hacker.cost is not None and op.mnemonic in hacker.mnemonics:
        return hacker.cost
    return op.family.halves(mode)


MODES: tuple[str, ...] = ("coop", "versus")

RESERVED: frozenset[str] = frozenset(OPERATIONS) | frozenset(OPERAND_WORDS)


def halves_number(halves: float | None) -> int | float | None:
    """Halves as the number JSON shows (3 -> 1.5, 4 -> 2); None for unlimited power."""
    if halves is None or halves >= float("inf"):  # unlimited power (or an unusable cost)
        return None
    whole = int(halves)
    return whole // 2 if whole % 2 == 0 else whole / 2


def power_text(halves: float | None, half: str = ".5") -> str:
    """A power amount in halves as a person reads it: 4 -> "2", 3 -> "1.5" (or "1½" with
    `half="½"`, 1 -> "½"); None or infinite -> "unlimited". Every view of power writes it
    with this."""
    if halves is None or halves >= float("inf"):
        return "unlimited"
    whole, odd = divmod(int(halves), 2)
    if not odd:
        return str(whole)
    return "½" if half == "½" and whole == 0 else f"{whole}{half}"


