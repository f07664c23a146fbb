"""Evaluation runs over question sets, reports and the content audit."""
