"""How text is folded for the FTS5 tables, so queries fold the same way the index did."""

from __future__ import annotations

# unicode61 with remove_diacritics folds ç, ş, ğ, ü, ö, é, ñ, ß-less umlauts, but treats Turkish ı and İ as
# letters of their own; the chunk triggers (migration m001) apply this same table.
_FOLD = str.maketrans({"ı": "i", "İ": "I"})


def fts_fold(text: str) -> str:
    """Fold ``text`` the way indexed text was folded before it reached FTS5."""
    return text.translate(_FOLD)
