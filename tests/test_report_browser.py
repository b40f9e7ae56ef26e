"""The HTML report in a real browser (headless Chromium through Selenium, issue 38): it renders
without console errors, its charts are drawn, its numbers are check's, and it asks the network
for nothing. Skipped where Chromium, its driver or Selenium is not installed (Debian:
apt-get install chromium chromium-driver; .ci/run installs them)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import run

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
EXT = ('xmlns:xhtml="http://www.w3.org/1999/xhtml" '
       'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"')
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1200,900"]


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the module, logging the console and the network."""
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium is not installed (the test extra)")
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("chromium and chromedriver are not installed "
                    "(Debian: apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _urlset(body: str) -> bytes:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS} {EXT}>\n{body}</urlset>\n' \
        .encode()


@pytest.fixture(scope="module")
def report_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """An index of two parts with extensions, problems and a hostile value; its HTML report."""
    d = tmp_path_factory.mktemp("browser")
    good = "".join(
        f'<url><loc>https://e.example/{i}</loc><lastmod>2024-0{1 + i % 6}-02</lastmod>'
        f'<xhtml:link rel="alternate" hreflang="de" href="https://e.example/de/{i}"/>'
        f"<image:image><image:loc>https://e.example/{i}.png</image:loc></image:image></url>\n"
        for i in range(300))
    bad = "".join(f"<url><loc>https://e.example/{i}</loc><priority>9</priority></url>\n"
                  for i in range(295, 310))
    bad += ("<url><loc>https://e.example/&lt;script&gt;alert(1)&lt;/script&gt;</loc>"
            "<lastmod>2024-02-30</lastmod></url>\n")
    (d / "a.xml").write_bytes(_urlset(good))
    (d / "b.xml").write_bytes(_urlset(bad))
    (d / "index.xml").write_bytes(
        f'<?xml version="1.0"?>\n<sitemapindex {NS}><sitemap><loc>https://e.example/a.xml</loc>'
        "</sitemap>\n<sitemap><loc>https://e.example/b.xml</loc></sitemap></sitemapindex>\n"
        .encode())
    out = d / "report.html"
    result = run("report", "--follow", str(d / "index.xml"), "-o", str(out))
    assert result.returncode == 0, result.stderr
    return d / "index.xml", out


@pytest.mark.slow  # (Chromium's start alone is some 4 s)
def test_renders_with_charts_the_numbers_of_check_and_no_request(
        browser: Any, report_page: tuple[Path, Path]) -> None:
    from selenium.webdriver.common.by import By

    index, page = report_page
    url = page.as_uri()
    browser.get_log("performance")  # (the start page's own)
    browser.get(url)
    errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert errors == []
    assert browser.execute_script("return document.scripts.length + document.images.length") \
        == 0
    for chart in ("lastmod-chart", "lastmod-share", "hreflang-share"):
        size = browser.find_element(By.ID, chart).size
        assert size["width"] > 0 and size["height"] > 0, chart
    bars = browser.find_elements(By.CSS_SELECTOR, "#lastmod-chart rect")
    assert len(bars) == 6 and all(b.size["height"] > 0 for b in bars)
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.meter")) >= 6

    checked = run("check", "--follow", "--format", "json", str(index))
    diags = json.loads(checked.stdout)
    summary = checked.stderr.decode().strip().splitlines()[-1]

    def number(element_id: str) -> str:
        return str(browser.find_element(By.ID, element_id).text)

    assert f"{number('urls')} URLs" in summary and f"{number('errors')} errors" in summary
    assert f"{number('warnings')} warnings" in summary and number("files") == "3"
    shown = {row.get_attribute("data-rule"): int(row.find_element(
        By.CSS_SELECTOR, "td.listed").text.replace(",", ""))
        for row in browser.find_elements(By.CSS_SELECTOR, "tr[data-rule]")}
    assert shown == dict(Counter(d["rule"] for d in diags))
    assert {"priority", "lastmod-format"} <= set(shown) and len(shown) >= 3

    requests = [json.loads(e["message"])["message"] for e in browser.get_log("performance")]
    asked = [m["params"]["request"]["url"] for m in requests
             if m["method"] == "Network.requestWillBeSent"]
    # (the browser's own pages, chrome://, are no request of the report's)
    assert [a for a in asked if not a.startswith("chrome")] == [url]
