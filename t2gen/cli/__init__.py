"""The whole command line: the console script, one module per command, exit codes, help.

* :mod:`t2gen.cli.launch` is the ``t2gen`` console script: it runs the plain
  ``render|validate|check FILE...`` and ``package JOB --jar FILE`` command
  lines (and ``--help``, ``--version``) without importing Typer, and hands
  everything else to
* :mod:`t2gen.cli.app`, the Typer app, which collects the commands (one module
  each: ``validate``, ``render``, ``check``, ``plan``, ``import_``, ``schema``,
  ``init``, ``explain``, ``templates``, ``secret``, ``package``, ``status``,
  ``wait``, ``logs``, ``find``) with
  their shared options (``_options``).
* :mod:`t2gen.cli.commands` runs ``validate``, ``render`` and ``check`` once
  their arguments are parsed, for both, and maps errors to exit codes
  (0 ok, 1 invalid input or a failed check, 2 usage error);
  :mod:`t2gen.cli.packaging` runs ``package`` the same way; ``_report`` prints
  the errors of the other commands.
* :mod:`t2gen.cli.complete` (``kubectl_complete-t2gen``),
  :mod:`t2gen.cli.kustomize` (``t2gen-kustomize``) and
  :mod:`t2gen.cli.postrender` (``t2gen-post-renderer``, Helm's) are the other
  console scripts.
* the ``--help`` screen they print is generated (``make docs``) into
  :mod:`t2gen._generated.cli_help`.

This module imports nothing, so that the console script stays free of Typer.
"""
