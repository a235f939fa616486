"""The text that states each answer of vault-fresh15 (round nineteen's blind set, STATES15), one pattern per question,
in any of its page's languages; continues tests/support/vault_question_states_late.py (split only to keep each module
short). Written with the set by reading pages, never changed by a ranking."""

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
