"""User text that query syntax must survive (FTS5 operators, quotes, NUL, emoji, a 5000-letter word): the FTS and
the ladder tests search with each."""

NASTY = [
    'NEAR("a" "b", 2)',
    "foo AND OR NOT bar",
    '"unbalanced quote',
    "col:value title:x",
    "* ^ - + ( ) { } [ ] : ;",
    "prefix* and -negated",
    "a\x00b",
    "'; DROP TABLE chunks; --",
    "🙂 emoji only 🙂",
    "   ",
    "İstanbul ılık ağaç GRÖSSE naïve",
    "x" * 5000,
]
