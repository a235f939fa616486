// Semantic search on the device, for when the Sentinel API does not answer (a phone, a laptop away from home).
// The e5 int8 model runs in onnxruntime-web (WebAssembly: Obsidian's desktop and mobile app alike) on the query
// in e5's "query: " form, against the compact copy of the server's semantic summary leg that
// `sentinel export-vectors` writes into the vault's .sentinel/vectors/ (src/sentinel/search/export.py), ranked as
// the server ranks that leg (src/sentinel/search/vectors.py: nearest): every vector minus its language's centre,
// at unit length, against the query minus its nearest centre. Pure logic: node's test runner checks it.
import { Tokenizer } from "@huggingface/tokenizers";
import type * as Ort from "onnxruntime-web";

export const STORE_FORMAT = "sentinel-vectors/1";

export interface VectorStore {
  dims: number;
  count: number;
  queryPrefix: string;
  model: { name: string; file_hash: string };
  centres: Float32Array[];
  pages: [string, string][]; // [vault path, title] of each row
  vectors: Int8Array; // count * dims
  scales: Float32Array;
  centreOf: Int16Array;
}

/** The store from its two files; a store of another format or a truncated file is refused, saying which. */
export function readStore(manifestText: string, bin: ArrayBuffer): VectorStore {
  const m = JSON.parse(manifestText) as {
    format: string;
    dims: number;
    count: number;
    query_prefix: string;
    model: { name: string; file_hash: string };
    centres: number[][];
    pages: [string, string][];
  };
  if (m.format !== STORE_FORMAT) {
    throw new Error(`.sentinel/vectors is ${m.format}, not ${STORE_FORMAT}: run sentinel export-vectors again`);
  }
  const { dims, count } = m;
  const want = count * dims + count * 4 + count * 2;
  if (bin.byteLength !== want) {
    throw new Error(`.sentinel/vectors/vectors.bin has ${bin.byteLength} bytes, not ${want}: export it again`);
  }
  const view = new DataView(bin);
  const scales = new Float32Array(count);
  const centreOf = new Int16Array(count);
  for (let i = 0; i < count; i++) {
    scales[i] = view.getFloat32(count * dims + i * 4, true);
    centreOf[i] = view.getInt16(count * dims + count * 4 + i * 2, true);
  }
  return {
    dims,
    count,
    queryPrefix: m.query_prefix,
    model: m.model,
    centres: m.centres.map((c) => Float32Array.from(c)),
    pages: m.pages,
    vectors: new Int8Array(bin, 0, count * dims),
    scales,
    centreOf,
  };
}

function unit(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.max(Math.sqrt(norm), 1e-12);
  return v.map((x) => x / norm);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function centred(v: Float32Array, centre: Float32Array): Float32Array {
  return unit(v.map((x, i) => x - centre[i]));
}

/** The store's vectors centred once (as the server does per query), so each search is one pass of dot products. */
export class OnDeviceIndex {
  private readonly rows: Float32Array[];

  constructor(readonly store: VectorStore) {
    const { dims, vectors, scales, centreOf, centres } = store;
    this.rows = Array.from({ length: store.count }, (_, i) => {
      const row = new Float32Array(dims);
      for (let j = 0; j < dims; j++) row[j] = vectors[i * dims + j] * scales[i];
      return centred(row, centres[centreOf[i]]);
    });
  }

  /** The k pages nearest to a unit query vector, best first (only the order leaves: no score). */
  nearest(query: Float32Array, k: number): { path: string; title: string }[] {
    const { centres } = this.store;
    let best = 0;
    for (let c = 1; c < centres.length; c++) if (dot(query, centres[c]) > dot(query, centres[best])) best = c;
    const q = centred(query, centres[best]);
    const scored = this.rows.map((row, i) => [dot(row, q), i] as const);
    scored.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    return scored.slice(0, k).map(([, i]) => ({ path: this.store.pages[i][0], title: this.store.pages[i][1] }));
  }
}

export interface QueryEncoder {
  embed(query: string): Promise<Float32Array>;
}

/** e5 on the device: the tokenizer from tokenizer.json, the int8 ONNX model in onnxruntime-web, mean pooling. */
export async function e5Encoder(
  ort: typeof Ort,
  tokenizerJson: object,
  model: Uint8Array,
  queryPrefix = "query: ",
): Promise<QueryEncoder> {
  const tokenizer = new Tokenizer(tokenizerJson, {});
  const session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"] });
  return {
    async embed(query: string): Promise<Float32Array> {
      const ids = tokenizer.encode(`${queryPrefix}${query}`).ids.slice(0, 512);
      const n = ids.length;
      const feeds: Record<string, Ort.Tensor> = {
        input_ids: new ort.Tensor("int64", BigInt64Array.from(ids.map((id) => BigInt(id))), [1, n]),
        attention_mask: new ort.Tensor("int64", new BigInt64Array(n).fill(1n), [1, n]),
      };
      if (session.inputNames.includes("token_type_ids")) {
        feeds.token_type_ids = new ort.Tensor("int64", new BigInt64Array(n), [1, n]);
      }
      const out = await session.run(feeds);
      const hidden = out[session.outputNames[0]];
      const dims = hidden.dims[2];
      const data = hidden.data as Float32Array;
      const pooled = new Float32Array(dims);
      for (let t = 0; t < n; t++) for (let j = 0; j < dims; j++) pooled[j] += data[t * dims + j] / n;
      return unit(pooled);
    },
  };
}

/** What answers Semantic on the device: an encoder and an index, loaded once and kept. */
export interface OnDevice {
  search(query: string, k: number): Promise<{ path: string; title: string }[]>;
}

export function onDevice(encoder: QueryEncoder, index: OnDeviceIndex): OnDevice {
  return { search: async (query, k) => index.nearest(await encoder.embed(query), k) };
}
