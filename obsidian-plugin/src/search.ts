// What the modal shows for what was typed: Quick and Facet from the metadata cache, Semantic from the API.
// Pure logic (no Obsidian import), so node's test runner checks it.
import { parseMode } from "./modes.js";
import { ApiError, type ApiSettings, semantic, type Transport } from "./api";
import { type Boundary, DEFAULT_BOUNDARY, facet, FacetError, type Hit, outside, quick } from "./local";
import type { NoteMeta } from "./notes";
import type { OnDevice } from "./ondevice";

export interface Answer {
  mode: "quick" | "facet" | "semantic";
  hits: Hit[];
  notice: string; // a problem the person must see ("" when none)
  notes: string[]; // what the server says about the answer (e.g. wording only)
  answeredBy: "api" | "device" | "cache"; // Semantic: the API, or the on-device model; Quick/Facet: the cache
}

export const ON_DEVICE_HITS = 10;

export async function answer(
  typed: string,
  notes: NoteMeta[],
  transport: Transport,
  settings: ApiSettings,
  rung: "summary" | "body" = "summary",
  boundary: Boundary = DEFAULT_BOUNDARY,
  device?: () => Promise<OnDevice | null>,
): Promise<Answer> {
  const { mode, query } = parseMode(typed);
  const local = { notice: "", notes: [] as string[], answeredBy: "cache" as const };
  if (!query) return { mode, hits: [], ...local };
  if (mode === "quick") return { mode, hits: quick(notes, query, 50, boundary), ...local };
  if (mode === "facet") {
    try {
      return { mode, hits: facet(notes, query, 50, boundary), ...local };
    } catch (err) {
      if (err instanceof FacetError) return { mode, hits: [], ...local, notice: err.message };
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
    return { mode, hits, notice: "", notes: found.notes, answeredBy: "api" };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.kind !== "unreachable" || !device) return { mode, hits: [], notice: err.message, notes: [], answeredBy: "api" };
    return onThisDevice(query, notes, boundary, device, err.message);
  }
}

/** Semantic answered by the on-device model, saying so (and why the API did not). */
async function onThisDevice(
  query: string,
  notes: NoteMeta[],
  boundary: Boundary,
  device: () => Promise<OnDevice | null>,
  why: string,
): Promise<Answer> {
  const mode = "semantic";
  let found: OnDevice | null;
  try {
    found = await device();
  } catch (err) {
    const problem = err instanceof Error ? err.message : String(err);
    return { mode, hits: [], notice: `${why} The on-device search could not start: ${problem}`, notes: [], answeredBy: "device" };
  }
  if (!found) {
    const how = "run `sentinel export-vectors --with-model` where the server runs, and let the vault sync";
    return { mode, hits: [], notice: `${why} No on-device copy of the vectors in .sentinel/vectors: ${how}.`, notes: [], answeredBy: "device" };
  }
  const meta = new Map(notes.map((n) => [n.path, n]));
  const ranked = await found.search(query, ON_DEVICE_HITS * 3);
  const kept = ranked.filter((h) => !meta.has(h.path) || !outside(meta.get(h.path)!, [], boundary));
  const hits = kept.slice(0, ON_DEVICE_HITS).map((h) => ({ ...h, text: "", heading: "", trail: "", labels: [] }));
  const said = "answered on this device (the Sentinel API does not answer): meaning only, by page summary";
  return { mode, hits, notice: "", notes: [said], answeredBy: "device" };
}

/** The link text that opens a hit's note at its heading (workspace.openLinkText takes it). */
export function linkText(hit: Hit): string {
  return hit.heading ? `${hit.path}#${hit.heading}` : hit.path;
}
