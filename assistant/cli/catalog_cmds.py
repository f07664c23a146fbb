"""Commands: catalog_cmds (to be filled)."""
