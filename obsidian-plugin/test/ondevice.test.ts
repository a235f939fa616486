// On-device Semantic against a vector store the real project wrote: tests/surfaces/test_plugin.py embeds the eval
// slice with the real e5 model, runs `sentinel export-vectors`, asks the server's semantic summary leg for the top
// 5 of 10 queries in four languages, and passes SENTINEL_TEST_VECTORS, SENTINEL_TEST_MODEL_DIR and
// SENTINEL_TEST_EXPECTED. Without them these tests are skipped, saying so.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { test } from "node:test";
import * as ort from "onnxruntime-web";
import { e5Encoder, OnDeviceIndex, onDevice, readStore } from "../src/ondevice";
import { answer } from "../src/search";
import { NOTES } from "./stand-in";

const vectors = process.env.SENTINEL_TEST_VECTORS ?? "";
const modelDir = process.env.SENTINEL_TEST_MODEL_DIR ?? "";
const expected = process.env.SENTINEL_TEST_EXPECTED ?? "";
const given = {
  skip: vectors && modelDir && expected ? false : "no exported store given: tests/surfaces/test_plugin.py makes one",
};

ort.env.wasm.numThreads = 1; // as in Obsidian's mobile app, which has no SharedArrayBuffer

async function load() {
  const started = performance.now();
  const bin = readFileSync(`${vectors}/vectors.bin`);
  const store = readStore(readFileSync(`${vectors}/manifest.json`, "utf8"), bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength));
  const tokenizer = JSON.parse(readFileSync(`${modelDir}/tokenizer.json`, "utf8"));
  const encoder = await e5Encoder(ort, tokenizer, readFileSync(`${modelDir}/model.onnx`), store.queryPrefix);
  return { device: onDevice(encoder, new OnDeviceIndex(store)), loadMs: performance.now() - started };
}

test("the same top 5 pages as the server's semantic summary leg, in the same order", given, async (t) => {
  const cases = JSON.parse(readFileSync(expected, "utf8")) as { query: string; top5: string[] }[];
  assert.ok(cases.length >= 10);
  const { device, loadMs } = await load();
  const firstStarted = performance.now();
  let firstMs = 0;
  const differ: string[] = [];
  for (const { query, top5 } of cases) {
    const got = (await device.search(query, 5)).map((h) => h.path);
    if (!firstMs) firstMs = performance.now() - firstStarted;
    if (JSON.stringify(got) !== JSON.stringify(top5)) differ.push(`${query}: device ${got.join(" | ")} server ${top5.join(" | ")}`);
  }
  t.diagnostic(`load ${loadMs.toFixed(0)} ms, first query ${firstMs.toFixed(0)} ms (node, onnxruntime-web wasm, 1 thread)`);
  assert.deepEqual(differ, []);
});

async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

test("Semantic falls back to the device when the API does not answer, and says which answered", given, async () => {
  const { device } = await load();
  const transport = async ({ url, method, headers, body }: { url: string; method: string; headers: Record<string, string>; body?: string }) => {
    const response = await fetch(url, { method, headers, body });
    return { status: response.status, json: await response.json().catch(() => null) };
  };
  const gone = { url: await closedPort(), key: "", timeoutMs: 5000 };
  const found = await answer("?grabar audio en una nota", NOTES, transport, gone, "summary", undefined, async () => device);
  assert.equal(found.answeredBy, "device");
  assert.match(found.notes[0], /answered on this device/);
  assert.ok(found.hits.some((h) => h.path === "es/Complementos/Grabadora de audio.md"), JSON.stringify(found.hits));
  const none = await answer("?grabar audio", NOTES, transport, gone, "summary", undefined, async () => null);
  assert.equal(none.answeredBy, "device");
  assert.match(none.notice, /sentinel export-vectors/);
});
