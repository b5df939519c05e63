"""What a page links to and which anchors it has, read from its HTML (a file, or the DOM a browser dumped)."""

from __future__ import annotations

from html.parser import HTMLParser

#: the attributes that make the browser go to or load another address
LINK_ATTRS = {"a": "href", "link": "href", "script": "src", "img": "src", "iframe": "src", "source": "src"}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []
        self.ids: set[str] = set()
        self.sidebar: list[str] = []
        self._nav_depth = 0  # inside the contents sidebar (pydata-sphinx-theme's nav.bd-docs-nav)
        self._li: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "nav":
            if self._nav_depth or "bd-docs-nav" in (attrs.get("class") or ""):
                self._nav_depth += 1
        if tag == "li":
            self._li.append(attrs.get("class") or "")
        attr = LINK_ATTRS.get(tag)
        if attr and attrs.get(attr) is not None:
            self.links.append((tag, attrs[attr]))
            if tag == "a" and self._nav_depth and self._li and "toctree-l1" in self._li[-1]:
                self.sidebar.append(attrs[attr])

    def handle_endtag(self, tag):
        if tag == "nav" and self._nav_depth:
            self._nav_depth -= 1
        if tag == "li" and self._li:
            self._li.pop()


def read(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


def links(html: str) -> list[tuple[str, str]]:
    """(tag, address) of every element that links to or loads another address."""
    return read(html).links


def ids(html: str) -> set[str]:
    """Every id in the page: the anchors a ``#fragment`` can land on."""
    return read(html).ids


def sidebar(html: str) -> list[str]:
    """The top-level entries of the contents sidebar, in order (their addresses)."""
    return read(html).sidebar
