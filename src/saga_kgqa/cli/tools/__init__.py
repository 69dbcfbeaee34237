"""The tool commands (``saga search``, ``lookup``, ``examples`` …) and ``saga execute``."""
