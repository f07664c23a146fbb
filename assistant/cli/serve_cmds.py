"""Commands: serve_cmds (to be filled)."""
