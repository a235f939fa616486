// The Semantic mode's client: POST /v1/search on the Sentinel API (the same search the tools use), with a read
// key. Every way it can fail ends in an ApiError whose message says what to do.

export interface Provenance {
  sources: string[];
  quotes: { sentence: string; source: string; heading: string; state: string }[];
  trace: string;
}

export interface ApiHit {
  path: string;
  title: string;
  rung: string;
  text: string;
  heading: string;
  trail: string;
  labels: string[];
  name: string;
  provenance?: Provenance;
}

export interface ApiAnswer {
  query: string;
  rung: "summary" | "body";
  hits: ApiHit[];
  notes: string[];
  cursor: number;
  next_cursor: number | null;
  vault: string;
}

/** One HTTP exchange. Obsidian's requestUrl in the plugin (no CORS there), node's fetch in the tests. */
export type Transport = (request: {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}) => Promise<{ status: number; json: unknown }>;

export type ApiErrorKind = "unreachable" | "refused" | "bad-query" | "server";

export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiSettings {
  url: string; // e.g. http://127.0.0.1:8000
  key: string; // a read key; "" when the API runs local-only
  timeoutMs: number;
}

function detail(json: unknown): string {
  const d = (json as { detail?: unknown } | null)?.detail;
  return typeof d === "string" ? d : JSON.stringify(d ?? json);
}

async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The API's answer to a Semantic query, or an ApiError. */
export async function semantic(
  transport: Transport,
  settings: ApiSettings,
  query: string,
  rung: "summary" | "body" = "summary",
  cursor = 0,
): Promise<ApiAnswer> {
  const base = settings.url.replace(/\/+$/, "");
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (settings.key) headers.Authorization = `Bearer ${settings.key}`;
  let response: { status: number; json: unknown };
  try {
    const body = JSON.stringify({ query, mode: "semantic", rung, cursor });
    response = await within(transport({ url: `${base}/v1/search`, method: "POST", headers, body }), settings.timeoutMs);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ApiError(
      "unreachable",
      `The Sentinel API at ${base} does not answer (${why}): is the server running, and is the URL in ` +
        "Settings → Sentinel Search right? Quick and Facet still work without it.",
    );
  }
  if (response.status === 401) {
    throw new ApiError(
      "refused",
      `The Sentinel API at ${base} refused the key: put a read key (sentinel keys create --scope read) in ` +
        "Settings → Sentinel Search.",
    );
  }
  if (response.status === 400 || response.status === 422) throw new ApiError("bad-query", detail(response.json));
  if (response.status === 403) throw new ApiError("refused", detail(response.json));
  if (response.status !== 200) {
    throw new ApiError("server", `The Sentinel API answered ${response.status}: ${detail(response.json)}`);
  }
  return response.json as ApiAnswer;
}
