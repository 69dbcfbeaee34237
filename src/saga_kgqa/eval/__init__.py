"""Benchmark loaders, gold store, metrics and the resumable evaluation runner."""
