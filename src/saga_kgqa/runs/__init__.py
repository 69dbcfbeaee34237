"""Runs of the controller: the stream loop, checkpoint stores, trajectory files and the answer's views for faces."""
