"""Prompt templates kept as text files."""
