"""The derived SQLite index: rebuildable from the vault at any time; where the two disagree the vault wins."""
