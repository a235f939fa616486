// `node esbuild.config.mjs production`: main.js for Obsidian; `test`: each test/*.test.ts bundled for node --test;
// no argument: main.js rebuilt on every change (development).
import { copyFileSync, readdirSync } from "node:fs";
import builtins from "builtin-modules";
import esbuild from "esbuild";

const mode = process.argv[2] ?? "watch";

if (mode === "test") {
  await esbuild.build({
    entryPoints: readdirSync("test").filter((f) => f.endsWith(".test.ts")).map((f) => `test/${f}`),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    outdir: "build/test",
    outExtension: { ".js": ".mjs" },
    external: ["obsidian", "onnxruntime-web"], // node loads it from node_modules, its .wasm beside it
    logLevel: "warning",
  });
} else {
  const context = await esbuild.context({
    entryPoints: ["src/main.ts"],
    bundle: true,
    external: ["obsidian", "electron", "@codemirror/*", "@lezer/*", ...builtins],
    format: "cjs",
    target: "es2020",
    logLevel: "info",
    sourcemap: mode === "production" ? false : "inline",
    treeShaking: true,
    outfile: "main.js",
    minify: mode === "production",
  });
  // onnxruntime-web's WebAssembly runtime, read by the plugin at run time (src/main.ts), shipped beside main.js.
  copyFileSync("node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.wasm", "ort-wasm-simd-threaded.wasm");
  if (mode === "production") {
    await context.rebuild();
    await context.dispose();
  } else {
    await context.watch();
  }
}
