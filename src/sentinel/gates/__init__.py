"""Gates: named places where code, not the model, decides. Each has a test that fails when it is removed."""
