"""The lookup tool: an entity's types and the properties that fit them, and how hiding is decided."""
