"""Pure, deterministic sizing tools: typed pydantic inputs and outputs, no I/O, no LLM."""
