"""Question-answering evaluation: gold store, metrics and scorer, resumable runs, shards, ablations, reports."""
