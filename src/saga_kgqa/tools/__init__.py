"""Knowledge-graph tools (search, lookup, property examples, execute, stop) as plain functions."""
