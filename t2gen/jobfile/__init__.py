"""What a job file must be: its schema, its semantic rules and the words of their findings.

Modules:
    schema: the JSON Schema (the generated code first, jsonschema to say why),
        its defaults, and what it refused.
    defaults: the schema's defaults filled in, by a plan worked out once.
    rules: the semantic rules, a registry with stable IDs.
    messages: every schema finding worded for people.
    refused: the paths the schema refused, which no rule reads.

Reading a job file is :mod:`t2gen.inputs.jobfile`'s; the typed job is
:mod:`t2gen.model`'s.
"""
