"""Lets the tests import scripts/ (gen_validator) as a package."""
