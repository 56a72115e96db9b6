"""moonasm: the MOON assembly language, its interpreter and tools."""

__version__ = "0.1.0"
