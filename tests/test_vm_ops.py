"""Every operation at several widths with exact values, and exactly what each one costs."""

from __future__ import annotations

import pytest
from conftest import run_program

from moonasm import isa

# (bits, statement, A before, B before, A after, B after)
OPS = [
    # 4 bits: the rulebook's own examples
    (4, "NOT A", 0b0110, 0, 0b1001, 0),
    (4, "INC A", 0b0111, 0, 0b1000, 0),
    (4, "INC A", 0b1111, 0, 0b0000, 0),       # the maximum wraps to 0
    (4, "DEC A", 0b0101, 0, 0b0100, 0),
    (4, "DEC A", 0b0000, 0, 0b1111, 0),       # 0 wraps to all ones
    (4, "ROL A", 0b0011, 0, 0b0110, 0),       # x2
    (4, "ROL A", 0b1001, 0, 0b0011, 0),       # the left bit enters on the right
    (4, "ROR A", 0b0110, 0, 0b0011, 0),       # /2
    (4, "ROR A", 0b0011, 0, 0b1001, 0),       # the right bit enters on the left
    (4, "MOV A, B", 0b0001, 0b1010, 0b1010, 0b1010),
    (4, "MOV B, A", 0b0001, 0b1010, 0b0001, 0b0001),
    (4, "OR A, B", 0b0101, 0b0011, 0b0111, 0b0011),
    (4, "AND A, B", 0b0101, 0b0011, 0b0001, 0b0011),
    (4, "XOR A, B", 0b0101, 0b0011, 0b0110, 0b0011),
    (4, "XOR A, A", 0b1011, 0b0011, 0b0000, 0b0011),   # the trick: clears A
    (4, "OR A, A", 0b1011, 0, 0b1011, 0),
    (4, "XCHG A, B", 0b0001, 0b1010, 0b1010, 0b0001),
    (4, "XCHG A, A", 0b0110, 0, 0b0110, 0),
    (4, "SHL A", 0b1011, 0, 0b0110, 0),                # SHL of 1011 = 0110
    (4, "SHR A", 0b1011, 0, 0b0101, 0),
    (4, "ADD A, B", 0b1101, 0b1000, 0b0101, 0b1000),   # 1101 ADD 1000 = (1)0101
    (4, "ADD A, B", 0b0101, 0b1010, 0b1111, 0b1010),   # 0101 ADD 1010 = 1111
    (4, "SUB A, B", 0b0100, 0b0110, 0b1110, 0b0110),   # 0100 SUB 0110 = 1110
    (4, "SUB A, A", 0b0100, 0, 0, 0),
    (4, "NOR A, B", 0b0101, 0b0011, 0b1000, 0b0011),
    (4, "NAND A, B", 0b0101, 0b0011, 0b1110, 0b0011),
    (4, "XNOR A, B", 0b0101, 0b0011, 0b1001, 0b0011),
    (4, "NOR A, A", 0b0000, 0, 0b1111, 0),
    # 1 bit
    (1, "NOT A", 0, 0, 1, 0),
    (1, "INC A", 1, 0, 0, 0),
    (1, "DEC A", 0, 0, 1, 0),
    (1, "ROL A", 1, 0, 1, 0),
    (1, "ROR A", 1, 0, 1, 0),
    (1, "SHL A", 1, 0, 0, 0),
    (1, "SHR A", 1, 0, 0, 0),
    (1, "ADD A, B", 1, 1, 0, 1),
    (1, "SUB A, B", 0, 1, 1, 1),
    (1, "NAND A, B", 1, 1, 0, 1),
    (1, "XNOR A, B", 1, 0, 0, 0),
    # 5 bits
    (5, "ROL A", 0b10000, 0, 0b00001, 0),
    (5, "ROR A", 0b00001, 0, 0b10000, 0),
    (5, "NOT A", 0b00101, 0, 0b11010, 0),
    (5, "INC A", 31, 0, 0, 0),
    (5, "DEC A", 0, 0, 31, 0),
    (5, "SHL A", 0b10001, 0, 0b00010, 0),
    (5, "ADD A, B", 20, 15, 3, 15),
    (5, "SUB A, B", 3, 20, 15, 20),
    # 6 bits
    (6, "ROL A", 0b100001, 0, 0b000011, 0),
    (6, "ROR A", 0b000011, 0, 0b100001, 0),
    (6, "NOT A", 0, 0, 63, 0),
    (6, "SHR A", 0b100001, 0, 0b010000, 0),
    (6, "NOR A, B", 0b101010, 0b000111, 0b010000, 0b000111),
    # 8 bits
    (8, "ROL A", 0x81, 0, 0x03, 0),
    (8, "ROR A", 0x01, 0, 0x80, 0),
    (8, "NOT A", 0x0F, 0, 0xF0, 0),
    (8, "INC A", 255, 0, 0, 0),
    (8, "SHR A", 0x81, 0, 0x40, 0),
    (8, "ADD A, B", 200, 100, 44, 100),
    (8, "SUB A, B", 100, 200, 156, 200),
    (8, "NAND A, B", 0xF0, 0x3C, 0xCF, 0x3C),
    (8, "AND A, B", 0xF0, 0x3C, 0x30, 0x3C),
    # 16 bits
    (16, "ROL A", 0x8000, 0, 0x0001, 0),
    (16, "ROR A", 0x0001, 0, 0x8000, 0),
    (16, "NOT A", 0, 0, 0xFFFF, 0),
    (16, "INC A", 0xFFFF, 0, 0, 0),
    (16, "DEC A", 0, 0, 0xFFFF, 0),
    (16, "SHL A", 0x8001, 0, 0x0002, 0),
    (16, "ADD A, B", 0xFFFF, 2, 1, 2),
    (16, "XNOR A, B", 0xFF00, 0x0FF0, 0x0F0F, 0x0FF0),
    (16, "XOR A, B", 0xFF00, 0x0FF0, 0xF0F0, 0x0FF0),
]


@pytest.mark.parametrize(("bits", "stmt", "a", "b", "a_after", "b_after"), OPS,
                         ids=[f"{o[0]}bit-{o[1]}-{o[2]}" for o in OPS])
def test_operation(bits: int, stmt: str, a: int, b: int, a_after: int, b_after: int) -> None:
    result = run_program(f".bits {bits}\n.set A, {a}\n.set B, {b}\n.set C, 5\n{stmt}"
                         if bits >= 3 else f".bits {bits}\n.set A, {a}\n.set B, {b}\n{stmt}")
    assert result.fault is None
    assert result.machine.regs[:2] == [a_after, b_after]
    assert result.steps == 1


def test_mov_to_and_from_own_ram() -> None:
    result = run_program(".players 2\n.set A, 9\n.set RAM2, 4\nMOV RAM, A\nMOV RAM1, A\n"
                         ".turn 2\nMOV B, RAM\nMOV C, RAM2\nMOV RAM2, A")
    assert result.fault is None
    assert result.machine.regs == [9, 4, 4, 0]
    assert result.machine.ram[1:3] == [9, 9]


def test_every_register_can_be_a_destination() -> None:
    result = run_program(".set A, 1\nMOV B, A\nROL B\nMOV C, B\nROL C\nMOV D, C\nROL D")
    assert result.machine.regs == [1, 2, 4, 8]


# the cost of one use, in halves: (cooperative, competitive)
COSTS = {"NOT": (2, 2), "INC": (4, 4), "DEC": (4, 4), "ROL": (2, 2), "ROR": (2, 2),
         "MOV": (2, 1), "OR": (1, 1), "AND": (1, 1), "XOR": (1, 1), "XCHG": (2, 1),
         "SHL": (2, 2), "SHR": (2, 2), "ADD": (4, 4), "SUB": (4, 4), "NOR": (1, 1),
         "NAND": (1, 1), "XNOR": (1, 1)}


def _use(mnemonic: str) -> str:
    op = isa.OPERATIONS[mnemonic]
    return f"{mnemonic} A" if op.arity == 1 else f"{mnemonic} A, B"


@pytest.mark.parametrize("mode", ["coop", "versus"])
@pytest.mark.parametrize("mnemonic", sorted(COSTS))
def test_cost(mnemonic: str, mode: str) -> None:
    expected = COSTS[mnemonic][mode == "versus"]
    result = run_program(f".mode {mode}\n.power 4\n{_use(mnemonic)}")
    assert result.machine.spent == expected
    assert result.machine.power == 8 - expected


def test_cost_table_covers_every_machine_operation() -> None:
    assert set(COSTS) == {op.mnemonic for op in isa.TABLE if op.is_machine_op}


def test_control_flow_is_free() -> None:
    result = run_program(".power 0\n.goal 0\nCMP A, B\nJE x\nx: JMP y\ny: CMP POWER, 0\n"
                         "JNE z\nCMP A, GOAL\nz: END\nINC A")
    assert result.fault is None
    assert result.machine.spent == 0 and result.steps == 7


def test_power_is_counted_exactly_in_halves() -> None:
    # 1.5 power: three logic operations, then nothing
    result = run_program(".power 1.5\nOR A, B\nAND A, B\nXOR A, B")
    assert (result.fault, result.machine.power, result.machine.spent) == (None, 0, 3)
    result = run_program(".power 1.5\nOR A, B\nAND A, B\nXOR A, B\nNOR A, B")
    assert result.fault is not None and result.fault.kind == "power"
    assert result.machine.spent == 3


# hackers ----------------------------------------------------------------------------------

def _spent(hacker: str, body: str, mode: str = "coop") -> int:
    result = run_program(f".mode {mode}\n.hacker 1, {hacker}\n{body}")
    assert result.fault is None
    return result.machine.spent


def test_addition_hacker_pays_1_for_inc_and_dec_only() -> None:
    assert _spent("addition", "INC A") == 2
    assert _spent("addition", "DEC A") == 2
    assert _spent("addition", "ADD A, B") == 4
    assert _spent("addition", "SUB A, B") == 4
    assert _spent("addition", "ROL A") == 2


def test_copy_hacker_has_the_first_mov_of_each_turn_free() -> None:
    assert _spent("copy", "MOV A, B") == 0
    assert _spent("copy", "MOV A, B\nMOV B, A") == 2
    assert _spent("copy", "MOV A, B\nMOV B, A", mode="versus") == 1
    assert _spent("copy", "XCHG A, B\nMOV A, B") == 2     # XCHG is not MOV: paid, not free
    assert _spent("copy", "MOV A, B\n.turn 1\nMOV A, B\nMOV RAM, A") == 2


def test_rotation_hacker_pays_half_for_rol_and_ror_only() -> None:
    assert _spent("rotation", "ROL A\nROR A") == 2
    assert _spent("rotation", "SHL A") == 2
    assert _spent("rotation", "NOT A") == 2


def test_logic_hacker_has_the_first_two_or_and_xor_of_each_turn_free() -> None:
    assert _spent("logic", "OR A, B\nAND A, B") == 0
    assert _spent("logic", "OR A, B\nAND A, B\nXOR A, B") == 1
    assert _spent("logic", "NOR A, B\nOR A, B\nXOR A, B") == 1   # NOR is paid, uses nothing
    assert _spent("logic", "OR A, B\nAND A, B\n.turn 1\nXOR A, B\nXOR A, B\nOR A, B") == 1


def test_a_hacker_helps_only_its_own_player() -> None:
    result = run_program(".players 2\n.hacker 2, addition\nINC A\n.turn 2\nINC A")
    assert result.machine.spent == 4 + 2


def test_a_free_use_lets_an_operation_through_with_no_power() -> None:
    result = run_program(".power 0\n.hacker 1, logic\n.goal 3\n.set B, 3\nOR A, B")
    assert (result.fault, result.reached, result.machine.regs[0]) == (None, True, 3)
