"""A pytest plugin that only imports jsonschema the quick way (reference/core/lazy.py), as pytest starts.

pyproject.toml's addopts load it (`-p reference.core.jsonschema_early`) before the installed plugins: nbval
imports nbformat, which imports jsonschema, whose format extras (Jupyter brings them) would build an IRI
grammar that no notebook and no tool schema checks. That costs about 3 s of CPU on this machine under load
(`python -c "import nbformat"`: 3.2 s, 0.3 s with the grammar left out) in each pytest process: the
README's command starts three (the controller and two workers), and the tests start more.
"""
from __future__ import annotations

from .lazy import load_jsonschema

load_jsonschema()
