"""Wires the sizing tools and guide retrieval into grounded answers."""
