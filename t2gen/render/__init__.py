"""Rendering: the template context built from a job, and the Jinja2 engine that lays it out."""
