"""Out of the gradebook: LMS import files and feedback pages without the hidden tests."""
