"""Helper package for the course module "GPU training and mixed precision in PyTorch".

The notebooks import from here so that data loading, the model of modules 5 and 6, the
environment report and the self-check messages exist once, with tests of their own.
Nothing here is needed to *answer* an exercise: the graded functions live in the notebooks.
"""

__version__ = "0.6.0"
