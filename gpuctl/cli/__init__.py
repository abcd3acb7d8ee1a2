"""The command line: click commands and their views (tables, describe text). The only layer
that prints errors and picks exit codes."""
