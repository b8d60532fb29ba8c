"""The loops: lesson 1's 20-line ReAct loop (`react.py`) and the guarded loop of lessons 2-5
(`guarded.py`), with the hooks its parts plug into (`hooks.py`). The assembled loops, by name, are
in `reference/runs/registry.py`."""
