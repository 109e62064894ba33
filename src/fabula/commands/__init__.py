"""The `fabula` subcommands, one module each; `fabula.cli` only parses arguments."""
