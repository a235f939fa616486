"""The pointer gate: the model is asked about a pair only when code evidence already points at it.

Protects against the model's word deciding alone. A small model says "same" to neighbours, subclasses and
wrong translations; a yes-saying one to everything. So the model's questions (same, swapped, contrary) only
confirm a pair that the vault's structure already points to, or the pair defers (``unclear``, never asked):

- ``spelling_of``: the names are spellings of one name (``variant_key``: case, diacritics, hyphen/space, plural;
  or the same letters once spaces and punctuation go: ``Pop out windows`` / ``Pop-out windows``);
- ``aligned``: in parallel pages (one document in two language folders, the same ``permalink``), the name's
  link stands where the other page links the title's page, between links both pages share
  (``sameness.Alignment``); every place it stands must point at the same page.

Removing a check (everything passes) sends every pair to the model: a model that confirms everything then
merges pairs with no evidence, and the tests of the pass fail.
"""

from __future__ import annotations

from collections.abc import Collection

from sentinel.gates import Verdict
from sentinel.vault.name_words import folded, variant_key


def _squashed(name: str) -> str:
    return "".join(folded(name))


def spelling_of(name: str, title: str) -> Verdict[str]:
    """Passes when the two names are spellings of one name."""
    if variant_key(name) == variant_key(title) or (_squashed(name) and _squashed(name) == _squashed(title)):
        return Verdict(True)
    return Verdict(False, f"{name!r} is not a spelling of {title!r}")


def aligned(title_page: str, aligned_pages: Collection[str]) -> Verdict[str]:
    """Passes when parallel pages put the name where they link the title's page, and nowhere else."""
    if title_page in aligned_pages:
        return Verdict(True)
    return Verdict(False, f"no parallel page puts the name where it links {title_page}")
