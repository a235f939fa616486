"""The two-pages gate: a name that already has a page of its own is never made an alias of another page.

Protects two things by construction: two titles with two files are what the person (or a concept page the
pass wrote) made separately, and an alias would silently send every link of one to the other. Such a pair is
never asked; merging two pages is a person's edit.
"""

from __future__ import annotations

from sentinel.gates import Verdict


def one_page(name_page: str | None, target_page: str) -> Verdict[str]:
    """Refused when the name answers to a page (``name_page``) other than the one it would become an alias of."""
    if name_page is not None and name_page != target_page:
        return Verdict(False, f"the name has a page of its own, {name_page}, besides {target_page}")
    return Verdict(True)
