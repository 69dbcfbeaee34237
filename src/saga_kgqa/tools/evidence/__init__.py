"""Evidence per answer row: the final query's triple patterns with each row's bindings, read back behind the guard."""
