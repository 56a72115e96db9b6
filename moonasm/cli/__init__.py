"""The `moonasm` command line: one module per subcommand, and what they share (`common`)."""
