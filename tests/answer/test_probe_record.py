"""Setup's tool-calling probe is asked once per model server and model, and its answer reused on a warm start."""

from __future__ import annotations

from pathlib import Path

from sentinel.answer.probe import Probe, probe_key, recorded_probe


class Asker:
    def __init__(self, answer: Probe) -> None:
        self.answer = answer
        self.calls = 0

    def __call__(self) -> Probe:
        self.calls += 1
        return self.answer


def test_a_conclusive_answer_is_recorded_and_reused(tmp_path: Path) -> None:
    path = tmp_path / "answer-probe.json"
    key = probe_key("openai", "http://llm:8080/v1", "qwen")
    ask = Asker(Probe(False, "it wrote no native tool call"))
    first = recorded_probe(path, key, ask)
    again = recorded_probe(path, key, ask)
    assert ask.calls == 1
    assert (first.tools, again.tools) == (False, False)
    assert "recorded" in again.reason and "--probe" in again.reason


def test_another_model_or_server_is_asked_again(tmp_path: Path) -> None:
    path = tmp_path / "answer-probe.json"
    ask = Asker(Probe(True, "it called search natively"))
    recorded_probe(path, probe_key("openai", "http://llm:8080/v1", "qwen"), ask)
    recorded_probe(path, probe_key("openai", "http://llm:8080/v1", "qwen-7b"), ask)
    recorded_probe(path, probe_key("ollama", "http://ollama:11434", "qwen-7b"), ask)
    assert ask.calls == 3
    assert probe_key("openai", "http://llm:8080/v1/", "qwen") == probe_key("openai", "http://llm:8080/v1", "qwen")


def test_a_server_that_did_not_answer_is_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "answer-probe.json"
    key = probe_key("openai", "http://llm:8080/v1", "qwen")
    down = Asker(Probe(False, "it did not answer the probe (refused)", conclusive=False))
    recorded_probe(path, key, down)
    assert not path.exists()
    up = Asker(Probe(True, "it called search natively"))
    assert recorded_probe(path, key, up).tools is True
    assert up.calls == 1


def test_fresh_asks_anyway_and_a_garbled_record_is_asked_again(tmp_path: Path) -> None:
    path = tmp_path / "answer-probe.json"
    key = probe_key("openai", "http://llm:8080/v1", "qwen")
    ask = Asker(Probe(False, "no native call"))
    recorded_probe(path, key, ask)
    recorded_probe(path, key, ask, fresh=True)
    assert ask.calls == 2
    path.write_text("{not json", encoding="utf-8")
    recorded_probe(path, key, ask)
    assert ask.calls == 3
    assert recorded_probe(path, key, ask).tools is False
    assert ask.calls == 3
