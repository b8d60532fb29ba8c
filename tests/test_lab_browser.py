"""The Loop Lab in a real browser: Voilà serves notebooks/loop_lab.ipynb on 127.0.0.1, Playwright drives
Debian's chromium (/usr/bin/chromium; no browser download), a slider moves, and the chart and the stop
reason change. A screenshot is kept in artifacts/ (ignored by git).

Marked `browser`: it runs only when asked for (`pytest -m browser`). Skipped when chromium, playwright or voila
is missing, unless LOOPKIT_REQUIRE_BROWSER=1 (.ci/run sets it after installing them), which turns the skip into
a failure.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("LOOPKIT_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 120_000  # the kernel starts and runs the notebook before the widgets appear

pytestmark = pytest.mark.browser


def _missing() -> str | None:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no chromium at {CHROMIUM} (apt-get install chromium)"
    for module in ("playwright", "voila"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install {module})"
    return None


@pytest.fixture(scope="module")
def lab_url():
    missing = _missing()
    if missing:
        if os.environ.get("LOOPKIT_REQUIRE_BROWSER") == "1":
            pytest.fail(f"LOOPKIT_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "voila", "loop_lab.ipynb", "--no-browser",
                               f"--port={port}", "--Voila.ip=127.0.0.1"], cwd=ROOT / "notebooks",
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(600):  # up to a minute for the server to listen (a poll, not a timed assertion)
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


def test_moving_a_slider_changes_the_chart_and_the_stop_reason(lab_url):
    from playwright.sync_api import sync_playwright

    artifacts = ROOT / "artifacts"
    artifacts.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(lab_url, timeout=WAIT_MS)
            right = page.locator(".widget-html .lab-column[data-side='right']").first
            right.locator(".stop-reason").wait_for(timeout=WAIT_MS)
            before = (right.locator(".stop-reason").inner_text(), right.locator("img").get_attribute("src"))
            assert "repeated_call" in before[0]
            page.get_by_role("button", name="right").first.click()
            slider = page.locator(".widget-slider").filter(has_text="max_steps").first
            slider.locator(".noUi-handle, .ui-slider-handle").first.focus()
            for _ in range(6):  # 8 -> 2: the guarded loop now stops at the step limit
                page.keyboard.press("ArrowLeft")
            page.wait_for_function(
                "() => [...document.querySelectorAll(\".widget-html .lab-column[data-side='right'] .stop-reason\")]"
                ".some(e => e.innerText.includes('max_steps'))", timeout=WAIT_MS)
            after = (right.locator(".stop-reason").inner_text(), right.locator("img").get_attribute("src"))
            page.screenshot(path=str(artifacts / "loop_lab.png"), full_page=True)
        finally:
            browser.close()
    assert "max_steps" in after[0] and after[1] != before[1]
