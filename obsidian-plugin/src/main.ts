// Sentinel Search for Obsidian: Quick and Facet from the metadata cache, Semantic through the Sentinel API.
import { type App, Plugin, PluginSettingTab, Setting, requestUrl } from "obsidian";
import type { ApiSettings, Transport } from "./api";
import { type Boundary, DEFAULT_BOUNDARY } from "./local";
import { SearchModal } from "./modal";
import { noteMeta } from "./notes";
import { e5Encoder, type OnDevice, OnDeviceIndex, onDevice, readStore } from "./ondevice";

// What `sentinel export-vectors --with-model` writes into the vault (src/sentinel/paths.py: vectors_export_dir).
const VECTORS = ".sentinel/vectors";
const WASM = "ort-wasm-simd-threaded.wasm"; // onnxruntime-web's runtime, shipped beside main.js

type Settings = ApiSettings & Boundary;
const DEFAULTS: Settings = { url: "http://127.0.0.1:8000", key: "", timeoutMs: 8000, ...DEFAULT_BOUNDARY };

// Obsidian's requestUrl: no CORS, works on mobile. A network failure throws; an HTTP error is a status.
const transport: Transport = async ({ url, method, headers, body }) => {
  const response = await requestUrl({ url, method, headers, body, throw: false });
  let json: unknown = null;
  try {
    json = response.json;
  } catch {
    json = { detail: response.text };
  }
  return { status: response.status, json };
};

export default class SentinelSearch extends Plugin {
  settings: Settings = { ...DEFAULTS };

  private device: Promise<OnDevice | null> | null = null;

  /** The on-device Semantic search, loaded on first need and kept (null: no exported store in this vault). */
  onDevice(): Promise<OnDevice | null> {
    this.device ??= this.loadDevice().catch((err) => {
      this.device = null; // a failed load is tried again next time
      throw err;
    });
    return this.device;
  }

  private async loadDevice(): Promise<OnDevice | null> {
    const files = this.app.vault.adapter;
    for (const name of ["manifest.json", "vectors.bin", "model.onnx", "tokenizer.json"]) {
      if (!(await files.exists(`${VECTORS}/${name}`))) return null;
    }
    const ort = await import("onnxruntime-web/wasm");
    ort.env.wasm.numThreads = 1; // the mobile app has no SharedArrayBuffer
    ort.env.wasm.wasmBinary = await files.readBinary(`${this.manifest.dir}/${WASM}`);
    const store = readStore(await files.read(`${VECTORS}/manifest.json`), await files.readBinary(`${VECTORS}/vectors.bin`));
    const tokenizer = JSON.parse(await files.read(`${VECTORS}/tokenizer.json`));
    const model = new Uint8Array(await files.readBinary(`${VECTORS}/model.onnx`));
    return onDevice(await e5Encoder(ort, tokenizer, model, store.queryPrefix), new OnDeviceIndex(store));
  }

  async onload(): Promise<void> {
    this.settings = { ...DEFAULTS, ...((await this.loadData()) as Partial<Settings> | null) };
    const notes = () =>
      this.app.vault.getMarkdownFiles().map((file) => noteMeta(file, this.app.metadataCache.getFileCache(file)));
    this.addCommand({
      id: "open-search",
      name: "Open search",
      callback: () => new SearchModal(this.app, notes, transport, () => this.settings, () => this.onDevice()).open(),
    });
    this.addSettingTab(new SentinelSettingTab(this.app, this));
  }

  async save(): Promise<void> {
    await this.saveData(this.settings);
  }
}

class SentinelSettingTab extends PluginSettingTab {
  constructor(
    app: App,
    private readonly plugin: SentinelSearch,
  ) {
    super(app, plugin);
  }

  display(): void {
    const { containerEl } = this;
    containerEl.empty();
    new Setting(containerEl)
      .setName("API URL")
      .setDesc("The Sentinel tool API, for Semantic (?) searches. Quick and Facet need no server.")
      .addText((text) =>
        text.setValue(this.plugin.settings.url).onChange(async (value) => {
          this.plugin.settings.url = value.trim();
          await this.plugin.save();
        }),
      );
    new Setting(containerEl)
      .setName("Read key")
      .setDesc("From `sentinel keys create --scope read`. Empty when the API runs local-only on this machine.")
      .addText((text) => {
        text.inputEl.type = "password";
        text.setValue(this.plugin.settings.key).onChange(async (value) => {
          this.plugin.settings.key = value.trim();
          await this.plugin.save();
        });
      });
    new Setting(containerEl)
      .setName("Scopes kept out")
      .setDesc(
        "Notes with one of these scope properties (comma-separated) stay out of searches that do not ask for them " +
          "(scope:personal). A retrieval boundary, not a privacy boundary. Empty: none kept out.",
      )
      .addText((text) =>
        text.setValue(this.plugin.settings.keptOutScopes.join(", ")).onChange(async (value) => {
          this.plugin.settings.keptOutScopes = value.split(",").map((s) => s.trim()).filter(Boolean);
          await this.plugin.save();
        }),
      );
    new Setting(containerEl)
      .setName("Scope folders")
      .setDesc("Folders whose notes count as a scope, one per line as folder=scope (Journal=personal).")
      .addTextArea((text) =>
        text
          .setValue(Object.entries(this.plugin.settings.scopeFolders).map(([f, s]) => `${f}=${s}`).join("\n"))
          .onChange(async (value) => {
            const pairs = value.split("\n").map((line) => line.split("=").map((part) => part.trim()));
            this.plugin.settings.scopeFolders = Object.fromEntries(pairs.filter(([f, s]) => f && s));
            await this.plugin.save();
          }),
      );
  }
}
