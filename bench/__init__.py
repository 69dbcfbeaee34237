"""Benchmarks (scripts) and the bench-only measurement library they share (``bench.grounding_eval``)."""
