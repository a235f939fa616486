"""Link syntax as Obsidian writes it: wikilinks, embeds and markdown links to .md files."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import unquote

from sentinel.paths import is_page_file, without_md

# [[target]], [[target|label]], ![[embed]]; a table cell escapes the pipe as \|.
WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
# [label](target.md) with an optional #fragment; external URLs are not vault links.
MARKDOWN_LINK = re.compile(r"(!?)\[([^\[\]\n]*)\]\(([^()\s]+?\.md)(#[^()\s]*)?\)", re.IGNORECASE)


# Files Obsidian embeds or links that are not pages: a link to one is an attachment, never a missing concept.
ATTACHMENT_EXTENSIONS = frozenset(
    [
        "png",
        "jpg",
        "jpeg",
        "gif",
        "bmp",
        "svg",
        "webp",
        "avif",
        "pdf",
        "mp3",
        "wav",
        "m4a",
        "ogg",
        "flac",
        "3gp",
        "webm",
        "mp4",
        "mov",
        "mkv",
        "ogv",
        "canvas",
        "base",
    ]
)


def is_attachment(target: str) -> bool:
    """True when a link target names a non-page file such as an image or a PDF."""
    _, dot, ext = target.rpartition(".")
    return bool(dot) and ext.casefold() in ATTACHMENT_EXTENSIONS


@dataclass(frozen=True)
class Link:
    """One link as written: ``target`` is the page part (no heading, no .md), ``heading`` the #part."""

    target: str
    heading: str | None
    display: str
    kind: str  # wikilink | embed | markdown | attachment
    line: int


def split_wikilink(inner: str) -> tuple[str, str | None, str | None]:
    """Split the inside of ``[[...]]`` into page target, heading/block part and label."""
    inner = inner.replace("\\|", "|")
    target, _, label = inner.partition("|")
    target, hash_, heading = target.partition("#")
    return target.strip(), (heading.strip() or None) if hash_ else None, label.strip() or None


def link_key(target: str) -> str:
    """The lookup key of a link target: lower-cased, .md dropped, slashes normalised, no leading ./ or /."""
    key = without_md(target.strip().replace("\\", "/")).lstrip("/")
    while key.startswith("./"):
        key = key[2:]
    return key.casefold()


def key_base(key: str) -> str:
    """The last path component of a link key: what a basename match compares."""
    return key.rsplit("/", 1)[-1]


def wikilinks_in(text: str, line: int) -> list[Link]:
    links = []
    for bang, inner in WIKILINK.findall(text):
        target, heading, label = split_wikilink(inner)
        if not target and heading is None:
            continue
        display = label or (f"{target} > {heading}" if heading and target else target or heading or "")
        kind = "attachment" if is_attachment(target) else "embed" if bang else "wikilink"
        links.append(Link(without_md(target), heading, display, kind, line))
    return links


def markdown_link(href: str, label: str, line: int, folder: str = "") -> Link | None:
    """A markdown link to a vault page (URL-encoded .md path), or None for anything else.

    A path that starts with ``./`` or ``../`` is relative to ``folder`` (the linking page's folder), as
    Obsidian writes links in its "relative path" mode; it becomes a vault path. One that climbs out of the
    vault stays as written and reaches no page.
    """
    if "://" in href or href.startswith("mailto:"):
        return None
    path, _, fragment = href.partition("#")
    if not is_page_file(path):
        return None
    target = without_md(unquote(path))
    if target.startswith(("./", "../")):
        joined = posixpath.normpath(posixpath.join(folder, target))
        target = target if joined.startswith("..") else joined
    return Link(target, unquote(fragment) or None, label or target, "markdown", line)


def text_without_link_markup(text: str) -> str:
    """The text a reader sees: each link replaced by its visible words.

    This is what the content hash is computed over, so wrapping an existing name in ``[[ ]]`` (or unwrapping
    it) leaves the hash unchanged while any real edit moves it.
    """

    def wiki(match: re.Match[str]) -> str:
        target, heading, label = split_wikilink(match.group(2))
        return label or target or heading or ""

    text = WIKILINK.sub(wiki, text)
    return MARKDOWN_LINK.sub(lambda m: m.group(2), text)


# A link a quote or a model cut in half, or wrote with escaped brackets, which no pattern above reads as a link and
# a chat shows raw: "[#Historial de versiones]", "Yerleşik Eklentiler|eklentisi]" (answers_set tr03), and
# "\[\[Tres leyes del movimiento\]\]", which Open WebUI draws as a formula (seen in the browser at stop 52). Whole
# links come first, so that a half is only what no whole link holds; a code span holds no half (it shows syntax).
_ESCAPED = re.compile(r"\\\[\\\[([^\[\]\n]+?)\\\]\\\]")
_SHOWN = re.compile(
    rf"(?P<code>(`+)[^`]+?\2)|(?P<whole>{WIKILINK.pattern}|(?i:{MARKDOWN_LINK.pattern}))"
    r"|!?\[\[(?P<open>[^\[\]\n]*+)\]?(?!\])"  # "[[Page|label]", "[[Page|label" (nothing closes it)
    r"|\[(?P<close>[^\[\]\n]*)\]\](?!\()"  # "[Page|label]]"
    r"|\[(?P<single>#[^\[\]\n]*|[^\[\]\n|]*\|[^\[\]\n|]*)\](?!\()"  # "[#heading]", "[Page|label]"
    # "Page|label]" or "Page|label]]": where the page's name begins is not known (see ``shown_links``)
    r"|(?<=[^\s|])\|(?P<pipe>[^\[\]\n|`]*)\]\]?"
    r"|\]\]"  # a closing half alone
)


_DRAWN = "\x00"  # where ``shown_links`` left out an embedded file, until the spaces around it are read
_AT_DRAWN = re.compile(r"[ \t]*\x00(?:[ \t]*(?=[.,;:!?)]))?")


def _embedded_file(link: str) -> bool:
    """Whether ``link`` embeds a file a reader sees drawn, not named: an icon, an image, a player
    ("![[lucide-book-icon.svg#icon]]", "![[console.png#interface|600]]", whose label is its width)."""
    embed = WIKILINK.fullmatch(link)
    return bool(embed and embed.group(1) == "!" and is_attachment(split_wikilink(embed.group(2))[0]))


def shown_links(text: str, source: str = "") -> str:
    """``text`` as a person is shown it: each link as its label (``text_without_link_markup``), and a link cut in
    half or with escaped brackets as its label too ("[#Historial de versiones]" -> "Historial de versiones",
    "Yerleşik Eklentiler|eklentisi]" -> "eklentisi"); no half is read in a code span (it shows link syntax). Where
    the half lost its opening brackets, the page's name it opens with is known only from the ``source`` it was
    copied from (a model's passages): "depends on your Plans|Sync plan]" is "depends on your Sync plan" with a
    source holding "[[Plans|Sync plan]]"; without one, the page's name is shown and its label left off ("depends
    on your Plans"): no word before the half is taken for part of the name. An embedded file (an icon, an image)
    is shown as nothing: the page draws it, and its file name or width is no word a reader reads there.
    Not the content hash's text: that is ``text_without_link_markup``, which a cut link never reaches."""

    def shown(match: re.Match[str]) -> str:
        if match["code"] is not None:  # no half read in it; its whole links as ``text_without_link_markup`` reads them
            return text_without_link_markup(match["code"])
        if match["whole"] is not None:
            return _DRAWN if _embedded_file(match["whole"]) else text_without_link_markup(match["whole"])
        if match["pipe"] is not None:
            return ""
        inner = next((match[name] for name in ("open", "close", "single") if match[name] is not None), "")
        target, heading, label = split_wikilink(inner)
        return label or target or heading or ""

    text = _ESCAPED.sub(lambda m: f"[[{m.group(1)}]]", text)
    for inner in dict.fromkeys(inner for _, inner in WIKILINK.findall(source) if "|" in inner or "#" in inner):
        whole = f"[[{inner}]]"
        for written in dict.fromkeys((inner, inner.replace("\\|", "|"))):
            text = re.sub(rf"(?<!\[)\[{{0,2}}{re.escape(written)}\]{{0,2}}", whole.replace("\\", "\\\\"), text)
    # where a drawn file stood, no space is left before the punctuation that followed it ("izquierda .")
    return _AT_DRAWN.sub("", _SHOWN.sub(shown, text))
