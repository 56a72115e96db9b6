"""Small bots the game tests share (the example bots in examples/bots/ are lessons that may
change; these stay fixed so the rule tests' exact expectations do too)."""

COUNTER_SRC = """.name "counter"
loop: CMP A, GOAL
      JE done
      CMP POWER, 2
      JL done
      CMP A, GOAL
      JG down
      INC A
      JMP loop
down: DEC A
      JMP loop
done: END
"""
"""Walks A to the goal with INC/DEC while power lasts."""

MIXER_SRC = """.name "mixer"
      MOV RAM, A
      ROL A
      CMP A, GOAL
      JE done
      NOT A
      CMP A, GOAL
      JE done
      XOR A, B
      CMP POWER, 1
      JL done
      MOV B, RAM
      INC A
done: END
"""
"""Stirs the registers: uses RAM, rotations and logic, so games take varied paths."""
