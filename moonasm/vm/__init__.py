"""The machine: the checked program compiled and run under the rules."""
