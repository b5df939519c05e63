"""The parts of ``scripts/gpu_run.py`` that need no GPU, each testable on a CPU: which figures a run must report
(figures), the time budget of its stages (plan), its grading compared row by row with the CPU's expectations
(grading), and the results page (page)."""
