"""Trains and exports Attest's own models. Never part of the extension, the VSIX or CI's run."""
