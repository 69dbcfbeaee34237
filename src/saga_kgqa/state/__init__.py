"""Typed agent state: the type state Θ, the knowledge log and the action history."""
