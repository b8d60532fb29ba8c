"""benchmarks/label_agreement.py: labelled calls found among shadow mode's verdicts by message index, tool and
arguments; a label that points at no such call is a mismatch, listed and left out, never corrected."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("loopkit_label_agreement", ROOT / "benchmarks" / "label_agreement.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


AGREEMENT = _script()


def _call(i, name, arguments):
    return {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function", "function": {
        "name": name, "arguments": json.dumps(arguments)}}]}


def _result(i, content):
    return {"role": "tool", "tool_call_id": f"c{i}", "content": content}


def test_labels_are_matched_tallied_and_mismatches_listed(tmp_path):
    failing = "Error: payment amount does not add up"
    messages = [{"role": "user", "content": "book it"},
                _call(1, "book", {"seat": "1A"}), _result(1, failing),
                _call(2, "book", {"seat": "1A"}), _result(2, failing),
                _call(3, "book", {"seat": "1A"}), _result(3, failing)]
    (tmp_path / "runs.json").write_text(json.dumps({"results": [{"messages": [{"role": "user", "content": "hi"}]},
                                                                {"messages": messages}]}))
    label = {"file": "runs.json", "conversation": 1, "tool": "book", "arguments": {"seat": "1A"}}
    labels = [dict(label, message=3, repeats_message=1, label="loop"),
              dict(label, message=5, repeats_message=3, label="loop"),
              dict(label, message=4, repeats_message=1, label="legitimate")]  # message 4 holds a result
    verdicts = AGREEMENT.judged_calls(labels, tmp_path)
    mismatches: list[str] = []
    counts = AGREEMENT.tally(labels, verdicts, mismatches)
    assert counts["loop"]["run"] + counts["loop"]["intervene"] + counts["loop"]["stop"] == 2
    assert counts["loop"]["flagged by then"] >= 1  # the same failing write, sent a third time: flagged by then
    assert "legitimate" not in counts
    assert len(mismatches) == 1 and "message 4" in mismatches[0]
