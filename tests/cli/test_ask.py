"""`sentinel ask`: one question answered from the vault, as text or `--json`; no model reachable is one clear line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sentinel.cli import app
from sentinel.settings import ProviderSettings
from tests.support.servers import free_port
from tests.support.vault import WriteVault

runner = CliRunner()
VAULT = {
    "notes/Backups.md": "# Backups\n\nThe vault is backed up every night at 02:00 to the NAS with restic.\n",
    "notes/Garden.md": "# Garden\n\nThe tomatoes are watered every second morning. See [[Backups]].\n",
}


def test_no_model_reachable_names_where_it_looked_and_exits_2(vault_settings: WriteVault) -> None:
    settings = vault_settings(VAULT)
    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    args = ["ask", "When is the vault backed up?", "--vault", str(settings.vault), "--index", str(settings.index_path)]
    result = runner.invoke(app, [*args, "--provider", "openai", "--base-url", nowhere, "--model", "m"])
    assert result.exit_code == 2
    assert nowhere in result.output and "To start one" in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_json_gives_the_answer_and_its_citations(vault_settings: WriteVault, llama_settings: ProviderSettings) -> None:
    settings = vault_settings(VAULT)
    args = ["ask", "When is the vault backed up?", "--vault", str(settings.vault), "--index", str(settings.index_path)]
    model = ["--provider", "openai", "--base-url", llama_settings.base_url, "--model", llama_settings.model]
    result = runner.invoke(app, [*args, *model, "--num-ctx", str(llama_settings.num_ctx), "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert set(answer) == {"answer", "citations", "intent", "answered", "dropped", "model"}
    assert answer["intent"] == "vault" and answer["model"] == llama_settings.model
    assert [c["path"] for c in answer["citations"]][:1] == ["notes/Backups.md"]
    assert "02:00" in answer["answer"]
    linked = runner.invoke(app, ["ask", "What links to Backups?", *args[2:], *model])
    assert linked.exit_code == 0 and "Garden" in linked.output and "Sources" in linked.output
