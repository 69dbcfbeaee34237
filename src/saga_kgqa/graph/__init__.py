"""The LangGraph state machine that drives the SAGA controller."""
