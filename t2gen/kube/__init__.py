"""Kubernetes facts t2gen relies on: quantities, names, YAML as kubectl reads it, OpenAPI schemas, install order."""
