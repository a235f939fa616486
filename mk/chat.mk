# `sentinel chat`, the diagnostic harness. Its tests need the small real LLM (`make llm`) and the e5 model
# (`make models`), which test-prereqs builds already (mk/llm.mk, mk/models.mk): nothing else to build.
.PHONY: chat-recording

# Re-record docs/chat-session.txt: a real session with the small model through llama.cpp (/steps, /budget, /save).
chat-recording: llm models
	$(PY) -m bench.chat_session --out docs/chat-session.txt
