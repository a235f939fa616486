"""The text that states each answer of vault-fresh17 (round twenty-one's blind set, STATES17), one pattern per
question, in any of its page's languages; continues tests/support/vault_question_states_later.py (split only to
keep each module short). Written with the set by reading pages, never changed by a ranking."""

from __future__ import annotations

STATES17 = {
    "z061": r"files are only synced when Obsidian is running|solo se sincronizan cuando Obsidian está en ejecución",
    "z062": r"Files on-demand|Archivos bajo demanda",
    "z063": r"Attachments are regular files that you can access using your file system",
    "z064": r"ob logout",
    "z065": r"does not currently support the application's \[\[Search|actualmente no admite la función de \[\[Búsqueda",
    "z066": r"sync-\*\.obsidian\.md",
    "z067": r"Last tab on the right",
    "z068": r"The code is\s\[open source\]",
    "z069": r"`image` and `cover` are identical|`image` y `cover` son",
    "z070": r"network attached storage|almacenamiento (?:conectado|en red)",
    "z071": r"generated link also follows your preferences|enlace generado también",
    "z072": r"### `orphans`",
    "z073": (
        r"the first command you run launches Obsidian|startet der erste Befehl, den du ausführst, Obsidian|"
        r"el primer comando que ejecutes iniciará Obsidian"
    ),
    "z074": r"\| `\{\{fullHtml\}\}`",
    "z075": r"\*\*Invite user\*\*|\*\*Nutzer einladen\*\*|\*\*Invitar usuario\*\*",
    "z076": r"Tabellen, Bilder, Zeichnungen|tables, images, drawings|tablas, imágenes, dibujos",
    "z077": r"Google Keep \(\.zip\)",
    "z078": (
        r"kein Ersatz für deinen primären Browser|not a replacement for your primary browser|"
        r"no es un reemplazo para tu navegador principal"
    ),
    "z079": r"cure53-second-client-audit",
    "z080": (
        r"Catalyst-Lizenz\|Catalyst\]\] fallen in der Regel keine|"
        r"generally do not apply to \[\[Obsidian Credit\]\] and \[\[Catalyst|"
        r"no se aplican al \[\[Crédito Obsidian\]\] ni a \[\[Licencia Catalyst"
    ),
    "z081": (
        r"Überprüfungsprozess kann je nach Standort sofort|verification process may be instantaneous|"
        r"proceso de verificación puede ser instantáneo"
    ),
    "z082": r"Wiederherstellungscode \*\*einmal\*\*|recovery code \*\*once\*\*",
    "z083": r"privaten Browserfenster|private browsing window",
    "z084": r"DSGVO|GDPR|RGPD",
    "z085": r"Spitzname|Nickname|[Aa]podo",
    "z086": r"vollständigen Pfad zur alten Notiz|full path to the old note|ruta completa",
    "z087": (
        r"nicht standardmäßig in der Seitenleiste|does not appear in the sidebar by default|"
        r"no aparece en la barra lateral de forma predeterminada"
    ),
    "z088": r"--mfa",
    "z089": r"<iframe src=",
    "z090": r"Strg\+Eingabe|Ctrl\+Enter",
    "z091": r"deleted immediately from Obsidian Sync servers|se eliminan inmediatamente de los servidores",
    "z092": r"There is no per-vault limit|No hay límite por bóveda",
    "z093": r"`\.hevc` (?:o|or|oder) `\.av1`",
    "z094": r"Exec=executable %u",
    "z095": r"\[\^1\]:",
    "z096": (
        r"subpágina se guarda en una carpeta|subpage is saved in a folder|Unterseite wird in einem Ordner gespeichert"
    ),
    "z097": (
        r"la nota enlaza a la URL del archivo en Airtable|the note links to the file's URL on Airtable|"
        r"verlinkt die Notiz stattdessen auf die Datei-URL bei Airtable"
    ),
    "z098": r"Block references are specific to Obsidian|referencias de bloque son específicas de Obsidian",
    "z099": r"Abrir mi nota diaria en Obsidian|Open my daily note in Obsidian",
    "z100": r"\*\*restauración masiva\*\*|\*\*bulk restore\*\*|\*\*Mehrere wiederherstellen\*\*",
    "z101": (
        r"en los complementos \[\[Notas diarias\]\]|in the \[\[Daily notes\]\] and|"
        r"in den Erweiterungen \[\[Tägliche Notizen\]\]"
    ),
    "z102": r"Eliminar archivo\*\*|Delete file\*\*|Datei löschen\*\*",
    "z103": r"otros formatos de archivo usando|other file formats using|um weitere Dateiformate erweitern",
    "z104": r"permanent\s+#",
    "z105": r"obsidian\.md/(?:es/)?terms",
    "z106": r"Son arama terimlerini ara|Search recent search terms|Letzte Suchbegriffe durchsuchen",
    "z107": (
        r"JavaScript türünde düzenli ifadeler|JavaScript-flavored regular expressions\.|"
        r"reguläre Ausdrücke im JavaScript-Stil\."
    ),
    "z108": (
        r"yalnızca masaüstünde görüntülenebilir|only visible on desktop|nur auf dem Desktop sichtbar|"
        r"solo son visibles en escritorio"
    ),
    "z109": r"lucide-send\.svg",
    "z110": r"arka plan senkronizasyonu varsa|has background syncing|Hintergrundsynchronisierung unterstützt",
    "z111": (
        r"görünüm yüklendiğinde yenilenir|refreshes whenever a view is loaded|bei jedem Laden einer Sicht aktualisiert|"
        r"se actualiza cada vez que se carga una vista"
    ),
    "z112": r"gece yarısına|midnight|Mitternacht|medianoche",
    "z113": r"hasProperty\(name: string\)",
    "z114": r"### `blockquote`",
    "z115": r"### `length`",
    "z116": (
        r"nomedia` dosyalarının Obsidian Sync|`\.nomedia` files are not synced|"
        r"`\.nomedia`-Dateien nicht über Obsidian Sync"
    ),
    "z117": r"yinelenen metin|create duplicate text|doppelten Text",
    "z118": (
        r"topluluk eklentisi de Obsidian Sync'in|community plugin can also prevent Obsidian Sync|"
        r"auch eine externe Erweiterung verhindern|complemento de la comunidad también puede impedir"
    ),
    "z119": (
        r"Mobil/Tablet\*\*: \*\*Obsidian Sync Kurulumu\*\*|Mobile/Tablet\*\*: \*\*Setup Obsidian Sync\*\*|"
        r"Mobil/Tablet\*\*: \*\*Obsidian Sync einrichten\*\*|Móvil/Tableta\*\*: \*\*Configurar Obsidian Sync\*\*"
    ),
    "z120": r"\*\*Web sayfası ekle\*\*|\*\*Add web page\*\*|\*\*Webseite hinzufügen\*\*|\*\*Agregar página web\*\*",
}
