"""Storage: sessions, feedback, rate-limit buckets, Slack de-duplication and retention, in SQLite
files under the data folder or in one PostgreSQL database (SIZING_DATABASE_URL).

Used by `assistant` (conversation memory) and `api` (feedback, shared rate limits, Slack state).
It imports nothing of the project: it works on plain rows, JSON text and its own small pydantic
models; the typed conversion to the assistant's objects (Answer, GroundingFacts) stays in
`assistant/` (see `assistant/sessions.py`).

- `store.db`: the database (SQLite or PostgreSQL), migrations, `StorageError`; the settings it
  reads come as a Protocol (`DatabaseSettings`), so the package needs no `Settings` import
- `store.sessions`: sessions and their turns as rows and JSON text (`SessionRows`)
- `store.feedback`: 👍/👎 votes on answers (`FeedbackStore`)
- `store.shared_state`: what every worker and replica shares: rate-limit buckets
  (`RateBuckets`), Slack de-duplication (`SeenKeys`), small values by key (`KeyValues`)
- `store.retention`: `prune`, what `sizing db prune` and the server's periodic prune run
"""
