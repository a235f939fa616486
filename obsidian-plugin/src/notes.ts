// What the plugin knows of a note, read from Obsidian's metadata cache (no file is opened to search).
import type { CachedMetadata } from "obsidian";

export interface NoteMeta {
  path: string; // vault path, e.g. en/Plugins/Command palette.md
  basename: string; // file name without .md
  aliases: string[];
  frontmatter: Record<string, unknown>;
  tags: string[]; // without '#', as written
}

function strings(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value === "string") return value.split(/[,\s]+/).filter(Boolean);
  return [];
}

/** A note's searchable metadata from a file and its cache entry (null: not cached yet). */
export function noteMeta(file: { path: string; basename: string }, cache: CachedMetadata | null): NoteMeta {
  const frontmatter: Record<string, unknown> = { ...(cache?.frontmatter ?? {}) };
  const aliasValue = frontmatter.aliases ?? frontmatter.alias;
  const aliases = Array.isArray(aliasValue) ? strings(aliasValue) : typeof aliasValue === "string" ? [aliasValue] : [];
  const tags = [
    ...(cache?.tags ?? []).map((t) => t.tag),
    ...strings(frontmatter.tags),
    ...strings(frontmatter.tag),
  ].map((t) => t.replace(/^#/, ""));
  return { path: file.path, basename: file.basename, aliases, frontmatter, tags: [...new Set(tags)] };
}
