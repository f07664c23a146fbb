"""Commands: eval_cmds (to be filled)."""
