"""``saga index``: schema indexes, background jobs and the worked-example index."""
