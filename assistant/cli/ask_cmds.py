"""Commands: ask_cmds (to be filled)."""
