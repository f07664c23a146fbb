"""Commands: knowledge_cmds (to be filled)."""
