"""Checks of the graders themselves: the samples' verdict, selftest, stress."""
