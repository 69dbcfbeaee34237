"""The read-only guard and its SPARQL text work: tokenizer, grammar, algebra, rewrites, label service, messages."""
