// The API client against the real Sentinel API on loopback: tests/surfaces/test_plugin.py serves it over the
// eval slice and passes SENTINEL_TEST_API_URL and SENTINEL_TEST_READ_KEY; without them these tests are skipped,
// saying so (`npm test` in a copy of this folder runs the rest), and test_plugin.py checks none was skipped.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { ApiError, semantic, type Transport } from "../src/api";
import { answer } from "../src/search";
import { NOTES } from "./stand-in";

const url = process.env.SENTINEL_TEST_API_URL ?? "";
const key = process.env.SENTINEL_TEST_READ_KEY ?? "";
const settings = { url, key, timeoutMs: 60000 };

// node's fetch in the place of Obsidian's requestUrl: real HTTP, the same shape of answer.
const transport: Transport = async ({ url, method, headers, body }) => {
  const response = await fetch(url, { method, headers, body });
  return { status: response.status, json: await response.json().catch(() => null) };
};

async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

const withApi = {
  skip: url && key ? false : "no API given: tests/surfaces/test_plugin.py serves one and sets SENTINEL_TEST_API_URL",
};

test("semantic: the API's hits in rank order, passages with their heading, no score", withApi, async () => {
  const found = await semantic(transport, settings, "grabar audio en una nota");
  assert.ok(found.hits.some((h) => h.path === "es/Complementos/Grabadora de audio.md"));
  assert.ok(found.hits.every((h) => !("score" in h)));
  const body = await semantic(transport, settings, "run a command from the keyboard", "body");
  assert.equal(body.hits[0].rung, "body");
  assert.ok(body.hits[0].trail.length > 0);
  const more = await semantic(transport, settings, "run a command from the keyboard", "summary", 5);
  assert.equal(more.cursor, 5);
});

test("a wrong key, an empty query and a server that is gone each say what to do", withApi, async () => {
  await assert.rejects(semantic(transport, { ...settings, key: "snt_wrong" }, "audio"), (err: ApiError) => {
    assert.equal(err.kind, "refused");
    assert.match(err.message, /refused the key: put a read key/);
    return true;
  });
  await assert.rejects(semantic(transport, settings, "   "), (err: ApiError) => err.kind === "bad-query");
  const gone = await closedPort();
  await assert.rejects(semantic(transport, { ...settings, url: gone }, "audio"), (err: ApiError) => {
    assert.equal(err.kind, "unreachable");
    assert.match(err.message, new RegExp(`The Sentinel API at ${gone} does not answer .*Quick and Facet still work`));
    return true;
  });
});

test("with the API gone Semantic gives a notice and Quick still answers", withApi, async () => {
  const offline = { ...settings, url: await closedPort() };
  const semanticAnswer = await answer("?audio", NOTES, transport, offline);
  assert.equal(semanticAnswer.hits.length, 0);
  assert.match(semanticAnswer.notice, /does not answer/);
  const quickAnswer = await answer("palet", NOTES, transport, offline);
  assert.equal(quickAnswer.notice, "");
  assert.equal(quickAnswer.hits.length, 5);
  const online = await answer("?Audioaufnahmen in einer Notiz", NOTES, transport, settings);
  assert.ok(online.hits.some((h) => h.path === "de/Erweiterungen/Audio-Rekorder.md"));
});

async function serverOrder(mode: "quick" | "facet", query: string): Promise<string[]> {
  const paths: string[] = [];
  for (let cursor: number | null = 0; cursor !== null; ) {
    const response = await transport({
      url: `${url}/v1/search`,
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, mode, cursor }),
    });
    const page = response.json as { hits: { path: string }[]; next_cursor: number | null };
    paths.push(...page.hits.map((h) => h.path));
    cursor = page.next_cursor;
  }
  return paths;
}

test("Quick and Facet from the metadata cache order as the server's modes do", withApi, async () => {
  const known = new Set(NOTES.map((n) => n.path));
  for (const [mode, query] of [
    ["quick", "palet"],
    ["quick", "plugins/paleta"],
    ["facet", "permalink:plugins/command-palette"],
    ["facet", "status:seedling"],
  ] as const) {
    const server = (await serverOrder(mode, query)).filter((p) => known.has(p));
    const local = (await answer(query, NOTES, transport, settings)).hits.map((h) => h.path);
    assert.deepEqual(local, server, `${mode} ${query}`);
  }
});
