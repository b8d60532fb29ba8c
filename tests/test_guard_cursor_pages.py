"""Pages followed by their cursors (reference/parts/guards/books.py, metadata.positions): a cursor the last page gave,
sent back, says where in a list, not what about, as a page number does, and the members that moved beside it (the
next cursor, the next page's link) are positions, not the answer; a page is its rows. Pages that each list the row
the page before listed, under a new cursor, ask one question; pages with new rows do not. Judged in shadow mode on
conversations in the chat-log format, the path `loopkit diagnose` takes."""
from __future__ import annotations

from tests.helpers.chat_logs import flags, tool as _tool

MEMBERS = [_tool("list_members", "List the members of a group, a page at a time; pass the next cursor to go on.",
                 group_id="string", page_size="integer", cursor="string")]
ASK = "List every member of group g-7 with their plan, one at a time."
CURSORS = ["Qm9vazE3x", "Qm9vazI0y", "Qm9vazM5z", "Qm9vazQ2w", "Qm9vazU1v", "Qm9vazY4u"]


def _page(row: dict, nxt: str) -> dict:
    return {"data": [row], "links": {"next": f"https://api.example.com/groups/g-7/members?cursor={nxt}"},
            "meta": {"cursors": {"next": nxt}, "total": 3}}


def _steps(rows: list[dict]) -> list[tuple]:
    return [("list_members", {"group_id": "g-7", "page_size": 1, **({"cursor": CURSORS[i - 1]} if i else {})},
             _page(row, CURSORS[i])) for i, row in enumerate(rows)]


def test_cursors_followed_to_the_same_row_again_and_again_are_stopped(tmp_path):
    same = {"id": "m_5c1e2a90", "name": "Ines Laurent", "plan": "pro"}
    found = flags(tmp_path, MEMBERS, ASK, _steps([same] * 6))
    assert ("stop", "same_result") in [(v, r) for _, v, r in found], found


def test_cursors_followed_to_new_rows_are_paging(tmp_path):
    rows = [{"id": "m_5c1e2a90", "name": "Ines Laurent", "plan": "pro"},
            {"id": "m_77b0f4c3", "name": "Tomas Berg", "plan": "basic"},
            {"id": "m_1d9e6b58", "name": "Aiko Sato", "plan": "pro"}]
    assert flags(tmp_path, MEMBERS, ASK, _steps(rows)) == []


def test_cursors_followed_to_rows_of_ids_alone_are_paging(tmp_path):
    rows = [f"m_{n}a{n}b" for n in range(1, 6)]
    steps = [("list_members", {"group_id": "g-7", "page_size": 1, **({"cursor": CURSORS[i - 1]} if i else {})},
              {"ids": [row], "next": CURSORS[i]}) for i, row in enumerate(rows)]
    assert flags(tmp_path, MEMBERS, ASK, steps) == []


def test_a_chain_of_records_followed_id_by_id_is_no_pages(tmp_path):
    commits = [_tool("get_commit", "A commit by its sha.", sha="string")]
    shas = ["a1f3c9e", "b7c2d40", "c9e1f27", "d4a8b13", "e2b7c66"]
    steps = [("get_commit", {"sha": s}, {"sha": s, "parent": n}) for s, n in zip(shas, shas[1:])]
    assert flags(tmp_path, commits, "Walk back from a1f3c9e four commits.", steps) == []
