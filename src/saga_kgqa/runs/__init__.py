"""Runs of the controller: the stream loop, checkpoint stores, trajectory files and the answer's views for faces.

Batch runs too: the prediction record per question (``predictions``), the resumable runner (``batch``), the
agent answerer that streams the graph per question (``agent_answerer``) and the gold executor's limits
(``gold_runner``). Scoring them is :mod:`saga_kgqa.eval`'s job, above this room.
"""
