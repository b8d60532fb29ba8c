"""pytest-xdist's workers get the test files longest first, so the last files handed out are quick ones and
neither worker waits long, idle, for the other (tests/helpers/file_order.py)."""
from __future__ import annotations

import json
from dataclasses import dataclass

from tests.helpers.file_order import SECONDS, longest_first, seconds_per_file


@dataclass
class Item:
    nodeid: str


def test_files_go_longest_first_each_whole_and_in_its_own_order():
    items = [Item(n) for n in ("a.py::1", "a.py::2", "b.py::1", "nb.ipynb::Cell 0", "c.py::1", "nb.ipynb::Cell 1",
                               "b.py::2", "new.py::1")]
    longest_first(items, {"a.py": 1.0, "b.py": 30.0, "c.py": 0.1, "nb.ipynb": 12.0})
    # new.py is not in the table: it counts as the median (6.5 s), between the notebook and a.py
    assert [i.nodeid for i in items] == ["b.py::1", "b.py::2", "nb.ipynb::Cell 0", "nb.ipynb::Cell 1", "new.py::1",
                                         "a.py::1", "a.py::2", "c.py::1"]


def test_the_table_is_made_from_a_cpu_time_log(tmp_path):
    log = tmp_path / "cpu.jsonl"
    log.write_text("".join(json.dumps({"test": t, "cpu": 0.1, "wall": w}) + "\n"
                           for t, w in (("a.py::x", 1.5), ("b.py::y", 4.0), ("a.py::z", 3.0))), encoding="utf-8")
    assert list(seconds_per_file(str(log)).items()) == [("a.py", 4.5), ("b.py", 4.0)]


def test_the_table_names_files_by_their_path_from_the_repository():
    table = json.loads(SECONDS.read_text(encoding="utf-8"))
    assert table and all(seconds >= 0 for seconds in table.values())
    assert all(name.startswith(("tests/", "notebooks/")) and "::" not in name for name in table), table
