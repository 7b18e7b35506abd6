"""The Twister2 runtime contract: object names, labels, env vars, ports and the worker map."""
