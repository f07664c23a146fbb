"""HTTP surface (FastAPI), chat widget and Slack bot over the assistant."""
