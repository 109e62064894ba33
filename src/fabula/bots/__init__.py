"""Players that are not people."""
