"""Around the algorithms: the benchmark harness, Graph500 validation, the python-graphblas reference, the check command, plots, the communication model and the command line."""
