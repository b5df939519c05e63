"""What the tests of every tier share: fixture builders (``lms``: LMS downloads; ``adversarial``: submissions
that attack the grader; ``rosters``, ``gradebooks``, ``importers``: the export's round trip), the guard's
stand-in kernel (``guard_helpers``) and small readers. Imported as ``tests.helpers.<module>``."""
