"""Jinja templates of the generated C, one folder per target."""
