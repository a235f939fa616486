"""Test support shared across areas: the real llama.cpp server launcher, loopback HTTP stubs."""
