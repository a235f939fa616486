// What the modal shows for what was typed: Quick and Facet from the metadata cache, Semantic from the API.
// Pure logic (no Obsidian import), so node's test runner checks it.
import { parseMode } from "./modes.js";
import { ApiError, type ApiSettings, semantic, type Transport } from "./api";
import { type Boundary, DEFAULT_BOUNDARY, facet, FacetError, type Hit, quick } from "./local";
import type { NoteMeta } from "./notes";

export interface Answer {
  mode: "quick" | "facet" | "semantic";
  hits: Hit[];
  notice: string; // a problem the person must see ("" when none)
  notes: string[]; // what the server says about the answer (e.g. wording only)
}

export async function answer(
  typed: string,
  notes: NoteMeta[],
  transport: Transport,
  settings: ApiSettings,
  rung: "summary" | "body" = "summary",
  boundary: Boundary = DEFAULT_BOUNDARY,
): Promise<Answer> {
  const { mode, query } = parseMode(typed);
  if (!query) return { mode, hits: [], notice: "", notes: [] };
  if (mode === "quick") return { mode, hits: quick(notes, query, 50, boundary), notice: "", notes: [] };
  if (mode === "facet") {
    try {
      return { mode, hits: facet(notes, query, 50, boundary), notice: "", notes: [] };
    } catch (err) {
      if (err instanceof FacetError) return { mode, hits: [], notice: err.message, notes: [] };
      throw err;
    }
  }
  try {
    const found = await semantic(transport, settings, query, rung);
    const hits = found.hits.map((h) => ({
      path: h.path,
      title: h.title,
      text: h.provenance ? `${h.text} (from ${h.provenance.sources.join(", ")}; ${h.provenance.trace})` : h.text,
      heading: h.heading,
      trail: h.trail,
      labels: h.labels,
    }));
    return { mode, hits, notice: "", notes: found.notes };
  } catch (err) {
    if (err instanceof ApiError) return { mode, hits: [], notice: err.message, notes: [] };
    throw err;
  }
}

/** The link text that opens a hit's note at its heading (workspace.openLinkText takes it). */
export function linkText(hit: Hit): string {
  return hit.heading ? `${hit.path}#${hit.heading}` : hit.path;
}
