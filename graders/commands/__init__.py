"""The instructor's commands, one module each (``HELP``, ``add_arguments(parser)``, ``run(args)``)."""
