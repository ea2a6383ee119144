"""The command line: thin commands over the Python API."""
