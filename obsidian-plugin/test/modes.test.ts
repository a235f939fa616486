import assert from "node:assert/strict";
import { test } from "node:test";
import { parseFacets, parseMode } from "../src/modes.js";

test("a ? prefix is Semantic, a key:value token Facet, anything else Quick", () => {
  assert.deepEqual(parseMode("  ?how do I  undo "), { mode: "semantic", query: "how do I undo" });
  assert.deepEqual(parseMode("type:concept status:seedling"), { mode: "facet", query: "type:concept status:seedling" });
  assert.deepEqual(parseMode("palette durum:taslak"), { mode: "facet", query: "palette durum:taslak" });
  assert.deepEqual(parseMode("Befehlspalette"), { mode: "quick", query: "Befehlspalette" });
  assert.deepEqual(parseMode("?"), { mode: "semantic", query: "" });
  assert.deepEqual(parseMode(""), { mode: "quick", query: "" });
});

test("facets fold case, keep quoted values whole, and keep the other words", () => {
  assert.deepEqual(parseFacets('Type:"Research Note" tag:#Theme role:wiki colour palette'), {
    fields: [["type", "research note"]],
    tags: ["theme"],
    roles: ["wiki"],
    words: ["colour", "palette"],
  });
});
