"""``saga eval``: score, run, merge and ablate benchmarks."""
