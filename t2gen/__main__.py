"""Run the command line: ``python -m t2gen``."""

from t2gen.launch import main

main()
