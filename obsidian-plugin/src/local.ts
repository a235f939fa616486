// Quick and Facet answered from the metadata cache, the way the server answers them
// (src/sentinel/search/modes.py): Quick matches file names and aliases (an exact name first, then names that
// start with the words, then the rest; among equals the shortest path); Facet keeps the notes whose
// properties match every key:value (case-insensitive, a list matching when any item does), sorted by path.
import { parseFacets } from "../../services/api/static/modes.js";
import type { NoteMeta } from "./notes";

export interface Hit {
  path: string;
  title: string;
  text: string; // the summary line (description/summary property locally), or the passage from the API
  heading: string; // where opening it lands ("" for the top of the note)
  trail: string;
  labels: string[];
}

export class FacetError extends Error {}

const fold = (s: string) => s.toLocaleLowerCase();

function key(text: string): string {
  return fold(text.trim().replace(/^\[\[/, "").replace(/\]\]$/, "").replace(/\.md$/i, "").replace(/^\/+/, ""));
}

function is(value: unknown, wanted: string): boolean {
  const values = Array.isArray(value) ? value : [value];
  return values.some((v) => v !== null && v !== undefined && fold(String(v).trim()) === wanted);
}

function labels(note: NoteMeta, exact: boolean): string[] {
  const fm = note.frontmatter;
  return [
    ...(exact ? ["exact"] : []),
    ...(is(fm.status, "seedling") ? ["seedling"] : []),
    ...(is(fm.confidence, "low") ? ["low-conf"] : []),
  ];
}

function hit(note: NoteMeta, exact = false): Hit {
  const line = note.frontmatter.description ?? note.frontmatter.summary;
  const text = typeof line === "string" ? line : "";
  return { path: note.path, title: note.basename, text, heading: "", trail: "", labels: labels(note, exact) };
}

/** Notes whose file name or an alias contains the query. */
export function quick(notes: NoteMeta[], query: string, limit = 50): Hit[] {
  const wanted = key(query.split(/\s+/).join(" "));
  if (!wanted) return [];
  const kind = (name: string) => (name === wanted ? 0 : name.startsWith(wanted) ? 1 : name.includes(wanted) ? 2 : 3);
  const ranked: [number, NoteMeta][] = [];
  for (const note of notes) {
    const best = Math.min(kind(key(note.basename)), ...note.aliases.map((a) => kind(key(a))));
    if (best < 3) ranked.push([best, note]);
  }
  ranked.sort(([ka, a], [kb, b]) => ka - kb || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return ranked.slice(0, limit).map(([k, note]) => hit(note, k === 0));
}

/** Notes matching every facet; words besides the facets must each be in the name or an alias. */
export function facet(notes: NoteMeta[], query: string, limit = 50): Hit[] {
  const facets = parseFacets(query);
  if (facets.roles.length) {
    throw new FacetError("role: is the server's index (which folder a page is in): use ?role:… to ask the API");
  }
  const matches = (note: NoteMeta) =>
    facets.fields.every(([k, v]) =>
      Object.entries(note.frontmatter).some(([name, value]) => fold(name) === k && is(value, v)),
    ) &&
    facets.tags.every((t) => note.tags.some((tag) => fold(tag) === t)) &&
    facets.words.every((w) => [note.basename, ...note.aliases].some((n) => fold(n).includes(fold(w))));
  return notes
    .filter(matches)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .slice(0, limit)
    .map((note) => hit(note));
}
