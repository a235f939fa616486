"""The vault questions written blind to decide one thing each: round five's (bench/vault_questions_fresh.tsv, set
``vault-fresh``: 80 questions, 20 a language; it chooses since round six), round six's
(bench/vault_questions_fresh2.tsv, ``vault-fresh2``: 60, 15 a language; it chooses since round seven), round
seven's (bench/vault_questions_fresh3.tsv, ``vault-fresh3``: 60, 15 a language; chooses since round eight) and
round eight's (bench/vault_questions_fresh4.tsv, ``vault-fresh4``: 60, 15 a language; reports only). Each question
is answered in its own language by one page of the eval vault. ``relevant`` is every copy of that page (the pages
sharing its Publish ``permalink``) whose text states the fact, checked here by one pattern per question: every
labelled page matches it, and no unlabelled copy of the page does."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from bench.retrieval import (
    CHOOSING,
    FRESH2_FILE,
    FRESH2_SET,
    FRESH3_FILE,
    FRESH3_SET,
    FRESH4_FILE,
    FRESH4_SET,
    FRESH_FILE,
    FRESH_SET,
    QUERY_FILES,
    VAULT_FILE,
    load_queries,
)
from tests.support.eval_data import require_eval_vault

LANGUAGES = ("en", "de", "es", "tr")
PERMALINK = re.compile(r"^permalink:\s*(\S+)", re.MULTILINE)

# The text that states each question's answer, in any of the page's languages (written with the set).
STATES = {
    "f001": r"Shift\+Enter|Umschalt\+Eingabe",
    "f002": r"10[,.\s]?000",
    "f003": r"Shift\+(Alt|Option)|Umschalt",
    "f004": r"don't update automatically|nicht automatisch|no se actualizan automáticamente",
    "f005": r"\.json",
    "f006": r"Fold more|Noch mehr einklappen",
    "f007": r"1:1",
    "f008": r"Standard|Estándar",
    "f009": r"Shift\+Enter",
    "f010": r"Orphans|Verwaiste|[Hh]uérfan",
    "f011": r"depth|Tiefe|profundidad",
    "f012": r"[Cc]ookie",
    "f013": r"clipboard|Zwischenablage",
    "f014": r"Defuddle",
    "f015": r"last cursor position|letzten Cursorposition|última posición",
    "f016": r"multiple hotkey combinations",
    "f017": r"US keyboard layout",
    "f018": r"`caution`",
    "f019": r"visible to the public again|wieder öffentlich|visible para el público",
    "f020": r"filter icon",
    "f021": r"var\(--color-blue\)",
    "f022": r"openfreemap",
    "f023": r"Lokale Diagramme können nicht|can't bookmark local graphs|No puedes marcar grafos locales",
    "f024": r"3 [Tt]abs|3 pestañas",
    "f025": r"zuerst erstellt|first created",
    "f026": r"hasTag\(\"a\"\)",
    "f027": r"nicht neu starten|don[’']t need to restart|No necesitas reiniciar",
    "f028": r"global umzubenennen|rename it globally|renombrarla globalmente",
    "f029": r"`\.git`",
    "f030": r"Ignorierten Dateien|\*\*Excluded files\*\* list does not remove",
    "f031": r"\.obsidian-mobile",
    "f032": r"/chat/completions",
    "f033": r"selectorHtml:#main",
    "f034": r"Ollama benötigt keinen API|Ollama does(n't| not) require an API",
    "f035": r"paneType=tab",
    "f036": r"`silent`",
    "f037": r"Quellcode-Ansicht|Source mode|modo de código fuente",
    "f038": r"`Escape`|`Esc`",
    "f039": r"Toggle between two notes|zwei Notizen",
    "f040": r"chronolog|cronológic",
    "f041": r"\^daily-notes-date",
    "f042": r"\^\^highlight\^\^",
    "f043": r"1\.9\.3",
    "f044": r"interoperab",
    "f045": r"cover Image\.png",
    "f046": r"5\.1",
    "f047": r"[Dd]esinstal|[Uu]ninstall",
    "f048": r"7\.1",
    "f049": r"Face ID",
    "f050": r"1\.13\.0",
    "f051": r"Capturar en la nota diaria|Capture to Daily Note",
    "f052": r"proxy_pass",
    "f053": r"x-obsidian-custom-domain",
    "f054": r"www\.mysite\.com/\*",
    "f055": r"todos los usuarios|all users|alle Benutzer",
    "f056": r"script de despliegue|deployment script|Bereitstellungsskript",
    "f057": r"[Bb]loque bajo el cursor|block under cursor|Block unter dem Cursor",
    "f058": r"Shift|Mayús|Umschalttaste",
    "f059": r"recuperar|recover|wiederherstell",
    "f060": r"hora actual|current time|[Aa]ktuelle [Zz]eit",
    "f061": r"söz dizimi vurgulama|[Ss]yntax highlighting|Syntaxhervorhebung|[Rr]esaltado de sintaxis",
    "f062": r"data-site",
    "f063": r"Tag Manager",
    "f064": r"uBlock",
    "f065": r"`Ctrl`",
    "f066": r"sonuna|end of the active note|Ende der aktiven|final de la nota",
    "f067": r"cihaza özgü|device-specific|gerätespezifisch|geräteabhängig",
    "f068": r"Farkı göster|Show changes|Unterschied",
    "f069": r"105120",
    "f070": r"lucide-gallery-vertical",
    "f071": r"`Alt",
    "f072": r"publish\.css",
    "f073": r"ağ hatası|network error|error de red|Netzwerkfehler",
    "f074": r"Arama sonuçlarını kopyala|Copy search results|Suchergebnisse kopieren",
    "f075": r"Değiştirilme zamanına göre sırala \(yeniden eskiye\)|Modified time \(new to old\)"
    r"|Letzte Bearbeitung \(neu - alt\)",
    "f076": r"task-todo:",
    "f077": r":null\]",
    "f078": r"32 ?(x|×|by|mal|por) ?32",
    "f079": r"koltuk sayısına göre|per seat|pro Platz|por número de puestos|pro Sitz",
    "f080": r"\[1,\s?2,\s?2,\s?3\]\.unique\(\)",
}

# Round six's set, written with it the same way.
STATES2 = {
    "g001": r"is not\*\* eligible for a refund|\*\*nicht\*\* erstattungsfähig|no es elegible para reembolso",
    "g002": r"re-gifted|weiterverschenkt|volver a regalar|regalar de nuevo",
    "g003": r"on-premises|vor Ort|local \(on-premise|en las instalaciones",
    "g004": r"up to 20 users|bis zu 20|hasta 20",
    "g005": r"does not render Markdown syntax inside HTML|rendert keine Markdown|no renderiza (la )?sintaxis Markdown",
    "g006": r"cannot contain blank lines|keine Leerzeilen|no pueden contener líneas en blanco",
    "g007": r"Show more context|Mehr Kontext anzeigen|Mostrar más contexto",
    "g008": r"click the view switcher|Ansichtsumschalter|selector de vista",
    "g009": r"Default view for new tabs|Standard-Ansicht für neue Tabs|Vista predeterminada para nuevas pestañas",
    "g010": r"--dry-run",
    "g011": r"`--all`",
    "g012": r"Summarize|Zusammenfassen|Resumir",
    "g013": r"extra tall|Extra groß|extra alt",
    "g014": r"purchaser will be notified|Käufer wird benachrichtigt|comprador será notificado",
    "g015": r"does not update the pinned|aktualisiert (das|den) angeheftete|no actualiza el panel fijado",
    "g016": r"nicht für Backups konzipiert|not designed for backups|no están diseñad",
    "g017": r"Local Backup",
    "g018": r'primäres" Gerät|primary" device|dispositivo "principal|dispositivo principal',
    "g019": r"`F2`",
    "g020": r"Papierkorb des Systems|System trash|[Pp]apelera del sistema",
    "g021": r"Ignorierte Dateien|[Ee]xcluded files|[Aa]rchivos excluidos",
    "g022": r"column_name",
    "g023": r"nur aus der Vault-Liste|only removes it from the vault list|solo (la|lo) (elimina|quita) de la lista",
    "g024": r"Stammverzeichnis des Quell|root of the source vault|raíz de la bóveda de origen",
    "g025": r"Schnell-Aktion|[Qq]uick action|[Aa]cción rápida",
    "g026": r"Globalen Befehl hinzufügen|Add global command|[Aa]ñadir comando global|[Aa]gregar comando global",
    "g027": r"C:\\Vaults",
    "g028": r"Notizen bleiben im Vault erhalten|[Nn]otes (will )?remain in|permanecen en (tu|la) bóveda",
    "g029": r"Nur bei eigener Domain|Custom Domain Url Only|Solo para URL de dominio personalizado",
    "g030": r"Live-Version verwenden|Use live version|Usar (la )?versión en (vivo|directo)",
    "g031": r"encima o debajo de un grupo|above or below a current tab group|über oder unter",
    "g032": r"Deslizar hacia la izquierda|Swipe left|[Ww]ische nach links",
    "g033": r"URL `obsidian://`|`obsidian://` URL",
    "g034": r"convertirlo automáticamente en Markdown|automatically convert them into Markdown|in Markdown umzuwandeln",
    "g035": r"no está diseñado para alojar|not designed to host|nicht dafür (ausgelegt|konzipiert)",
    "g036": r"sobre el teclado|above the keyboard|über der Tastatur",
    "g037": r"Mostrar filtro de búsqueda|Show search filter|Suchfilter anzeigen",
    "g038": r"se ignoran|are ignored|werden ignoriert",
    "g039": r"estado de ánimo|state-of-mind",
    "g040": r"Alternar modo claro/oscuro|Light/Dark Toggle|Hell/Dunkel umschalten",
    "g041": r"[Ii][Dd] del sitio|Site ID|Website-ID",
    "g042": r"Style Settings",
    "g043": r"Para usar JavaScript personalizado|[Tt]o use custom JavaScript|benutzerdefiniertes JavaScript",
    "g044": r"estructura de navegación de archivos|navigation structure|Navigationsstruktur",
    "g045": r"Ocultar en navegación|Hide in navigation|In Navigation ausblenden",
    "g046": r"Boşluk tuşuna|[Ss]pace|barra espaciadora",
    "g047": r"1\.8\.3",
    "g048": r"Yeni sabitlenmiş komut|New pinned command|Neuer angehefteter|[Nn]uevo comando (fijado|anclado)",
    "g049": r"Alt etiketleri göster|Show nested tags|Mostrar etiquetas anidadas",
    "g050": r"Açma davranışı|Open behavior|Öffnungsverhalten|[Cc]omportamiento (al abrir|de apertura)",
    "g051": r"sitemap\.xml",
    "g052": r"\*\*(YENİ|NEW|Neu|NEU|Nuevo|NUEVO)\*\*",
    "g053": r"ilgili bölüme gitmek|navigate to|zu navigieren|navegar a esa sección",
    "g054": r"obsidian\.md/(es/)?account",
    "g055": r"kalıcı olmaz|(does not|doesn't) persist|nicht (dauerhaft|gespeichert|erhalten)|no (persiste|se conserva)",
    "g056": r"sonunda boşluk veya nokta|space or period at the end|am Ende|al final del nombre",
    "g057": r"Bellek yetersiz|Out of memory|[Nn]icht genügend Speicher|[Mm]emoria insuficiente|Speicher voll",
    "g058": r"Geri Bağlantılar\]\]'da görünmez|(don't|do not) appear in|erscheinen nicht|no aparecen en",
    "g059": r"`Space`|`Leertaste`|`Espacio`",
    "g060": r"Tümünü daralt|Collapse all|Alle (einklappen|zuklappen)|Colapsar todo",
}

# Round seven's set, written with it the same way (pages no earlier set labels, where a language had any left).
STATES3 = {
    "j001": r"`Esc`",
    "j002": r"\.flac",
    "j003": r"obsidian-translations",
    "j004": r"more muted color|color más (apagado|tenue)|menos intenso|atenuado",
    "j005": r"\*\*Export Format\*\*.{0,20}JSON",
    "j006": r"not clickable|no se puede hacer clic|no es clicable|no es interactiv",
    "j007": r"embed iframe",
    "j008": r"stored in your local",
    "j009": r"\*\*refresh\*\* icon|\*\*Aktualisieren\*\*-Symbol|\*\*recargar\*\*",
    "j010": r"443",
    "j011": r"at least two hyphens|mindestens zwei Bindestriche",
    "j012": r"Optimize Mac Storage|Optimizar almacenamiento",
    "j013": r"only one property|nach nur einer Eigenschaft|una sola propiedad|solo una propiedad",
    "j014": r"Brave, Arc",
    "j015": r"\{\{image\}\}",
    "j016": r"zusätzliche Importformate|additional import formats|formatos de importación adicionales",
    "j017": r"\[\[202301011230\]\]",
    "j018": r"einzige \.zip|single \.zip|un solo archivo \.zip",
    "j019": r"obsidianmd/obsidian-help",
    "j020": r"Ordner als Vault öffnen|Open folder as vault",
    "j021": r"Standardmäßig ein Komma|comma",
    "j022": r"ntn_",
    "j023": r"OneNote-App für Mac|OneNote app for Mac|aplicación de OneNote para Mac",
    "j024": r"archiviert|archived|archivado",
    "j025": r"--copy",
    "j026": r"als YAML gespeichert|saved as YAML|guardado como YAML",
    "j027": r"Anhänge für die aktuelle Datei herunterladen|Download attachments for current file",
    "j028": r'\{\{title \?\? "Untitled"\}\}',
    "j029": r'"\$" \+ price\.toFixed\(2\)',
    "j030": r"file=My%20Note\.md",
    "j031": r"plugin-dev",
    "j032": r"Tamaño mínimo de imagen|Minimum image size|Minimale Bildgröße",
    "j033": r"Conversor de formato|\[\[Format converter\]\] to convert"
    r"|Importprogramm für Markdown Format\]\] verwenden, um deine Dateien",
    "j034": r"`(Ctrl|Strg)\+N`",
    "j035": r"\.base#",
    "j036": r"[Ll]icencia [Cc]omercial|[Cc]ommercial [Ll]icense",
    "j037": r"lista todas las notas al pie|lists all footnotes",
    "j038": r"feature-requests/8/commercial",
    "j039": r"12 horas|12 hours",
    "j040": r"Tiempo de inicio|Startup time|Startzeit",
    "j041": r"@obsdmd",
    "j042": r"No ves tu aplicación|Don't see your app|Deine App ist nicht",
    "j043": r"\*\*Export(ieren)?\*\*",
    "j044": r"[Kk]anban",
    "j045": r"Vista previa de página|Page preview",
    "j046": r"docs\.obsidian\.md",
    "j047": r"publish\.obsidian\.md/my-amazing-site",
    "j048": r"Site adı|Site name|Name der Website|Nombre de la página web",
    "j049": r"yerel verilerinizi silmez|not delete your local|nicht deine lokalen|no eliminará sus datos locales",
    "j050": r"Çöp kutusu simgesi görünmüyorsa|no trash can icon visible|kein Papierkorb-Symbol sichtbar"
    r"|no hay un icono de papelera visible",
    "j051": r"1\.4\.16",
    "j052": r"harici bir sabit disk|external hard drive|externen Festplatte|disco duro externo",
    "j053": r'date_modify:"\+1 year"',
    "j054": r'"3665"\|duration',
    "j055": r"list:task",
    "j056": r"random\(\)",
    "j057": r"\[3, 1, 2\]\.sort\(\)",
    "j058": r"en boy oranını korumak|aspect ratio|Seitenverhältnis|relación de aspecto",
    "j059": r"Shift\+1",
    "j060": r"Windows Defender",
}

# Round eight's set, written with it the same way (pages no earlier set labels, where a language had any left).
STATES4 = {
    "k001": r"Ctrl\+Shift\+K",
    "k002": r"Cmd\+Shift\+\.",
    "k003": r"XDG_CONFIG_HOME",
    "k004": r"--dangerous",
    "k005": r"Maker of Calendar",
    "k006": r"displayName",
    "k007": r"Canadian Dollars|CAD|dólares canadienses|Kanadische Dollar",
    "k008": r"VAT",
    "k009": r"#height=",
    "k010": r"shapes but not the text|formas pero no el texto|Formen, aber nicht den Text",
    "k011": r"not automatically selected for safety|no se selecciona automáticamente por seguridad",
    "k012": r"overrides excluded folders|anula las carpetas excluidas",
    "k013": r"\.icns",
    "k014": r"1\.15\.11",
    "k015": r"menu button|Menü-Schaltfläche|botón de menú",
    "k016": r"mehrere Snippets gleichzeitig|multiple snippets|múltiples fragmentos al mismo tiempo",
    "k017": r"unteren Rand der App|bottom of the app|parte inferior",
    "k018": r"standardmäßig deaktiviert|disabled by default|deshabilitados por defecto",
    "k019": r"sofort aus allen|immediately",
    "k020": r"Einladungslinks|invite links|enlaces de invitación",
    "k021": r"U\+2192",
    "k022": r'gegenüber „Verzeichnis|over "directory|sobre "directorio',
    "k023": r"%APPDATA%",
    "k024": r"workspace\.json",
    "k025": r"libnss3-dev",
    "k026": r"values\.mean\(\)\.round\(3\)",
    "k027": r"Google [Dd]eveloper [Dd]ocumentation [Ss]tyle [Gg]uide",
    "k028": r"CommonMark",
    "k029": r"`from` oder `source`|`from` or `source`|`from` o `source`",
    "k030": r"alphabetisch|alphabetical|alfabétic",
    "k031": r"jerarquía de etiquetas|tag hierarchy|Tag-Hierarchie",
    "k032": r"segunda pantalla|second screen|zweiten Bildschirm",
    "k033": r"explorer\.exe",
    "k034": r"adaptarse a tu sistema operativo|adapt to your operating system|an dein Betriebssystem",
    "k035": r"#page=",
    "k036": r"proporcional|proportional",
    "k037": r"publish: false",
    "k038": r"Añadir enlace|Add linked|Verlinkte hinzufügen",
    "k039": r"flatpak install flathub",
    "k040": r"APK",
    "k041": r"Mapas|Maps|Karten",
    "k042": r"Compositor de notas|Note composer|Notizen-Werkbank",
    "k043": r"Backup all notes",
    "k044": r"YAML válido|valid YAML|gültiges YAML",
    "k045": r"groupBy",
    "k046": r"25 veya daha fazla|25 or more|25 oder mehr|25 o más",
    "k047": r"NET 30|30 Tage netto|30 días netos",
    "k048": r"rss\.xml",
    "k049": r"Google Search Console",
    "k050": r"MM/DD/YYYY",
    "k051": r"filtre1\|filtre2|filter1\|filter2",
    "k052": r"boş bir yerel kasa|new, empty local vault|neuen, leeren|nueva bóveda local vacía",
    "k053": r"not sayısını|number of notes|Anzahl der Notizen|número de notas",
    "k054": r"yanındaki oka|arrow next to|Pfeil|flecha",
    "k055": r"Bağlantı kesildi|Disconnected|Getrennt|Desconectado",
    "k056": r"Etkinlik günlüğünü aç|Open activity log|Sync: Sync-Log öffnen|Sync: Abrir el registro de actividad",
    "k057": r"Satır&nbsp;genişliği|Line&nbsp;width|Zeilenbreite|Ancho&nbsp;de&nbsp;línea",
    "k058": r"Değişiklikleri yayınla\.\.\.|Publish changes\.\.\."
    r"|Änderungen veröffentlichen\.\.\.|Publicar cambios\.\.\.",
    "k059": r"dipnot açılır pencereleri|[Ff]ootnote popovers|Fußnoten-Popover|[Vv]entanas emergentes de notas al pie",
    "k060": r"Catalyst lisansı\]\(https://obsidian\.md/account/catalyst\) içermez"
    r"|does not include|beinhaltet nicht|no incluye",
}

# file -> (its patterns, questions a language)
SETS = {
    FRESH_FILE: (STATES, 20),
    FRESH2_FILE: (STATES2, 15),
    FRESH3_FILE: (STATES3, 15),
    FRESH4_FILE: (STATES4, 15),
}
WHOLE = pytest.mark.parametrize("questions", list(SETS), ids=[FRESH_SET, FRESH2_SET, FRESH3_SET, FRESH4_SET])


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _relevant(row: dict[str, str]) -> list[str]:
    return [p.strip() for p in row["relevant"].split(";")]


def _copies(vault: Path) -> dict[str, list[str]]:
    """Every page of the eval vault -> the pages that publish at its permalink (itself alone without one)."""
    link = {}
    for page in vault.rglob("*.md"):
        found = PERMALINK.search(page.read_text(encoding="utf-8"))
        link[page.relative_to(vault).as_posix()] = found.group(1) if found else None
    by_link: dict[str, list[str]] = {}
    for path, name in link.items():
        if name:
            by_link.setdefault(name, []).append(path)
    return {path: sorted(by_link[name]) if name else [path] for path, name in link.items()}


@WHOLE
def test_the_same_number_of_questions_a_language_each_with_its_pattern(questions: Path) -> None:
    states, each = SETS[questions]
    rows = _rows(questions)
    assert len({row["id"] for row in rows}) == len(rows) == each * len(LANGUAGES)
    assert all(sum(row["lang"] == lang for row in rows) == each for lang in LANGUAGES)
    assert {row["kind"] for row in rows} <= {"fact", "howto"}
    assert set(states) == {row["id"] for row in rows}


@WHOLE
def test_each_question_is_answered_by_copies_of_one_page_in_its_own_language_among_them(questions: Path) -> None:
    vault = require_eval_vault()
    copies = _copies(vault)
    wrong = []
    for row in _rows(questions):
        relevant = _relevant(row)
        if any(path not in copies for path in relevant):
            wrong.append((row["id"], "missing page"))
        elif len({tuple(copies[path]) for path in relevant}) != 1:
            wrong.append((row["id"], "more than one page"))
        elif not any(path.startswith(row["lang"] + "/") for path in relevant):
            wrong.append((row["id"], "no copy in its language"))
    assert not wrong


@WHOLE
def test_every_copy_that_states_the_answer_is_labelled_and_no_other(questions: Path) -> None:
    vault = require_eval_vault()
    copies = _copies(vault)
    patterns = SETS[questions][0]
    wrong = []
    for row in _rows(questions):
        relevant = set(_relevant(row))
        family = copies[next(iter(relevant))]
        states = {p for p in family if re.search(patterns[row["id"]], (vault / p).read_text(encoding="utf-8"))}
        if states != relevant:
            wrong.append((row["id"], sorted(states ^ relevant)))
    assert not wrong


# that no question names a labelled page by its title: tests/test_vault_questions.py, for both sets


@WHOLE
def test_no_question_is_one_of_the_other_sets(questions: Path) -> None:
    files = [*QUERY_FILES.values(), VAULT_FILE, *(path for path in SETS if path != questions)]
    others = {row["query"].casefold() for path in files if path.is_file() for row in _rows(path)}
    assert not others & {row["query"].casefold() for row in _rows(questions)}


def test_the_sets_read_once_for_a_report_now_choose() -> None:
    # vault-fresh4 reported round eight once; it chooses from round nine on (docs/retrieval.md)
    assert FRESH4_SET in CHOOSING
    assert FRESH_SET in CHOOSING
    assert FRESH2_SET in CHOOSING
    assert FRESH3_SET in CHOOSING


@WHOLE
def test_the_set_is_read_whole_as_labelled(questions: Path) -> None:
    rows = {row["id"]: row for row in _rows(questions)}
    queries = load_queries(questions)
    assert len(queries) == len(rows)
    for q in queries:
        assert q.relevant == set(_relevant(rows[q.id]))
