"""YAML frontmatter parsed within a budget: a page's properties are a few lines, never a "billion laughs".

PyYAML shares an aliased node instead of copying it, so nine anchors of nine aliases each compose in
microseconds; the explosion comes later, in whatever walks the result as a tree (nine to the ninth values). The
loader below (PyYAML's own SafeLoader, with its composer hook) therefore weighs each node as the tree it stands
for, aliases counted in full, and refuses the document once that weight passes ``MAX_NODES``, once it uses more
than ``MAX_ALIASES`` aliases, or when an alias points into its own anchor (a cycle no tree walk ends). Each parse
also has a size budget (``MAX_BYTES``, checked before parsing) and a time budget (``MAX_SECONDS``, checked per
node): a refusal is a ``FrontmatterRefused`` with its reason, never a partial result.
"""

from __future__ import annotations

import time
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

MAX_BYTES = 256 * 1024  # Obsidian properties are a few hundred bytes; a quarter MB of them is no page's metadata
MAX_NODES = 20_000  # scalars, lists and mappings in the expanded tree
MAX_ALIASES = 200
MAX_SECONDS = 2.0


class FrontmatterRefused(yaml.YAMLError):
    """Frontmatter not parsed because it is past a budget; the message says which and why."""


class BoundedLoader(yaml.SafeLoader):
    """SafeLoader that weighs the expanded tree while composing it and stops past a budget."""

    def __init__(self, stream: str) -> None:
        if len(stream.encode("utf-8", "surrogatepass")) > MAX_BYTES:
            raise FrontmatterRefused(f"frontmatter is over {MAX_BYTES // 1024} KB")
        super().__init__(stream)
        self._weights: dict[int, int] = {}
        self._aliases = 0
        self._deadline = time.monotonic() + MAX_SECONDS

    def compose_node(self, parent: Any, index: Any) -> Any:
        if time.monotonic() > self._deadline:
            raise FrontmatterRefused(f"frontmatter took over {MAX_SECONDS:g} s to parse")
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise FrontmatterRefused(f"frontmatter uses over {MAX_ALIASES} YAML aliases; not expanded")
            node = super().compose_node(parent, index)
            if id(node) not in self._weights:  # an alias to an anchor still being composed: the tree has no end
                raise FrontmatterRefused("frontmatter has a YAML alias inside its own anchor (a cycle); not expanded")
            return node
        node = super().compose_node(parent, index)
        if node is not None and self._weigh(node) > MAX_NODES:
            raise FrontmatterRefused(
                f"frontmatter expands to over {MAX_NODES} values through YAML aliases (an alias bomb); not expanded"
            )
        return node

    def _weigh(self, node: yaml.Node) -> int:
        """The node's size as a tree; children are weighed already (they were composed first)."""
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            children = []
        weight = 1 + sum(self._weights[id(child)] for child in children)
        self._weights[id(node)] = weight
        return weight


class BoundedYAMLHandler(YAMLHandler):
    """python-frontmatter's YAML handler, loading with ``BoundedLoader``."""

    def load(self, fm: str, **kwargs: object) -> Any:
        return yaml.load(fm, Loader=BoundedLoader)  # a SafeLoader subclass: no arbitrary objects
