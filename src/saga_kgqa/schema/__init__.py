"""The schema index: property domains and ranges, the class hierarchy and type compatibility."""
