"""The maintenance pass: analysis, concept pages, name resolution, embedding; and the health line."""
