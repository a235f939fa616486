"""The text that states each answer of vault-fresh17 (round twenty-one's blind set, STATES17) and vault-fresh18
(round twenty-two's, STATES18), one pattern per question, in any of its page's languages; continues
tests/support/vault_question_states_later.py (split only to keep each module short). Written with each set by reading
pages, never changed by a ranking."""

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

STATES18 = {
    "z121": r"\*\*Same folder as current file\*\*",
    "z122": r"view, edit, sort, and filter files",
    "z123": r"I%20lost%20my%202FA",
    "z124": r"adamgibbins",
    "z125": (
        r"If any \[\[Highlighter\|highlights\]\] are present, it uses the highlights|Wenn \[\[Marker\|"
        r"Hervorhebungen\]\] vorhanden sind, werden die Hervorhebungen verwendet"
    ),
    "z126": r"milliseconds or more than 30 seconds|Millisekunden oder mehr als 30 Sekunden",
    "z127": (
        r"refund past 7 days after purchase due to exceptional circumstances|"
        r"außergewöhnlicher Umstände eine Erstattung nach mehr als 7 Tagen"
    ),
    "z128": (
        r"future purchases will not be charged taxes|zukünftigen Käufen keine Steuern erhoben|"
        r"las compras futuras no incluirán impuestos"
    ),
    "z129": (
        r"before Obsidian itself asks|"
        r"Aktualisierung des Installationsprogramms erfordern, um auf neuere Funktionen|"
        r"puede requerir una actualización del instalador para acceder"
    ),
    "z130": r"view \*\*Storage usage\*\* in the Obsidian app|ver el \*\*Tamaño de la bóveda\*\* en la aplicación",
    "z131": r"publish\.css",
    "z132": r"\[insider-desktop-release\]",
    "z133": (
        r"Show the table of contents for the active note|Das Inhaltsverzeichnis der aktiven Notiz anzeigen|"
        r"Muestra la tabla de contenidos de la nota activa"
    ),
    "z134": r"Singapore|Singapur",
    "z135": r"Automate remote backups|Automatisierung von Remote-Backups|Automatizar copias de seguridad remotas",
    "z136": r"\*\*Refresh recovery codes\*\*|\*\*Wiederherstellungscodes aktualisieren\*\*",
    "z137": r"jstone",
    "z138": r"javalent (?:for the|für die) Admonition",
    "z139": r"`Opt\+Shift\+R`",
    "z140": r"entire page HTML as its context|das gesamte HTML der Seite als Kontext",
    "z141": (
        r"Wenn ich für einen Rabatt qualifiziert bin, aber in den letzten 7 Tagen|"
        r"If I qualify for a discount but have paid for my subscription in the past 7 days"
    ),
    "z142": (
        r"Tax Identification Number \(TIN\)|Steueridentifikationsnummer \(TIN\)|"
        r"Número de Identificación Fiscal \(NIF\)"
    ),
    "z143": r"\*\*Remove user\*\*|\*\*Nutzer entfernen\*\*",
    "z144": (
        r"eigenständiger Client, der unabhängig läuft|standalone client that runs independently|"
        r"cliente independiente que se ejecuta por sí solo"
    ),
    "z145": (
        r"unabhängige Sicherheitsprüfung|independent security audit on the plugin|"
        r"auditoría de seguridad independiente del complemento"
    ),
    "z146": r"group\.com\.apple\.notes",
    "z147": r"unbeschnittenen Bildern|uncropped images|imágenes sin recortar",
    "z148": (
        r"Webseiten-Karten können als Web-Viewer-Tabs|"
        r"web page cards embedded in \[\[canvas\]\] files can be opened|"
        r"tarjeta de página web incrustada en archivos de \[\[Canvas\]\] puede abrirse"
    ),
    "z149": r"Kreuz-Symbol neben dem Passwort|cross-icon next to the password|icono de cruz junto a la contraseña",
    "z150": r"\[TiddlyWiki\]",
    "z151": r"Windows, macOS, Linux, Android (?:e|and) iOS",
    "z152": r"se sincronizan tus notas de Obsidian, imágenes y tu|By default your Obsidian notes, images, and your",
    "z153": r"Waypoint",
    "z154": r"genera automáticamente una descripción|automatically generates a description",
    "z155": r"\[Ulysses\]",
    "z156": r"control de versiones más avanzado, como Git|more advanced version control system, such as Git",
    "z157": (
        r"necesitarás recrear tu bóveda en un servidor de Sync diferente|"
        r"recreate your vault on a different Sync server|Tresor auf einem anderen Sync-Server neu erstellen"
    ),
    "z158": r"verify-obsidian-sync-encryption",
    "z159": (
        r"commands inside the editor using the `/` key|Befehle im Editor mit der `/`-Taste|"
        r"comandos dentro del editor usando la tecla `/`"
    ),
    "z160": (
        r"installer version is the same as the app version|"
        r"Version des Installationsprogramms entspricht der App-Version|"
        r"versión del instalador es la misma que la versión de la aplicación"
    ),
    "z161": (
        r"cualquier nota que dejes de publicar se elimina|any notes you unpublish are removed|"
        r"deren Veröffentlichung du aufhebst, werden entfernt"
    ),
    "z162": r"Google Docs, Dropbox,? (?:e|and|und) iCloud",
    "z163": (
        r"can install additional programs|können zusätzliche Programme installieren|"
        r"pueden instalar programas adicionales"
    ),
    "z164": (
        r"team also maintains plugins available through the Community plugin store|"
        r"pflegt auch Erweiterungen, die über den Community-Erweiterungen-Store|"
        r"también mantiene complementos disponibles a través de la tienda"
    ),
    "z165": r"estudiante o miembro del cuerpo docente|student or faculty member",
    "z166": r"### `snake`",
    "z167": r"### `markdown`",
    "z168": r"### `unique`",
    "z169": r"### `if\(\)`",
    "z170": r"### `floor\(\)`",
    "z171": r"### `reduce\(\)`",
    "z172": r"### `filter\(\)`",
    "z173": (
        r"Varsayılan \x22İsme göre sırala \(A\x27dan Z\x27ye\)\x22|Default is \x22File name \(A to Z\)\x22|"
        r"Standard ist „Dateiname \(A - Z\)"
    ),
    "z174": (
        r"ignores matches in code blocks|"
        r"kod bloklarındaki ve Markdown olmayan içerikteki eşleşmeleri yoksaydığından|"
        r"Übereinstimmungen in Quelltext-Blöcken"
    ),
    "z175": r"\*\*(?:Renk ayarla|Set color|Farbe wählen|Definir color)\*\* !\[\[lucide-palette",
    "z176": (
        r"Standart gömme sözdizimini kullanarak bir nota tuval|"
        r"embed a canvas in a note using the standard embed syntax|Canvas mit der Standard-Einbettungssyntax|"
        r"incrustar un lienzo en una nota usando la sintaxis"
    ),
    "z177": (
        r"dosyayı silmek için \[\[Dosya Gezgini\]\]|use the \[\[File explorer\]\] to delete|\[\[Dateiex|"
        r"usar el \[\[Explorador de"
    ),
    "z178": r"\"msg\":\"Vault not found\.\"",
    "z179": (
        r"(?:veya emoji; bunların|or emoji, both of which|oder Emojis, die von einigen Android|"
        r"o emojis, que algunos dispositivos Android)"
    ),
    "z180": r"`Shift-(?:Tıklama|Click|Clic)`",
}
