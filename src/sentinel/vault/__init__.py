"""The vault: walking it, parsing its pages, writing to it atomically."""
