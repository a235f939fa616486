// Quick and Facet answered from the metadata cache, the way the server answers them
// (src/sentinel/search/modes.py): Quick matches file names and aliases (an exact name first, then names that
// start with the words, then the rest; among equals the shortest path); Facet keeps the notes whose
// properties match every key:value (case-insensitive, a list matching when any item does), sorted by path.
import { parseFacets } from "./modes.js";
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

/**
 * The scope boundary, as the server keeps it (src/sentinel/search/scope.py): notes of a kept-out scope (their
 * `scope` property, or a folder given that scope) stay out of Quick and Facet unless the query asks with
 * `scope:<name>`. A retrieval boundary, not a privacy boundary: the notes are in the vault as ever.
 */
export interface Boundary {
  keptOutScopes: string[];
  scopeFolders: Record<string, string>; // folder -> scope
}

export const DEFAULT_BOUNDARY: Boundary = { keptOutScopes: ["personal"], scopeFolders: {} };

function scopesOf(note: NoteMeta, boundary: Boundary): string[] {
  const own = Object.entries(note.frontmatter).filter(([name]) => fold(name) === "scope").map(([, v]) => v);
  const values = own.flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v) => v !== null && v !== undefined);
  const byFolder = Object.entries(boundary.scopeFolders)
    .filter(([folder]) => note.path.startsWith(`${folder.replace(/^\/+|\/+$/g, "")}/`))
    .map(([, scope]) => scope);
  return [...values, ...byFolder].map((v) => fold(String(v).trim()));
}

export function outside(note: NoteMeta, asked: string[], boundary: Boundary): boolean {
  const keptOut = boundary.keptOutScopes.map(fold).filter((s) => !asked.includes(s));
  return scopesOf(note, boundary).some((s) => keptOut.includes(s));
}

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
export function quick(notes: NoteMeta[], query: string, limit = 50, boundary = DEFAULT_BOUNDARY): Hit[] {
  const wanted = key(query.split(/\s+/).join(" "));
  if (!wanted) return [];
  const kind = (name: string) => (name === wanted ? 0 : name.startsWith(wanted) ? 1 : name.includes(wanted) ? 2 : 3);
  const ranked: [number, NoteMeta][] = [];
  for (const note of notes) {
    if (outside(note, [], boundary)) continue;
    const best = Math.min(kind(key(note.basename)), ...note.aliases.map((a) => kind(key(a))));
    if (best < 3) ranked.push([best, note]);
  }
  ranked.sort(([ka, a], [kb, b]) => ka - kb || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return ranked.slice(0, limit).map(([k, note]) => hit(note, k === 0));
}

/** Notes matching every facet; words besides the facets must each be in the name or an alias. */
export function facet(notes: NoteMeta[], query: string, limit = 50, boundary = DEFAULT_BOUNDARY): Hit[] {
  const facets = parseFacets(query);
  if (facets.roles.length) {
    throw new FacetError("role: is the server's index (which folder a page is in): use ?role:… to ask the API");
  }
  const asked = facets.fields.filter(([k]) => k === "scope").map(([, v]) => v);
  const matches = (note: NoteMeta) =>
    !outside(note, asked, boundary) &&
    facets.fields.every(([k, v]) =>
      k === "scope"
        ? scopesOf(note, boundary).includes(v)
        : Object.entries(note.frontmatter).some(([name, value]) => fold(name) === k && is(value, v)),
    ) &&
    facets.tags.every((t) => note.tags.some((tag) => fold(tag) === t)) &&
    facets.words.every((w) => [note.basename, ...note.aliases].some((n) => fold(n).includes(fold(w))));
  return notes
    .filter(matches)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .slice(0, limit)
    .map((note) => hit(note));
}
