// Obsidian's own API cannot run here: these stand in for it. A file and its CachedMetadata shaped as Obsidian's
// metadataCache gives them, for notes from the eval vault's slice (tests/surfaces/conftest.py).
import type { CachedMetadata } from "obsidian";
import { type NoteMeta, noteMeta } from "../src/notes";

function file(path: string) {
  return { path, basename: path.split("/").pop()!.replace(/\.md$/, "") };
}

const CACHE: Record<string, CachedMetadata | null> = {
  "en/Plugins/Command palette.md": { frontmatter: { permalink: "plugins/command-palette" } },
  "de/Erweiterungen/Befehlspalette.md": { frontmatter: { permalink: "plugins/command-palette" } },
  "es/Complementos/Paleta de comandos.md": {
    frontmatter: { permalink: "plugins/command-palette", aliases: ["Plugins/Paleta de comandos"] },
  },
  "tr/Eklentiler/Komut Paleti.md": { frontmatter: { permalink: "plugins/command-palette" } },
  "en/Plugins/Templates.md": {
    frontmatter: {
      aliases: null,
      description: "Templates is a core plugin that lets you insert pre-defined snippets of text into your active note.",
      permalink: "plugins/templates",
      mobile: true,
    },
  },
  "notes/Palette ideas.md": {
    frontmatter: { type: "idea", status: "Seedling", tags: ["colour", "theme"] },
    tags: [{ tag: "#draft", position: { start: { line: 6, col: 0, offset: 60 }, end: { line: 6, col: 6, offset: 66 } } }],
  },
  "en/User interface/Hotkeys.md": null, // not cached yet
};

export const NOTES: NoteMeta[] = Object.entries(CACHE).map(([path, cache]) => noteMeta(file(path), cache));
