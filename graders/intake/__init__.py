"""Intake: an LMS download or per-student folders, into one clean notebook per student and assignment."""
