"""The change-detection hashes live in one module, ``sentinel.vault.hashes``; elsewhere ``hashlib`` only names
things (a key, a model file, a fetched page, a probe) or signs them."""

from __future__ import annotations

import ast
from pathlib import Path

from sentinel.vault import hashes

REPO = Path(__file__).resolve().parents[2]
# what each other use of hashlib is, and why it is no change detection
NOT_CHANGE_DETECTION = {
    "src/sentinel/keys.py": "an API key is stored as its hash",
    "src/sentinel/embed/onnx.py": "the model file's identity, reported",
    "src/sentinel/research/fetch.py": "a fetched page's hash, quoted in its source record",
    "src/sentinel/answer/probe.py": "the key a probe's answer is recorded under",
    "src/sentinel/answer/record.py": "the key an answer and its chat are recorded under",
    "src/sentinel_pool/errors.py": "an idempotency key's name",
    "src/sentinel_pool/admission.py": "a prompt prefix's name, for sticky routing",
    "src/sentinel_pool/signing.py": "an HMAC",
    "src/sentinel_pool/registry.py": "an HMAC",
}


def _imports_hashlib(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(alias.name == "hashlib" for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "hashlib":
            return True
    return False


def test_hashlib_is_used_for_change_detection_only_in_the_hashes_module() -> None:
    users = {
        path.relative_to(REPO).as_posix()
        for root in ("src", "services")
        for path in (REPO / root).rglob("*.py")
        if _imports_hashlib(path)
    }
    assert users == {"src/sentinel/vault/hashes.py", *NOT_CHANGE_DETECTION}


def test_each_hash_tells_apart_what_its_decision_needs() -> None:
    linked, plain = "See [[Ada Lovelace|Ada]].\n", "See Ada.\n"
    assert hashes.content_hash(linked) == hashes.content_hash(plain)  # a retargeted link is no new content
    assert hashes.edit_hash(linked) != hashes.edit_hash(plain)  # but a write over it would lose the link
    assert hashes.edit_hash(linked) == hashes.edit_hash(linked.encode()) and len(hashes.edit_hash(linked)) == 12
    assert hashes.body_hash(f"\n{plain}\n\n") == hashes.body_hash(plain)
    assert hashes.source_hash(plain) != hashes.source_hash(plain.strip())
    assert hashes.mentions_fingerprint([("a", "bc")]) != hashes.mentions_fingerprint([("ab", "c")])
