"""Grading: one submission through the steps ``pipeline.STEPS`` declares; the class run; reviews; merging."""
