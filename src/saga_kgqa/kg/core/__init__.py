"""What every backend shares: typed results, checked queries, the backend protocol, profiles, clocks."""
