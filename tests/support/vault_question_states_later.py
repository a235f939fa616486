"""The text that states each answer of vault-fresh15 (round nineteen's blind set, STATES15) and of vault-fresh16 (round
twenty's, STATES16), one pattern per question, in any of its page's languages; continues
tests/support/vault_question_states_late.py (split only to keep each module short). Written with each set by reading
pages, never changed by a ranking."""

from __future__ import annotations

STATES15 = {
    "y001": r"or to leave nothing behind|oder dass nichts zurückbleibt|o para no dejar nada en su lugar",
    "y002": (
        r"updates all links to reference the merged note|"
        r"aktualisiert alle Links, sodass sie auf die zusammengeführte Notiz|"
        r"actualiza todos los enlaces para que hagan referencia a la nota fusionada"
    ),
    "y003": (
        r"number of sites that you can have at the same time is determined|"
        r"Anzahl der Websites, die gleichzeitig betrieben werden können|"
        r"número de sitios que puedes tener al mismo tiempo"
    ),
    "y004": (
        r"drag Obsidian to the Applications folder|Ziehe im geöffneten Fenster Obsidian in den Ordner|"
        r"arrastra Obsidian a la carpeta Aplicaciones"
    ),
    "y005": r"becomes \*\*Edit bookmark\*\*|zu \*\*Lesezeichen bearbeiten\*\*|se convierte en \*\*Editar marcador\*\*",
    "y006": r"Obsidian copies the file to the default attachment location",
    "y007": r"documentation, or digital\sgarden",
    "y008": r"Help us translate Obsidian into your language",
    "y009": r"Check for duplicates first|Prüfe zuerst auf Duplikate|Verifica que no existan duplicados primero",
    "y010": (
        r"Type \*\*Show debug info\*\*|Gib \*\*Debug-Informationen anzeigen\*\* ein|"
        r"Escribe \*\*Mostrar Información de Depuración\*\*"
    ),
    "y011": (
        r"Catalyst license is a one-time purchase|Catalyst-Lizenz ist ein einmaliger Kauf|"
        r"licencia Catalyst es una compra única"
    ),
    "y012": r"use Git to do versioning|usar Git para control de versiones",
    "y013": (
        r"\*\*All properties\*\* shows a list|\*\*Alle Eigenschaften\*\* zeigt eine Liste|"
        r"\*\*Todas las propiedades\*\* muestra una lista"
    ),
    "y014": (
        r"toggle \*\*Notify if startup takes longer than expected\*\*|"
        r"kannst du \*\*Benachrichtigen, wenn der Startvorgang ungewöhnlich lange dauert\*\* aktivieren|"
        r"puedes activar \*\*Notificar si la apertura tarda"
    ),
    "y015": (
        r"The first time you open Obsidian, you'll be asked to add a new vault|"
        r"zum ersten Mal öffnest, wirst du aufgefordert, einen neuen Vault hinzuzufügen"
    ),
    "y016": (
        r"Erstellt eine neue Notiz mit dem Inhalt der Quellnotiz|"
        r"Creates a new note with the content of the source note|"
        r"Crea una nueva nota con el contenido de la nota de origen"
    ),
    "y017": r"`\{\{content\}\}`",
    "y018": r"optionalen Titel festlegen|set an optional title|establecer un título opcional",
    "y019": (
        r"Markdown-Datei, die als Startseite dienen soll|markdown file you want to act as your landing page|"
        r"archivo Markdown que deseas que actúe como tu página de inicio"
    ),
    "y020": r"\*\*Get Discord badge\*\*",
    "y021": (
        r"Ziehe den Canvas mit der mittleren Maustaste|Drag the canvas using the middle mouse button|"
        r"botón central del ratón|Orta fare düğmesini kullanarak tuvali"
    ),
    "y022": (
        r"Obsidian durchsucht nur den Inhalt von Notizen|only searches the contents of notes and canvases|"
        r"Obsidian yalnızca notların ve tuvallerin içeriğini arar"
    ),
    "y023": r"AppImage --no-sandbox",
    "y024": (
        r"\*\*Tastenkürzel\*\*, anpassbar|\*\*Keyboard shortcut\*\* customizable|"
        r"\*\*Atajo de teclado\*\* personalizable|özelleştirilebilir \*\*klavye kısayolu\*\*"
    ),
    "y025": r"show-plugin\?id=obsidian-importer",
    "y026": r"`~~Text~~`",
    "y027": r"`==Text==`",
    "y028": r"forum\.obsidian\.md/c/feature-requests",
    "y029": (
        r"Das Bild, das als Banner der Website dienen soll|image you want to act as your site banner|"
        r"imagen que deseas que actúe como banner de tu sitio"
    ),
    "y030": (
        r"aller Eigenschaften in deinem Vault und deren Typ|all the properties in your vault and their type|"
        r"todas las propiedades en tu bóveda y su tipo"
    ),
    "y031": r"\*\*Ubicación de la plantilla\*\*|\*\*Template file location\*\*|\*\*Speicherort der Vorlagendatei\*\*",
    "y032": (
        r"\*\*Marcar este encabezado\*\*|\*\*Bookmark this heading\*\*|"
        r"\*\*Diese Überschrift als Lesezeichen setzen\*\*"
    ),
    "y033": r"flatpak run md\.obsidian\.Obsidian",
    "y034": r"## Cambiar entre sitios|## Switch between sites|## Zwischen Websites wechseln",
    "y035": r"discord\.gg/obsidianmd",
    "y036": r"canal exclusivo lounge|exclusive lounge channel|exklusiven Lounge-Kanal",
    "y037": (
        r"Para conectar dos tarjetas con una línea dirigida|To connect two cards with a directed line|"
        r"Um zwei Karten mit einer gerichteten Linie zu verbinden|İki kartı yönlü bir çizgiyle bağlamak için"
    ),
    "y038": r"\*\*Evernote \(\.enex\)\*\*",
    "y039": r"\*\*Icono de libro\*\*|\*\*Book icon\*\*|\*\*Buchsymbol\*\*|\*\*Kitap simgesi\*\*",
    "y040": (
        r"En \*\*Windows\*\*, haz clic en \*\*Universal\*\*|Under \*\*Windows\*\*, click \*\*Universal\*\*|"
        r"Klicke unter \*\*Windows\*\* auf \*\*Universal\*\*"
    ),
    "y041": (
        r"Obsidian no cifra tu bóveda local|Obsidian doesn't encrypt your local vault|"
        r"Obsidian verschlüsselt deinen lokalen Vault nicht"
    ),
    "y042": (
        r"versiones actuales de la aplicación y del instalador|current versions of the app and installer|"
        r"aktuellen Versionen der App und des Installationsprogramms"
    ),
    "y043": (
        r"selecciona \*\*Buscar actualizaciones\*\*|select \*\*Check for updates\*\*|"
        r"wähle \*\*Nach Aktualisierungen suchen\*\*"
    ),
    "y044": r"\*\*Recargar fragmentos de CSS\*\*|\*\*Reload snippets\*\*|\*\*CSS-Bausteine neu laden\*\*",
    "y045": (
        r"permanecerán cifrados e inutilizables|remains encrypted and unusable forever|"
        r"verschlüsselt und unbrauchbar bleiben"
    ),
    "y046": r"Özel bir uzak kasa yoktur|There is no dedicated remote vault|Es gibt keinen dedizierten Remote-Tresor",
    "y047": (
        r"\*\*Google Analytics takip kodu\*\* alanına|In \*\*Google Analytics tracking code\*\*|"
        r"unter \*\*Google Analytics Tracking-Code\*\*"
    ),
    "y048": r"\| `cover` ",
    "y049": (
        r"\*\*Publish\*\*'i etkinleştirin|Enable \*\*Publish\*\*|Aktiviere \*\*Publish\*\*|"
        r"Habilita \*\*Publish\*\*"
    ),
    "y050": (
        r"Okuyucu'dan çıkmanıza ve orijinal sayfayı geri yüklemenize|exit Reader and restore the original page|"
        r"salir del Lector y restaurar la página original|"
        r"den Leser zu beenden und die Originalseite wiederherzustellen"
    ),
    "y051": (
        r"Komut satırı arayüzünü kullanarak|using the command line interface|"
        r"mithilfe der Befehlszeilenschnittstelle|usando la interfaz de línea de comandos"
    ),
    "y052": (
        r"Bir kartı seçmek onu öne taşır|Selecting a card moves it to the front|"
        r"Seleccionar una tarjeta la mueve al frente|Das Auswählen einer Karte bringt sie in den Vordergrund"
    ),
    "y053": (
        r"\*\*Yeniden adlandır\*\*'a tıklayın|and then click \*\*Rename\*\*|"
        r"und klicke dann auf \*\*Umbenennen\*\*|luego haz clic en \*\*Editar nombre del archivo\*\*"
    ),
    "y054": (
        r"Klasöre sağ tıklayın ve ardından \*\*Yeni not\*\*|"
        r"Right-click the folder and then click \*\*New note\*\*|"
        r"rechten Maustaste auf den Ordner und dann auf \*\*Neue Notiz\*\*|"
        r"clic derecho en la carpeta y luego haz clic en \*\*Nueva nota\*\*"
    ),
    "y055": r"\*\*Seçili metni ara\*\*|\*\*Search selected text\*\*|\*\*Ausgewählten Text suchen\*\*",
    "y056": (
        r"kendiniz bir lisans satın alabilirsiniz|You can buy a license for yourself|"
        r"Du kannst eine Lizenz für dich selbst|Puedes comprar una licencia para ti mismo"
    ),
    "y057": r"kalıplarınızla eşleşen dosyalar Arama sonuçlarında görünmez|patterns will not appear in Search results",
    "y058": (
        r"Bu işlem için bir faturaya ihtiyacınız varsa|If you need an invoice for this transaction|"
        r"Wenn du eine Rechnung für diese Transaktion benötigst|Si necesitas una factura para esta transacción"
    ),
    "y059": r"`-line` kullanmak aramayı olumsuzlar|Using\s`-line`\snegates the search|Verwendung von `-line` negiert",
    "y060": (
        r"Düzenlemek için grubun adına çift tıklayın|Double-click the name of the group to edit it|"
        r"Haz doble clic en el nombre del grupo|Doppelklicke auf den Namen der Gruppe"
    ),
}

STATES16 = {
    "z001": r"Obsidian ignores any symlink to a parent folder of the vault",
    "z002": r"you could \(potentially\) end up with sync conflicts or data loss",
    "z003": r"Some sync tools, such as Git, don't follow symlinks",
    "z004": (
        r"Remote data will be removed from Obsidian servers|Remote-Daten werden von den Obsidian-Servern entfernt|"
        r"Los datos remotos serán eliminados de los servidores de Obsidian"
    ),
    "z005": (
        r"change regions by using the \[\[Upgrade Sync encryption\]\] migration assistant|"
        r"die Region auch über den Migrationsassistenten|cambiar de región utilizando el asistente de migración"
    ),
    "z006": r"Are you seeing untranslated snippets of text",
    "z007": (
        r"move your files directly into the Obsidian vault folder|"
        r"verschiebe deine Dateien direkt in den Obsidian-Vault-Ordner|"
        r"mueve tus archivos directamente a la carpeta de la bóveda"
    ),
    "z008": (
        r"The more nodes that reference a given node, the bigger it gets|"
        r"Je mehr Knoten auf einen bestimmten Knoten verweisen, desto größer|"
        r"Cuantos más nodos hagan referencia a un nodo determinado, más grande"
    ),
    "z009": (
        r"\*\*Existing files only\*\* toggles|\*\*Nur existierende Dateien zeigen\*\* schaltet|"
        r"\*\*Solo archivos existentes\*\* alterna"
    ),
    "z010": (
        r"Create groups of notes to distinguish them from each other using color|"
        r"Erstelle Gruppen von Notizen, um sie mithilfe von Farben|"
        r"Crea grupos de notas para distinguirlas entre sí usando colores"
    ),
    "z011": (
        r"An \[\[Internal links\|internal link\]\] points to a file located in the current vault|"
        r"Ein \[\[Interne Links\|interner Link\]\]|Un \[\[Enlaces internos\|"
        r"enlace interno\]\] apunta a un archivo ubicado en la bóveda actual"
    ),
    "z012": r"make sure it does not hide the ribbon through custom style rules",
    "z013": (
        r"We don't yet have a way to provision an SSL certificate|"
        r"keine Möglichkeit, ein SSL-Zertifikat in deinem Namen|"
        r"Aún no disponemos de una forma de aprovisionar un certificado SSL"
    ),
    "z014": (
        r"CloudFlare is the \*\*only officially supported provider\*\*|"
        r"CloudFlare ist der \*\*einzige offiziell unterstützte Anbieter\*\*|"
        r"CloudFlare es el \*\*único proveedor oficialmente soportado\*\*"
    ),
    "z015": (
        r'set the SSL/TLS encryption mode to "Full"|SSL/TLS-Verschlüsselungsmodus auf „Full"|'
        r'modo de cifrado SSL/TLS en "Full"'
    ),
    "z016": (
        r"Standardmäßig wird beim Hover über einen Link eine Vorschau|By default, hovering over a link will preview"
    ),
    "z017": (
        r"Klicke in der Werkzeugleiste auf \*\*Neue eindeutige Notiz erstellen\*\*|"
        r"In the ribbon, click \*\*Create new unique note\*\*"
    ),
    "z018": r"Eingeklappte Abschnitte zeigen einen Pfeil an|Folded sections show an arrow regardless",
    "z019": r"\*\*Überschriften einklappen\*\*, je nach Bedarf|\*\*Fold heading\*\*, depending on your needs",
    "z020": r"\*\*Taio\*\*",
    "z021": r"verschiedene Profile im selben Vault testen|test different profiles in the same vault",
    "z022": r"beginnend mit einem Punkt|starting with a period",
    "z023": r"innerhalb von 7 Tagen nach dem Kauf eine vollständige Erstattung|full refunds within 7 days of purchase",
    "z024": (
        r"Leider bieten wir in solchen Fällen keine Erstattung an|Unfortunately, we do not offer refunds in such cases"
    ),
    "z025": r"\*\*Abrechnung → Rechnungen und Erstattungen\*\*|\*\*Billing → Invoices and refunds\*\*",
    "z026": (
        r"auch bei einer erneuten Anmeldung nicht wiederhergestellt|cannot be retrieved even if you subscribe again"
    ),
    "z027": (
        r"Von hier aus kannst du den Anweisungen unter \[\[Markdown\]\] folgen|"
        r"From here you can follow the \[\[Import Markdown files\]\] instructions|"
        r"puedes seguir las instrucciones de \[\[Importar archivos Markdown\]\]"
    ),
    "z028": (
        r"mit der Schreibweise angezeigt, mit der sie zuerst erstellt wurden|"
        r"display with the casing they are first created with"
    ),
    "z029": r"sowohl `#a` als auch `#a/b`|match both `#a` and `#a/b`",
    "z030": r"drücke `Esc` oder die `Leertaste`|press `Esc` or the `Space` key|presiona `Esc` o la tecla `Espacio`",
    "z031": r"YYYY/MMMM/YYYY-MMM-DD",
    "z032": r"nombre de la fecha de hoy en formato YYYY-MM-DD|named after today's date in the YYYY-MM-DD format",
    "z033": r"para el comando \*\*Abrir la nota de hoy\*\*|for the \*\*Open today's daily note\*\* command",
    "z034": r"guía de estilo para traducciones|translations style guide",
    "z035": (
        r"Un \*\*grupo de pestañas\*\* es una colección|A \*\*tab group\*\* is a collection|"
        r"Eine \*\*Tab-Gruppe\*\* ist eine Sammlung"
    ),
    "z036": r"Un \*\*adjunto\*\* es un|An \*\*attachment\*\* is an|Ein \*\*Anhang\*\* ist ein",
    "z037": r"\*\*Flechas\*\* alterna|\*\*Arrows\*\* toggles|\*\*Pfeile\*\* schaltet",
    "z038": r"\*\*Borrar disposición\*\*|\*\*Delete layout\*\*|\*\*Layout löschen\*\*",
    "z039": (
        r"Los resaltados se guardan para que puedas verlos cuando vuelvas|"
        r"Highlights are saved so you can see them when you return|"
        r"Hervorhebungen werden gespeichert, sodass du sie beim erneuten Besuch"
    ),
    "z040": (
        r"El resaltador puede usarse en páginas web en vivo o en el|Highlighter can be used on live web pages|"
        r"Der Marker kann auf Live-Webseiten oder im"
    ),
    "z041": r"En \*\*Carpeta de salida\*\*|Under \*\*Output folder\*\*|unter \*\*Ausgabeordner\*\*",
    "z042": (
        r"convertidor específico que preserve mejor|specific converter that will better preserve|"
        r"spezifischen Konverter gibt, der die zu migrierenden Daten besser"
    ),
    "z043": r"Esta función solo está disponible en escritorio|This feature is only available on Desktop",
    "z044": r"selecciona\s\*\*Más opciones\*\*|select\s\*\*More options\*\*",
    "z045": (
        r"dependiendo de tu tarea, por ejemplo, llevar un diario, leer o escribir|"
        r"depending on your task, for example journaling, reading, or writing|je nach Aufgabe zu verwalten"
    ),
    "z046": (
        r"Dosyayı kaynak cihazında yeniden adlandırın|Rename the file on its source device|"
        r"Benenne die Datei auf dem Quellgerät um|Renombra el archivo en su dispositivo de origen"
    ),
    "z047": (
        r"Windows ayrılmış cihaz adları|Windows reserved device names|Von Windows reservierte Gerätenamen|"
        r"Nombres de dispositivos reservados de Windows"
    ),
    "z048": (
        r"Kasanız limitten küçük görünse bile|Even if your vault seems smaller than the limit|"
        r"Auch wenn dein Vault kleiner als das Limit erscheint|Incluso si tu bóveda parece más pequeña que el límite"
    ),
    "z049": (
        r"Sync penceresindeki arama kutusunu|search box in the Sync window|Suchfeld im Sync-Fenster|"
        r"cuadro de búsqueda en la ventana de Sync"
    ),
    "z050": (
        r"Sync günlüklerinizi okumayı kolaylaştırmak|add one to make reading your Sync logs|"
        r"para facilitar la lectura de los registros de Sync|um das Lesen deiner Sync-Logs zu erleichtern"
    ),
    "z051": (
        r"\*\*Hesap → Hesabınız\*\* altında \*\*Giriş yap\*\*|"
        r"Under \*\*Account → Your Account\*\*, select \*\*Log in\*\*|"
        r"\*\*Konto → Dein Nutzerkonto\*\* die Option \*\*Anmelden\*\*|"
        r"En \*\*Cuenta → Su cuenta\*\*, seleccione \*\*Iniciar sesión\*\*"
    ),
    "z052": (
        r"onay işaretli yeşil bir daire|green circle with a check|grüner Kreis mit einem Häkchen|"
        r"círculo verde con una marca de verificación"
    ),
    "z053": (
        r"Senkronizasyon hizmeti yedekleme değildir|A syncing service is not a backup|"
        r"Ein Synchronisierungsdienst ist kein Backup|Un servicio de sincronización no es un respaldo"
    ),
    "z054": (
        r"Herhangi bir geçerli Markdown dosyasını sunum olarak|You can use any valid Markdown file as a presentation|"
        r"Puedes usar cualquier archivo Markdown válido como presentación"
    ),
    "z055": (
        r"bir Obsidian notunda ses kaydedip kaydetmenizi sağlayan|lets you record and save audio in an Obsidian note|"
        r"te permite grabar y guardar audio en una nota de Obsidian|"
        r"mit der du Audio aufnehmen und in einer Obsidian-Notiz speichern"
    ),
    "z056": (
        r"henüz boyut limitine ulaşmadığınız|du das Größenlimit noch nicht erreicht hast|you haven.t hit the size limit"
    ),
    "z057": (
        r"Sync eklentisi dosyaları senkronize etmeyi durduracak|the Sync plugin will cease syncing files|"
        r"stellt die Sync-Erweiterung die Synchronisierung von Dateien ein"
    ),
    "z058": (
        r"dosyalarınızın sürüm geçmişi sıfırlanacaktır|version history for your files will be reset|"
        r"Versionsverlauf deiner Dateien wird zurückgesetzt"
    ),
    "z059": r"Google veya Android Fotoğraflar|Google or Android Photos|Google oder Android Photos",
    "z060": (
        r"Çakışmalar çevrimdışı çalışırken daha sık|Conflicts happen more often when you work offline|"
        r"Konflikte treten häufiger auf, wenn du offline arbeitest"
    ),
}
