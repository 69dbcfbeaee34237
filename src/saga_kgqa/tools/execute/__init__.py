"""The execute tool: the pre-execution type check, the run, the empty-result diagnosis and its observations."""
