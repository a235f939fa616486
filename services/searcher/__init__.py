"""The Searcher service: web research into the vault's sources folder, behind HTTP."""
