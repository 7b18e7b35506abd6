"""Run the command line: ``python -m t2gen``."""

from t2gen.cli.launch import main

main()
