// The Cmd+K-style modal: one input, the three modes, a notice when the API does not answer.
import { type App, Notice, SuggestModal } from "obsidian";
import type { ApiSettings, Transport } from "./api";
import type { Boundary, Hit } from "./local";
import type { NoteMeta } from "./notes";
import type { OnDevice } from "./ondevice";
import { answer, linkText } from "./search";

const SEMANTIC_DEBOUNCE_MS = 300;

export class SearchModal extends SuggestModal<Hit> {
  private sent = 0;
  private lastNotice = "";

  constructor(
    app: App,
    private readonly notes: () => NoteMeta[],
    private readonly transport: Transport,
    private readonly settings: () => ApiSettings & Boundary,
    private readonly device?: () => Promise<OnDevice | null>,
  ) {
    super(app);
    this.setPlaceholder("A name · key:value · ?a question");
    this.setInstructions([
      { command: "name", purpose: "Quick" },
      { command: "key:value", purpose: "Facet" },
      { command: "?words", purpose: "Semantic (Sentinel API)" },
      { command: "↵", purpose: "open at the heading" },
    ]);
    this.emptyStateText = "No matches";
  }

  async getSuggestions(typed: string): Promise<Hit[]> {
    const sent = ++this.sent;
    if (typed.trim().startsWith("?")) {
      await new Promise((resolve) => setTimeout(resolve, SEMANTIC_DEBOUNCE_MS));
      if (sent !== this.sent) return []; // typing went on: only the last query asks the server
    }
    const settings = this.settings();
    const found = await answer(typed, this.notes(), this.transport, settings, "summary", settings, this.device);
    if (found.notice && found.notice !== this.lastNotice) new Notice(found.notice, 8000);
    this.lastNotice = found.notice;
    this.emptyStateText = found.notice || "No matches";
    return sent === this.sent ? found.hits : [];
  }

  renderSuggestion(hit: Hit, el: HTMLElement): void {
    const head = el.createDiv();
    for (const label of hit.labels) head.createSpan({ cls: "sentinel-label", text: `[${label}] ` });
    head.createSpan({ cls: "sentinel-title", text: hit.title });
    el.createDiv({ cls: "sentinel-path", text: hit.trail || hit.path });
    if (hit.text) el.createDiv({ cls: "sentinel-text", text: hit.text });
  }

  onChooseSuggestion(hit: Hit): void {
    if (!this.app.vault.getAbstractFileByPath(hit.path)) {
      new Notice(`${hit.path} is not in this vault: the Sentinel API serves another vault?`);
      return;
    }
    void this.app.workspace.openLinkText(linkText(hit), "", false);
  }
}
