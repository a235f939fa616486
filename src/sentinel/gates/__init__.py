"""Gates: the deterministic checks that decide what the model's output may change.

The model transports (copies concepts, says what a page is, says whether two names are the same); each module
here is one rule that code applies to that output, the same way every run. A gate never asks the model to be
careful: it drops, refuses or defers. Every gate is a named function with a test that fails when its call is
removed (``tests/maintain/test_mutations.py``).
"""
