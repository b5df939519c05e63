"""The instructor side of the course: build the student notebooks, autograde, report."""
