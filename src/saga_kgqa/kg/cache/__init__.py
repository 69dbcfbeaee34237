"""The record/replay cache in front of any backend."""
