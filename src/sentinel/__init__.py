"""Sentinel: a local model in front of a markdown vault; the model transports, the code decides."""

__version__ = "0.1.0"
