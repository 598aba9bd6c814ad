"""The server works offline: no page it sends loads anything from another host (issue: /docs was blank
without internet, since FastAPI's default docs page loads Swagger UI from a CDN)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from allfours.serve.app import create_app

PAGES = ["/docs", "/play"]


class _Refs(HTMLParser):
    """Every URL an HTML page makes the browser fetch: src/href attributes and url(...) in styles."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href", "action", "data") and value:
                self.urls.append(value)

    def handle_data(self, data):  # inline scripts and styles
        self.urls += re.findall(r"""(?:url\(|["'])((?:https?:)?//[^"')\s]+)""", data)


def _outside(url: str) -> bool:
    return bool(re.match(r"^(https?:)?//", url)) and not re.match(r"^(https?:)?//(127\.0\.0\.1|localhost|testserver)\b",
                                                                   url)


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(bots=["random"]), base_url="http://127.0.0.1")


@pytest.mark.parametrize("page", PAGES)
def test_every_page_loads_only_its_own_files(client, page):
    r = client.get(page)
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    refs = _Refs()
    refs.feed(r.text)
    assert refs.urls, "the page references nothing: the parser sees no assets"
    assert not [u for u in refs.urls if _outside(u)], refs.urls
    for url in refs.urls:  # and every file it references is served
        if url.startswith("/") and not url.startswith("//"):
            assert client.get(url).status_code == 200, url


def test_docs_page_has_the_swagger_ui_assets(client):
    page = client.get("/docs").text
    js = client.get("/docs-assets/swagger-ui-bundle.js")
    css = client.get("/docs-assets/swagger-ui.css")
    assert "/docs-assets/swagger-ui-bundle.js" in page and "/openapi.json" in page
    assert js.status_code == 200 and "SwaggerUIBundle" in js.text[:2_000_000]
    assert css.status_code == 200 and ".swagger-ui" in css.text
    assert client.get("/redoc").status_code == 404  # ReDoc's page would load from a CDN: not offered


def test_the_parser_catches_an_outside_host():
    refs = _Refs()
    refs.feed('<script src="https://cdn.example.org/x.js"></script><style>a{background:url(//cdn.x/y.png)}</style>')
    assert [u for u in refs.urls if _outside(u)] == ["https://cdn.example.org/x.js", "//cdn.x/y.png"]
