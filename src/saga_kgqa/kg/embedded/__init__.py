"""The embedded pyoxigraph store: loading, its killable query worker and its term conversion."""
