"""The job file: reading it, its schema, its semantic rules and its typed model."""
