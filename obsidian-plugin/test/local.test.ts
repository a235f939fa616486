import assert from "node:assert/strict";
import { test } from "node:test";
import { FacetError, facet, quick } from "../src/local";
import { linkText } from "../src/search";
import { NOTES } from "./stand-in";

const paths = (hits: { path: string }[]) => hits.map((h) => h.path);

test("quick: exact name first, then names starting with the words, then the rest, shorter paths first", () => {
  assert.deepEqual(paths(quick(NOTES, "palet")), [
    "notes/Palette ideas.md",
    "es/Complementos/Paleta de comandos.md",
    "en/Plugins/Command palette.md", // as long as the next: then by path
    "tr/Eklentiler/Komut Paleti.md",
    "de/Erweiterungen/Befehlspalette.md",
  ]);
  const exact = quick(NOTES, "[[befehlspalette]]");
  assert.deepEqual(exact.map((h) => [h.path, h.labels]), [["de/Erweiterungen/Befehlspalette.md", ["exact"]]]);
  assert.deepEqual(paths(quick(NOTES, "plugins/paleta")), ["es/Complementos/Paleta de comandos.md"]); // an alias
  assert.deepEqual(quick(NOTES, "   "), []);
  assert.deepEqual(paths(quick(NOTES, "hotkeys")), ["en/User interface/Hotkeys.md"]); // no cache entry yet
});

test("facet: every key:value must match, case-insensitively, a list when any item does", () => {
  assert.deepEqual(paths(facet(NOTES, "permalink:plugins/command-palette")), [
    "de/Erweiterungen/Befehlspalette.md",
    "en/Plugins/Command palette.md",
    "es/Complementos/Paleta de comandos.md",
    "tr/Eklentiler/Komut Paleti.md",
  ]);
  const seedling = facet(NOTES, "Status:seedling tag:Theme");
  assert.deepEqual(seedling.map((h) => [h.path, h.labels]), [["notes/Palette ideas.md", ["seedling"]]]);
  assert.deepEqual(paths(facet(NOTES, "tag:draft")), ["notes/Palette ideas.md"]); // a tag in the text
  assert.deepEqual(paths(facet(NOTES, "permalink:plugins/command-palette komut")), ["tr/Eklentiler/Komut Paleti.md"]);
  assert.deepEqual(facet(NOTES, "status:seedling type:concept"), []);
  assert.equal(facet(NOTES, "permalink:plugins/templates")[0].text.startsWith("Templates is a core plugin"), true);
  assert.throws(() => facet(NOTES, "role:wiki"), FacetError);
});

test("opening a hit lands on its heading", () => {
  assert.equal(linkText({ path: "a/B.md", title: "B", text: "", heading: "Usage", trail: "", labels: [] }), "a/B.md#Usage");
  assert.equal(linkText({ path: "a/B.md", title: "B", text: "", heading: "", trail: "", labels: [] }), "a/B.md");
});

test("the scope boundary: personal notes only when the query asks, folders too; booleans as words", () => {
  const notes = [
    { path: "notes/Sync.md", basename: "Sync", aliases: [], frontmatter: { mobile: false }, tags: [] },
    { path: "notes/Sync diary.md", basename: "Sync diary", aliases: [], frontmatter: { scope: "Personal" }, tags: [] },
    { path: "Journal/Sync day.md", basename: "Sync day", aliases: [], frontmatter: {}, tags: [] },
    { path: "notes/Sync mix.md", basename: "Sync mix", aliases: [], frontmatter: { scope: ["work", "personal"] }, tags: [] },
  ];
  const boundary = { keptOutScopes: ["personal"], scopeFolders: { Journal: "personal" } };
  assert.deepEqual(paths(quick(notes, "sync", 50, boundary)), ["notes/Sync.md"]);
  assert.deepEqual(paths(facet(notes, "scope:personal", 50, boundary)), [
    "Journal/Sync day.md",
    "notes/Sync diary.md",
    "notes/Sync mix.md",
  ]);
  assert.deepEqual(paths(facet(notes, "mobile:false", 50, boundary)), ["notes/Sync.md"]);
  const open = { keptOutScopes: [], scopeFolders: {} };
  assert.equal(quick(notes, "sync", 50, open).length, 4);
});
