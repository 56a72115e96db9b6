"""The language front end: source text -> parse -> nodes -> checked program."""
