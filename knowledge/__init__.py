"""Data files, their loaders, the guide parser and the retrieval index."""
