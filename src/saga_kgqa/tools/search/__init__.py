"""The search tool: name indexes (in memory and full-text) and identifier normalisation."""
