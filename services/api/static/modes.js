// The search box's syntax, shared by the search page (served as-is) and the Obsidian plugin (bundled by esbuild).
// This file is the home; obsidian-plugin/src/modes.js is a byte-for-byte copy so the plugin builds from its own
// folder (`make plugin` refreshes it; tests/surfaces/test_plugin.py fails when the two differ).
// "?words" is Semantic, any key:value token makes it Facet, anything else is Quick (names and aliases).
// The facet syntax is the listing's (src/sentinel/index/facets.py): key:value, key:"two words", tag:x, role:note.

/** A key:value token; the key as Python's \w[\w-]* reads it. */
export const FACET_TOKEN = /([\p{L}\p{N}_][\p{L}\p{N}_-]*):("[^"]*"|\S+)/gu;

/**
 * @typedef {"quick" | "facet" | "semantic"} Mode
 * @typedef {{ mode: Mode, query: string }} Parsed
 * @typedef {{ fields: [string, string][], tags: string[], roles: string[], words: string[] }} Facets
 */

/**
 * The mode and the text to search for of what was typed.
 * @param {string} typed
 * @returns {Parsed}
 */
export function parseMode(typed) {
  const text = typed.trim().split(/\s+/).join(" ");
  if (text.startsWith("?")) return { mode: "semantic", query: text.slice(1).trim() };
  if (new RegExp(FACET_TOKEN.source, "u").test(text)) return { mode: "facet", query: text };
  return { mode: "quick", query: text };
}

/**
 * The facets of a facet query, case-folded as the index compares them; the words that are not facets kept.
 * @param {string} text
 * @returns {Facets}
 */
export function parseFacets(text) {
  /** @type {Facets} */
  const facets = { fields: [], tags: [], roles: [], words: [] };
  const rest = text.replace(new RegExp(FACET_TOKEN.source, "gu"), (_, key, value) => {
    const k = key.toLowerCase();
    const v = value.replace(/^"|"$/g, "").toLowerCase();
    if (k === "tag") facets.tags.push(v.replace(/^#/, ""));
    else if (k === "role") facets.roles.push(v);
    else facets.fields.push([k, v]);
    return " ";
  });
  facets.words = rest.split(/\s+/).filter(Boolean);
  return facets;
}
