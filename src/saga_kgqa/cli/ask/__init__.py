"""``saga ask``: its options, the run it starts and what it shows."""
