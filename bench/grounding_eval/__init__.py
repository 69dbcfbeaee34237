"""LLM-free measurements of grounding: retention, detection, tokens, swaps, checks on real trajectories."""
