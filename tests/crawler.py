"""A crawler of the pages and forms the phones see (issue 14), in-process through Flask's
test client, with CSRF on as in production.

It opens what a phone opens and follows what a browser with htmx would: links (``href``),
``hx-get``, redirects, and the links a phone scans from the share panel (the readonly link
boxes under the QR codes). On every page it builds each form's submission as the browser
would send it (hidden fields, checked boxes, a select's selected or first option, the
tapped button's name and value, ``hx-include``, ``hx-vals``, a name typed where the page
asks for one, and the CSRF token, which travels in a hidden field or in the
``hx-headers`` of ``<body>``), sends it, and sends it again with one field at a time
replaced by a hostile value (:data:`HOSTILE`), left out, or repeated. A link with a query
string (the dispute lab's card grid) is a GET form too; so is an element with ``hx-get``.

After every request it checks: no 5xx (nor an exception), no GET and no refused request
(4xx) changed a row of the database, and no markup it sent comes back unescaped. The
findings are collected (:attr:`Crawl.problems`), not raised, so one run reports them all.

What keeps the crawl on its feet while it changes the games it walks: a form whose game
changed is read again from its page before it is sent (the version it carries moved on);
"delete" is sent to a throwaway game; the referee's phone opens its own referee links (it
stays a referee whatever they do); and the new-game form is sent from a phone of its own
(a phone keeps 30 games' keys, and the games it starts would push out the crawl's).
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
import traceback
from collections import Counter, deque
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import parse_qsl, quote, urlsplit

from werkzeug.datastructures import MultiDict

from tests.conftest import snapshot

#: A game's pages: /games/<id>/...
GAME = re.compile(r"/games/(?!new\b)([^/?]+)")


def touched(before: dict[str, list], after: dict[str, list]) -> set[str]:
    """The ids in the rows that differ (a game's id is in the first two columns of its rows)."""
    out: set[str] = set()
    for table in before.keys() | after.keys():
        for row in set(before.get(table, [])) ^ set(after.get(table, [])):
            out.update(re.findall(r"'([\w-]+)'", row[:80]))
    return out


# -- HTML as a tree, and the few selectors htmx attributes use here ---------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    __slots__ = ("tag", "attrs", "children", "parent", "text")

    def __init__(self, tag: str, attrs: dict[str, str], parent: Node | None):
        self.tag, self.attrs, self.children, self.parent, self.text = tag, attrs, [], parent, ""

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.attrs.get(name, default)

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def lineage(self):
        """This node, then its ancestors up to the root."""
        node: Node | None = self
        while node is not None:
            yield node
            node = node.parent

    def inherited(self, attr: str) -> str | None:
        """An htmx attribute as htmx reads it: on this node or the nearest ancestor."""
        return next((node.attrs[attr] for node in self.lineage() if attr in node.attrs), None)

    def boosted(self) -> bool:
        return any(node.get("hx-boost") == "true" for node in self.lineage())

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.attrs.items() if k in ("id", "class", "name", "action", "hx-get", "hx-post")}
        return f"<{self.tag} {' '.join(f'{k}={v!r}' for k, v in shown.items())}>"


class _Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.current = Node("#document", {}, None)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: "" if v is None else v for k, v in attrs}, self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, {k: "" if v is None else v for k, v in attrs}, self.current))

    def handle_endtag(self, tag):
        for node in self.current.lineage():
            if node.tag == tag and node.parent is not None:
                self.current = node.parent
                return

    def handle_data(self, data):
        self.current.text += data


def parse(html: str) -> Node:
    tree = _Tree()
    tree.feed(html)
    tree.close()
    return tree.root


_SIMPLE = re.compile(
    r"^(?P<tag>[a-z]+)?(?:#(?P<id>[\w-]+))?(?:\[(?P<attr>[\w-]+)(?:(?P<op>[\^$*]?=)(?P<val>[^\]]*))?\])?$"
)


_OPS = {
    None: lambda value, want: True,
    "=": str.__eq__,
    "^=": str.startswith,
    "$=": str.endswith,
    "*=": lambda value, want: want in value,
}


def _matches(node: Node, m: re.Match) -> bool:
    if m["tag"] and node.tag != m["tag"] or m["id"] and node.get("id") != m["id"]:
        return False
    if not m["attr"]:
        return True
    value = node.get(m["attr"])
    return value is not None and _OPS[m["op"]](value, (m["val"] or "").strip("'\""))


def select(root: Node, selectors: str, this: Node | None = None) -> list[Node]:
    """The nodes a selector list (``#version``, ``[name^=player], [name=dealer]``,
    ``this``, ``closest form``) names. Anything else is an error: a template that starts
    using another selector must teach the crawler, not be skipped by it."""
    out: list[Node] = []
    for part in (p.strip() for p in selectors.split(",")):
        if part == "this" and this is not None:
            out.append(this)
            continue
        if part.startswith("closest ") and this is not None:
            m = _SIMPLE.match(part[8:].strip())
            if m and not m["id"] and m["tag"]:
                out += [n for n in this.lineage() if _matches(n, m)][:1]
                continue
        m = _SIMPLE.match(part)
        if not m or not any(m.groupdict().values()):
            raise ValueError(f"the crawler does not know the selector {part!r}")
        out += [n for n in root.walk() if n.tag != "#document" and _matches(n, m)]
    return out


# -- forms as a browser with htmx submits them ------------------------------------------------

CONTROLS = {"input", "select", "textarea", "button"}
#: What a person types in a blank box the page capitalises as words (a player's name).
PEOPLE = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]
NO_VALUE_INPUTS = {"submit", "button", "image", "reset", "file"}


def _options(node: Node) -> list[Node]:
    return [n for n in node.walk() if n.tag == "option" and "disabled" not in n.attrs]


def control_values(node: Node) -> list[str]:
    """What the control sends as it stands (nothing for an unchecked box or a button)."""
    kind = node.get("type", "text" if node.tag == "input" else "submit").lower()
    if node.tag == "input":
        if kind in ("checkbox", "radio"):
            return [node.get("value", "on") or ""] if "checked" in node.attrs else []
        return [] if kind in NO_VALUE_INPUTS else [node.get("value", "") or ""]
    if node.tag == "select":
        options = _options(node)
        chosen = [o for o in options if "selected" in o.attrs] or options[:1]
        return [o.get("value", o.text.strip()) or "" for o in chosen[:1]]
    if node.tag == "textarea":
        return [node.text]
    return []


def offered_values(node: Node) -> list[str]:
    """Every value the page offers for this control (a box's, an option's, a button's)."""
    if node.tag == "select":
        return [o.get("value", o.text.strip()) or "" for o in _options(node)]
    if node.tag == "button" or node.get("type", "").lower() in ("checkbox", "radio", "submit", "hidden"):
        return [node.get("value", "") or ""]
    return []


def is_text(node: Node) -> bool:
    """A box for words (a name, cards typed in), not for a number."""
    if node.tag == "textarea":
        return True
    return node.tag == "input" and node.get("type", "text") in ("text", "search") and node.get("inputmode") != "numeric"


def is_submit(node: Node) -> bool:
    if node.tag == "button":
        return node.get("type", "submit").lower() == "submit"
    return node.tag == "input" and node.get("type", "").lower() in ("submit", "image")


@dataclass
class Form:
    """One way a page sends fields: a ``<form>``, an element with ``hx-get``/``hx-post``, or
    a link with a query string."""

    where: str  # the page (or answer) it was found in
    element: str  # what it is, for messages
    method: str
    action: str  # a path: a GET form's query is in ``fields``
    htmx: bool
    plain: bool  # also works without htmx (a form's method/action, a link's href)
    headers: dict[str, str]
    fields: list[tuple[str, str]]  # the default submission, in order, without a button
    buttons: dict[str, list[str]]  # the named submit buttons' values (enabled ones), by name
    needs_button: bool  # only a named button submits it (a grid of cards)
    offered: dict[str, list[str]]  # the values the page offers, per field name
    texts: set[str] = field(default_factory=set)  # the fields typed as text (a name): shown again later
    numbers: set[str] = field(default_factory=set)  # the fields typed as numbers
    kind: str = ""
    label: str = ""
    gen: int = 0  # how many times its game had changed when it was read
    answered: bool = False  # found in the answer to a POST (it can't be read again by a GET)

    @property
    def names(self) -> list[str]:
        seen = dict.fromkeys([n for n, _ in self.fields] + list(self.offered) + list(self.buttons))
        return list(seen)

    def key(self) -> tuple:
        action = re.sub(r"/games/(?!new\b)[^/?]+", "/games/<id>", self.action)
        action = re.sub(r"/join/[^/?]+", "/join/<token>", action)
        # What the page chose (share "add" or "hand over"; a capture), not what it carries
        # (a token, the version, the new-game form's one-time nonce).
        chosen = tuple(sorted((n, v) for n, v in self.fields if n not in ("csrf_token", "version", "nonce")))
        return (self.method, action, tuple(sorted(self.names)), chosen)

    def default(self, button: str | None = None) -> list[tuple[str, str]]:
        """The fields as sent, with the named button ``button`` (else the first, if needed)."""
        if button is None and self.needs_button:
            button = next(iter(self.buttons), None)
        pairs = list(self.fields)
        if button is not None:
            pairs.append((button, (self.buttons.get(button) or self.offered.get(button) or [""])[0]))
        return pairs


def _submitter(node: Node, page: str, boosted: bool) -> tuple[str, str, bool, bool]:
    """``(method, action, htmx, works without htmx)`` of a form or an htmx element."""
    if node.get("hx-post") is not None:
        return "POST", node.get("hx-post") or page, True, node.tag == "form" and node.get("method", "") == "post"
    if node.get("hx-get") is not None:
        return "GET", node.get("hx-get") or page, True, node.tag in ("form", "a")
    method = (node.get("method") or "get").upper()
    return method, node.get("action") or page, boosted, True


def _included(node: Node, root: Node) -> list[Node]:
    """The controls ``hx-include`` adds (inherited, as htmx does)."""
    include = node.inherited("hx-include")
    if not include:
        return []
    out = []
    for target in select(root, include, node):
        out += [target] if target.tag in CONTROLS else [n for n in target.walk() if n.tag in CONTROLS]
    return out


def _vals(node: Node) -> dict[str, str]:
    """``hx-vals`` (JSON; the nearest wins per name), as htmx merges it."""
    merged: dict[str, str] = {}
    for n in node.lineage():
        if n.get("hx-vals"):
            for k, v in json.loads(n.get("hx-vals") or "{}").items():
                merged.setdefault(k, v if isinstance(v, str) else json.dumps(v))
    return merged


def _headers(node: Node, page: str, boosted: bool) -> dict[str, str]:
    headers = {"HX-Request": "true", "HX-Current-URL": "http://localhost" + page}
    if boosted:
        headers["HX-Boosted"] = "true"
    for n in reversed(list(node.lineage())):
        if n.get("hx-headers"):
            headers |= json.loads(n.get("hx-headers") or "{}")
    return headers


def _form_of(node: Node, root: Node, page: str) -> Form:
    boosted = node.boosted()
    method, action, htmx, plain = _submitter(node, page, boosted)
    path, _, query = action.partition("?")
    controls: list[Node] = []
    if node.tag == "form":
        controls = [n for n in node.walk() if n.tag in CONTROLS]
    elif node.get("name"):
        controls = [node]
    if node.tag != "form" and method == "POST":
        form = next((n for n in node.lineage() if n.tag == "form"), None)
        controls += [n for n in form.walk() if n.tag in CONTROLS] if form else []
    if htmx:
        controls += [n for n in _included(node, root) if n not in controls]
    fields: list[tuple[str, str]] = [] if method == "GET" and node.tag == "form" else parse_qsl(query, True)
    buttons: dict[str, list[str]] = {}
    offered: dict[str, list[str]] = {}
    texts: set[str] = set()
    numbers: set[str] = set()
    typed: set[str] = set()
    unnamed_submit = False
    for c in controls:
        name = c.get("name")
        if is_submit(c) and not name:
            unnamed_submit = True
        if not name or "disabled" in c.attrs and not is_submit(c):
            continue
        offered.setdefault(name, [])
        offered[name] += [v for v in offered_values(c) if v not in offered[name]]
        if is_text(c):
            texts.add(name)
        if c.tag == "input" and (c.get("type") == "number" or c.get("inputmode") == "numeric"):
            numbers.add(name)
        if is_submit(c):
            buttons.setdefault(name, [])
            if "disabled" not in c.attrs:
                buttons[name].append(c.get("value", "") or "")
        elif c.get("autocapitalize") == "words" and not c.get("value"):
            fields.append((name, PEOPLE[len(typed) % len(PEOPLE)]))  # a name: the person types one
            typed.add(name)
        else:
            fields += [(name, v) for v in control_values(c)]
    for name, value in _vals(node).items():
        fields = [(n, v) for n, v in fields if n != name] + [(name, value)]
        offered.setdefault(name, [value])
    trigger = node.get("hx-trigger") or ""
    return Form(
        where=page,
        element=repr(node),
        method=method,
        action=path or page.partition("?")[0],
        htmx=htmx,
        plain=plain,
        headers=_headers(node, page, boosted) if htmx else {},
        fields=fields,
        buttons=buttons,
        needs_button=bool(buttons) and not unnamed_submit and not re.search(r"\b(change|load|every)\b", trigger),
        offered=offered,
        texts=texts,
        numbers=numbers,
    )


def local(url: str | None) -> str | None:
    """``url`` as a path and query on this app, or None (another site, a fragment, a script)."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("", "http", "https") or parts.netloc not in ("", "localhost"):
        return None
    if not parts.path.startswith("/") or parts.path.startswith(("/static/", "/api/")):
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


@dataclass
class Page:
    """What a page offers: links to follow, links another phone scans, and its forms."""

    links: list[tuple[str, bool]] = field(default_factory=list)  # (url, by htmx)
    scanned: list[tuple[str, str]] = field(default_factory=list)  # (url, what the box says it is)
    forms: list[Form] = field(default_factory=list)
    version: str | None = None


def read_page(html: str, page: str) -> Page:
    root = parse(html)
    out = Page()
    for node in root.walk():
        if node.tag == "a" and (href := local(node.get("href"))):
            out.links.append((href, node.boosted()))
            if "?" in href:
                out.forms.append(_link_form(node, href, page))
        if node.tag == "input" and "readonly" in node.attrs and (scan := local(node.get("value"))):
            out.scanned.append((scan, node.get("aria-label") or ""))
        if node.tag == "input" and node.get("id") == "version":
            out.version = node.get("value")
        if node.tag == "form" or node.get("hx-get") is not None or node.get("hx-post") is not None:
            if node.tag != "a" or node.get("hx-get") is not None:
                out.forms.append(_form_of(node, root, page))
            if node.tag != "form" and (target := local(node.get("hx-get"))):
                out.links.append((target, True))
    return out


def _link_form(node: Node, href: str, page: str) -> Form:
    path, _, query = href.partition("?")
    fields = parse_qsl(query, True)
    boosted = node.boosted()
    return Form(
        where=page,
        element=f"<a href={href[:60]!r}>",
        method="GET",
        action=path,
        htmx=boosted,
        plain=True,
        headers=_headers(node, page, boosted) if boosted else {},
        fields=fields,
        buttons={},
        needs_button=False,
        offered={n: [v] for n, v in fields},
    )


# -- what is sent in place of a field ---------------------------------------------------------


class Huge:
    """A value as long as can reach the app: 100,000 characters in a POST body; a GET's
    whole request line must fit gunicorn's 4,094 bytes (a longer one is refused before the
    app sees it), so there the value fills about 3,600 bytes of it."""

    def __init__(self, char: str):
        self.char = char

    def sized(self, method: str) -> str:
        return self.char * (100_000 if method == "POST" else 3_600 // len(quote(self.char)))


def sized(value: object, method: str) -> object:
    return value.sized(method) if isinstance(value, Huge) else value


MISSING = object()  # the field left out
REPEAT = object()  # the field sent twice, its own value both times
MARKUP = '<i data-crawl="1">x</i>'  # must never come back unescaped

#: A careless or hostile phone's values (ordered: a bounded crawl takes them in turn).
HOSTILE: list[tuple[str, object]] = [
    ("empty", ""),
    ("missing", MISSING),
    ("repeated", REPEAT),
    ("huge", Huge("9")),
    ("negative", "-1"),
    ("20 digits", "99999999999999999999"),  # beyond 64 bits, signed or not
    ("superscript two", "²"),
    ("arabic-indic three", "٣"),
    ("bad card", "11H"),
    ("NUL", "A\x00S"),
    ("markup", MARKUP),
    ("a list", ("QH", "ZZ", "")),
    ("blank", "   "),
    ("fullwidth twelve", "１２"),
    ("float", "1e309"),
    ("not a suit", "10X"),
    ("huge text", Huge("ä")),
    ("minus zero", "-0"),
    ("bidi override", "\u202eAS"),
]


RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "1", "11", "0"]
#: Random text: any character of the first planes but a surrogate (not encodable) or NUL.
ALPHABET = "".join(chr(c) for c in range(1, 0x3000) if not 0xD800 <= c < 0xE000)


HOSTILE_TEXT = next(v for v in HOSTILE if v[0] == "markup")
HOSTILE_NUMBER = next(v for v in HOSTILE if v[0] == "20 digits")


def random_value(rng: random.Random, offered: list[str]) -> str | tuple[str, ...]:
    """A value a fuzzing phone might send: one the page offers, a card in any spelling, a
    number from tiny to huge, random Unicode text, or (one time in six) a list of those."""
    if rng.random() < 1 / 6:
        return tuple(_random_word(rng, offered) for _ in range(rng.randint(2, 4)))
    return _random_word(rng, offered)


def _random_word(rng: random.Random, offered: list[str]) -> str:
    roll = rng.random()
    if roll < 0.35 and offered:
        return rng.choice(offered)
    if roll < 0.55:
        return rng.choice(RANKS) + rng.choice("SHDCshdc♠♥♦♣XZ")
    if roll < 0.75:
        return str(rng.choice([rng.randint(-5, 130), rng.randint(-(10**25), 10**25)]))
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30)))


def substitute(pairs: list[tuple[str, str]], name: str, value: object) -> list[tuple[str, str]]:
    """``pairs`` with every value of ``name`` replaced by ``value`` (see :data:`HOSTILE`)."""
    own = [v for n, v in pairs if n == name]
    rest = [(n, v) for n, v in pairs if n != name]
    if value is MISSING:
        return rest
    if value is REPEAT:
        return rest + [(name, v) for v in (own or [""]) * 2]
    if isinstance(value, tuple):
        return rest + [(name, v) for v in value]
    return rest + [(name, str(value))]


# -- the crawl --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """How far to go: hostile values per field (None: all), random ones per field, and how
    many pages and forms of one kind (per game) to take."""

    hostile_per_field: int | None
    random_per_field: int
    seed: int
    pages_per_kind: int
    forms_per_kind: int
    #: The page kinds whose forms are taken for each game (None: every kind); the others'
    #: once per shape (the share panel's forms are the same on every game).
    per_game: frozenset[str] | None = None
    #: Pages of one kind to open in the games the crawl did not start (the new-game form's).
    other_games: int = 0
    #: Print a line every so many requests (0: never).
    progress: int = 0


#: The page kinds, by path; a game's pages are counted per game ("tute mid", "lab tute").
KINDS = [
    ("home", r"/"),
    ("game", r"/games/[^/]+"),
    ("new game", r"/games/new"),
    ("new game options", r"/games/new/options"),
    ("live", r"/games/[^/]+/live"),
    ("share", r"/games/[^/]+/share"),
    ("log", r"/games/[^/]+/log"),
    ("tally", r"/games/[^/]+/tally"),
    ("delete", r"/games/[^/]+/delete"),
    ("join", r"/games/[^/]+/join(/[^/]+)?"),
    ("moves", r"/games/[^/]+/(moves|undo)"),
    ("share actions", r"/games/[^/]+/(share/\w+|archive)"),
    ("transcript", r"/games/[^/]+/transcript"),
    ("rules", r"/rules/"),
    ("lab", r"/rules/[^/]+"),
    ("words", r"/rules/[^/]+/words"),
]


@dataclass
class Phone:
    """A client and what it has still to open and to fill in."""

    role: str
    client: object
    queue: deque = field(default_factory=deque)
    forms: list[Form] = field(default_factory=list)
    seen: dict = field(default_factory=dict)  # (url, by htmx) -> None: the pages opened, in order
    csrf: str | None = None


class Crawl:
    """One crawl of one app: the phones' requests, what they found, and what went wrong."""

    def __init__(self, app, plan: Plan, labels: dict[str, str] | None = None):
        self.app, self.plan = app, plan
        self.rng = random.Random(plan.seed)
        self.labels: dict[str, str] = dict(labels or {})  # game id -> "tute mid"
        self.before = snapshot(app)
        # Another connection's commit changes this one's data_version: an unchanged one
        # means an unchanged database, without reading it (the snapshot compares rows).
        self.db = sqlite3.connect(app.config["DATABASE"], isolation_level=None)
        self.data_version = self._data_version()
        self.changes: Counter = Counter()  # game id -> requests that changed its rows
        self.problems: list[str] = []
        self.statuses: Counter = Counter()  # (phone, route, method, status) -> answers
        self.sent: Counter = Counter()  # hostile value's name -> times sent
        self.requests = 0
        self.submissions = 0
        self.cost: Counter = Counter()  # (role, kind, "seconds" | "requests") -> total
        self.found: Counter = Counter()  # (role, kind, "pages" | "forms" | "fields") -> count
        self.forms_by: dict[tuple[str, str], list[Form]] = {}  # (role, kind) -> forms found
        self.vanished: list[Form] = []
        self.taken: Counter = Counter()  # (phone or "anyone", kind, game) -> forms taken
        self.keys: set[tuple] = set()  # the forms taken: a game's per phone, any other page's once
        self.scanned: list[tuple[str, str]] = []
        self.started = time.perf_counter()
        self._turn = 0
        self._throwaway: str | None = None
        self.starter = Phone("starter", app.test_client())
        self.phones: dict[str, Phone] = {}  # by role, as they crawled
        self.replayed = 0

    # -- requests ------------------------------------------------------------------------------
    def ask(self, phone: Phone, method: str, url: str, pairs=(), headers=None, why: str = ""):
        """Send a request and check what it did; the answer, or None if it raised."""
        path, _, query = url.partition("?")
        data = MultiDict(list(pairs) or parse_qsl(query, True))
        self.requests += 1
        if self.plan.progress and self.requests % self.plan.progress == 0:
            took = time.perf_counter() - self.started
            print(f"  {self.requests} requests, {took:.0f} s, {len(self.problems)} problems", flush=True)
        try:
            if method == "GET":
                answer = phone.client.get(path, query_string=data, headers=headers or {})
            else:
                answer = phone.client.post(path, data=data, headers=headers or {})
        except Exception:  # TESTING propagates a view's exception: it is a 500
            self.problem(phone, method, path, data, "raised", traceback.format_exc(limit=-8), why)
            self.before, self.data_version = snapshot(self.app), self._data_version()
            return None
        self.statuses[phone.role, self.classify(path)[0], method, answer.status_code] += 1
        data_version = self._data_version()
        after = snapshot(self.app) if data_version != self.data_version else self.before
        self.data_version = data_version
        changed = after != self.before
        status, body = answer.status_code, answer.get_data(as_text=True)
        if status >= 500:
            self.problem(phone, method, path, data, f"answered {status}", body, why)
        if changed and (method != "POST" or status >= 400):
            diff = {t: sorted(set(rows) ^ set(self.before.get(t, []))) for t, rows in after.items()}
            diff = {t: rows for t, rows in diff.items() if rows}
            self.problem(phone, method, path, data, f"answered {status} and changed {diff}"[:2000], "", why)
        if answer.mimetype == "text/html" and MARKUP in body:
            self.problem(phone, method, path, data, "sent the markup back unescaped", "", why)
        if changed:
            self.changes.update(touched(self.before, after))
            self.before = after
        answer.changed = changed
        return answer

    def _data_version(self) -> int:
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    def problem(self, phone, method, path, data, what, detail, why):
        fields = {k: [v if len(v) < 60 else f"{v[:20]}…({len(v)} chars)" for v in data.getlist(k)] for k in data}
        self.problems.append(f"{phone.role}: {method} {path} {fields} ({why}) {what}\n{detail[-3000:]}")

    # -- pages ---------------------------------------------------------------------------------
    def classify(self, url: str) -> tuple[str, str]:
        path = url.partition("?")[0]
        kind = next((k for k, pattern in reversed(KINDS) if re.fullmatch(pattern, path)), "other")
        m = re.match(r"/games/([^/]+)", path)
        if m and kind not in ("new game", "new game options"):
            return kind, self.labels.get(m.group(1), "other game")
        m = re.match(r"/rules/([^/]+)", path)
        return kind, m.group(1) if m else ""

    def visit(self, phone: Phone, url: str, htmx: bool = False) -> None:
        kind, label = self.classify(url)
        key = (url, htmx)
        cap = self.plan.pages_per_kind if label != "other game" else self.plan.other_games
        if key in phone.seen or self.found[phone.role, kind, label, "pages"] >= cap:
            return
        phone.seen[key] = None
        headers = {"HX-Request": "true", "HX-Current-URL": "http://localhost/"} if htmx else {}
        answer = self.ask(phone, "GET", url, headers=headers, why="opening a page")
        if answer is None:
            return
        for k in {label, ""}:
            self.found[phone.role, kind, k, "pages"] += 1
        self.take(phone, url, answer)

    def take(self, phone: Phone, url: str, answer, answered: bool = False) -> None:
        """Follow an answer: its redirect, and for a page its links and forms."""
        if 300 <= answer.status_code < 400 and (target := local(answer.headers.get("Location"))):
            phone.queue.append((target, False))
        if answer.mimetype != "text/html" or answer.status_code >= 300 and answer.status_code not in (409, 422):
            return  # htmx swaps a 409's and a 422's board in (base.html's responseHandling)
        page = read_page(answer.get_data(as_text=True), url)
        kind, label = self.classify(url)
        phone.queue.extend(page.links)
        self.scanned += page.scanned
        if phone.role == "referee":
            phone.queue.extend((u, False) for u, _ in page.scanned)
        token = re.search(r'"X-CSRFToken": "([^"]+)"', answer.get_data(as_text=True))
        phone.csrf = token.group(1) if token else phone.csrf
        for form in page.forms:
            form.kind, form.label, form.gen, form.answered = kind, label, self.gen(form), answered
            if form.htmx and "X-CSRFToken" not in form.headers and phone.csrf:
                # A fragment is swapped into a page, whose <body hx-headers> carries the token.
                form.headers["X-CSRFToken"] = phone.csrf
            # A game's forms are taken for each phone (who may use them differs), others once;
            # those whose route does not depend on the game (sharing, deleting) once in all,
            # if the plan says so. At most so many of one route for one game.
            route, _ = self.classify(form.action)
            scope = label if self.plan.per_game is None or route in self.plan.per_game else ""
            key = (phone.role if GAME.match(form.action) else "anyone", scope, form.key())
            if key in self.keys or self.taken[key[0], route, scope] >= self.plan.forms_per_kind:
                continue
            self.keys.add(key)
            self.taken[key[0], route, scope] += 1
            phone.forms.append(form)
            self.forms_by.setdefault((phone.role, kind), []).append(form)
            for k in {label, ""}:
                self.found[phone.role, kind, k, "forms"] += 1
                self.found[phone.role, kind, k, "fields"] += len(form.names)

    # -- forms ---------------------------------------------------------------------------------
    def run(self, phone: Phone) -> None:
        """Open every page within reach, and fill in every form found."""
        self.phones[phone.role] = phone
        while phone.queue or phone.forms:
            if phone.queue:
                self.visit(phone, *phone.queue.popleft())
                continue
            form = phone.forms.pop(0)
            if form.action == "/games/new" and form.method == "POST":
                self.start_games(form)
            else:
                self.fuzz(phone, form)

    def start_games(self, form: Form) -> None:
        """The new-game form, sent from a phone of its own: every game it starts is kept in
        its session, and a phone keeps 30 games' keys (the crawl's would be pushed out)."""
        starter = self.starter
        answer = self.ask(starter, "GET", form.where, why="the new-game form on another phone")
        again = [f for f in read_page(answer.get_data(as_text=True), form.where).forms if f.key() == form.key()]
        assert again, f"{form.element} is not on {form.where} for another phone"
        again[0].kind, again[0].label = form.kind, form.label
        starter.seen[("/", False)] = None  # its home lists the games it started, names and all
        self.fuzz(starter, again[0])

    def fresh(self, phone: Phone, form: Form) -> Form | None:
        """The form as the page shows it now (the game may have moved on), or None if the
        page no longer has it."""
        if form.gen == self.gen(form):  # its game has not changed since (or it has none)
            return form
        if form.answered:  # a choice or a tally's step: its state is in its fields but the version
            return self.current_version(phone, form)
        # A poll's address carries the version it has seen: ask for the board whatever it is.
        url = re.sub(r"([?&]version=)[^&]*", r"\g<1>-1", form.where)
        answer = self.ask(phone, "GET", url, why="reading the form again")
        if answer is None or answer.status_code != 200 or answer.mimetype != "text/html":
            return None
        forms = read_page(answer.get_data(as_text=True), url).forms
        same = [f for f in forms if f.key() == form.key()]
        # A link's values are the position it leads to: the same link may now carry another.
        shaped = [f for f in forms if f.key()[:3] == form.key()[:3]]
        found = same or (shaped if len(shaped) == 1 else [])
        for again in found[:1]:
            again.kind, again.label, again.gen = form.kind, form.label, self.gen(form)
            again.headers = form.headers | again.headers
            return again
        return None

    def gen(self, form: Form) -> int:
        game = GAME.match(form.action) or GAME.match(form.where)
        return self.changes[game.group(1)] if game else 0

    def current_version(self, phone: Phone, form: Form) -> Form | None:
        game = re.match(r"/games/([^/]+)/", form.action)
        if game is None or "version" not in form.names:
            return form
        url = f"/games/{game.group(1)}"
        answer = self.ask(phone, "GET", url, why="reading the version again")
        if answer is None or answer.status_code != 200:
            return None
        version = read_page(answer.get_data(as_text=True), url).version or ""
        form.fields = [(n, version if n == "version" else v) for n, v in form.fields]
        form.gen = self.gen(form)
        return form

    def send(self, phone: Phone, form: Form, pairs, htmx: bool, why: str, headers=None):
        action = form.action
        if form.method == "POST" and re.fullmatch(r"/games/[^/]+/delete", action) and phone.role == "referee":
            action = f"/games/{self.throwaway(phone)}/delete"  # the crawl keeps its games
        self.submissions += 1
        headers = headers if headers is not None else list(form.headers.items()) if htmx else []
        answer = self.ask(phone, form.method, action, pairs, headers, why)
        if answer is not None and action != form.action and answer.changed:
            self._throwaway = None
        return answer

    def values(self, form: Form, name: str) -> list[tuple[str, object]]:
        """What to send in place of field ``name``: every hostile value, or in a bounded crawl
        the next few in turn (over the whole crawl each is sent many times), and random ones."""
        if self.plan.hostile_per_field is None:
            chosen = list(HOSTILE)
        else:
            chosen = [HOSTILE[(self._turn + i) % len(HOSTILE)] for i in range(self.plan.hostile_per_field)]
            self._turn += self.plan.hostile_per_field
            # Each box also gets the value sharpest for its kind: a name is shown on other pages
            # (markup), a number is stored (one beyond 64 bits).
            sharpest = [HOSTILE_TEXT] if name in form.texts else [HOSTILE_NUMBER] if name in form.numbers else []
            chosen += [v for v in sharpest if v not in chosen]
        offered = form.offered.get(name, []) + form.buttons.get(name, [])
        return chosen + [("random", random_value(self.rng, offered)) for _ in range(self.plan.random_per_field)]

    def fuzz(self, phone: Phone, form: Form) -> None:
        """The form's default submission (and each named button's), then each field in turn
        replaced by what :meth:`values` gives, the other fields as the page filled them."""
        began, asked = time.perf_counter(), self.requests
        self._fuzz(phone, form)
        self.cost[phone.role, form.kind, "seconds"] += time.perf_counter() - began
        self.cost[phone.role, form.kind, "requests"] += self.requests - asked

    def _fuzz(self, phone: Phone, form: Form) -> None:
        defaults = [None, *form.buttons] if not form.needs_button else list(form.buttons)
        for button in defaults:
            current = self.fresh(phone, form)
            if current is None:
                self.vanished.append(form)
                return
            answer = self.send(phone, current, current.default(button), current.htmx, "as the page fills it")
            if answer is not None:
                self.take(phone, current.action, answer, answered=current.method == "POST")
            if current.htmx and current.plain and button is None:
                self.send(phone, current, current.default(button), False, "as the page fills it, without htmx")
        # The CSRF token htmx sends from <body hx-headers> is a field too, where it is checked.
        names = form.names + (["X-CSRFToken"] if "X-CSRFToken" in form.headers and form.method == "POST" else [])
        for name in names:
            for what, value in self.values(form, name):
                current = self.fresh(phone, form)
                if current is None:
                    self.vanished.append(form)
                    return
                button = name if name in current.buttons else None
                pairs, headers = current.default(button), list(current.headers.items())
                if name == "X-CSRFToken":  # no client can put a line break in a header
                    headers = [
                        (n, re.sub(r"[\r\n]", " ", v)) for n, v in substitute(headers, name, sized(value, "GET"))
                    ]
                else:
                    pairs = substitute(pairs, name, sized(value, current.method))
                answer = self.send(phone, current, pairs, current.htmx, f"{name}: {what}", headers)
                self.sent[what] += 1
                if answer is not None and answer.changed and 300 <= answer.status_code < 400:
                    self.follow(phone, answer)

    def follow(self, phone: Phone, answer) -> None:
        """Open where an accepted submission leads, as the browser does (a new game's page
        shows the names it was given: they must come back escaped)."""
        target = local(answer.headers.get("Location"))
        if target:
            phone.seen[(target, False)] = None
            self.ask(phone, "GET", target, why="following an accepted submission")

    def throwaway(self, phone: Phone) -> str:
        """A game the crawl may delete: started through the new-game form."""
        if self._throwaway is None:
            self._throwaway = start_game(self, phone, "tablanette", ["Del", "Ete"])
            self.labels[self._throwaway] = "throwaway"
        return self._throwaway

    def revisit(self, phone: Phone) -> None:
        """Open every page the phone opened once more, after all that was sent: a name or a
        value that was accepted must not break a page, nor come back unescaped."""
        for url, htmx in list(phone.seen):
            headers = {"HX-Request": "true"} if htmx else {}
            self.ask(phone, "GET", re.sub(r"([?&]version=)[^&]*", r"\g<1>-1", url), headers=headers, why="again")

    def replay(self, visitor: Phone) -> None:
        """Every form of a referee's that changes a game, sent by a phone that is not one
        (with its own CSRF token): each must be refused, and change nothing."""
        for (role, _), forms in self.forms_by.items():
            for form in forms:
                if role != "referee" or form.method != "POST" or form.kind == "join":
                    continue
                if not re.match(r"/games/(?!new)[^/]+/", form.action):
                    continue
                pairs = [(n, visitor.csrf if n == "csrf_token" else v) for n, v in form.default()]
                headers = form.headers | ({"X-CSRFToken": visitor.csrf} if form.htmx else {})
                answer = self.ask(visitor, "POST", form.action, pairs, headers, "a referee's form from a watcher")
                self.replayed += 1
                if answer is not None and answer.status_code != 403:
                    refused = f"answered {answer.status_code}, not 403"
                    self.problem(visitor, "POST", form.action, MultiDict(pairs), refused, "", "a referee's form")

    def report(self) -> str:
        seconds = time.perf_counter() - self.started
        kinds = sorted({(r, k) for r, k, label, _ in self.found if label == ""} | {(r, k) for r, k, _ in self.cost})
        lines = [
            f"{self.requests} requests ({self.submissions} submissions) in {seconds:.1f} s, seed {self.plan.seed}; "
            f"{len(self.vanished)} forms left the page before they were done"
        ]
        for role, kind in kinds:
            counts = {w: self.found[role, kind, "", w] for w in ("pages", "forms", "fields")}
            cost = f"; {self.cost[role, kind, 'requests']} requests in {self.cost[role, kind, 'seconds']:.1f} s"
            lines.append(f"  {role:8} {kind:17} " + ", ".join(f"{n} {w}" for w, n in counts.items()) + cost)
        return "\n".join(lines)


# -- starting the games the crawl walks -------------------------------------------------------


def start_game(crawl: Crawl, phone: Phone, game: str, players: list[str]) -> str:
    """Start ``game`` through the new-game page's form, as the referee's phone does."""
    answer = crawl.ask(phone, "GET", f"/games/new?game={game}", why="starting a game")
    forms = read_page(answer.get_data(as_text=True), "/games/new").forms
    form = next(f for f in forms if f.action == "/games/new" and f.method == "POST")
    pairs = [(n, v) for n, v in form.default() if not n.startswith("player")]
    pairs += [(f"player{i}", name) for i, name in enumerate(players)]
    answer = crawl.ask(phone, "POST", form.action, pairs, why="starting a game")
    assert answer is not None and answer.status_code == 303, (game, answer and answer.get_data(as_text=True))
    return answer.headers["Location"].rsplit("/", 1)[1]


def move_fields(move: dict) -> list[tuple[str, str]]:
    """A move as the game page's forms post it (lists as ``name[]``)."""
    out: list[tuple[str, str]] = []
    for name, value in move.items():
        if isinstance(value, list):
            out += [(f"{name}[]", str(v)) for v in value]
        else:
            out.append((name, str(value)))
    return out


def play_move(crawl: Crawl, phone: Phone, game_id: str, move: dict) -> None:
    """Enter ``move`` through the game page's move form (htmx, as a tap sends it)."""
    url = f"/games/{game_id}"
    answer = crawl.ask(phone, "GET", url, why="playing a move")
    forms = [f for f in read_page(answer.get_data(as_text=True), url).forms if f.action.endswith("/moves")]
    assert forms, f"no move form on {url}"
    form = forms[0]
    pairs = [(n, v) for n, v in form.fields if n not in move and f"{n[:-2]}" not in move]
    answer = crawl.ask(phone, "POST", form.action, pairs + move_fields(move), form.headers, "playing a move")
    assert answer is not None and answer.status_code == 200 and answer.changed, (move, answer and answer.status_code)


def join(crawl: Crawl, phone: Phone, game_id: str, edit_key: str) -> None:
    """Become a referee of a game started elsewhere: a one-use link, opened and its button tapped."""
    made = phone.client.post(f"/api/games/{game_id}/links", json={"kind": "add"}, headers={"X-Edit-Key": edit_key})
    crawl.before, crawl.data_version = snapshot(crawl.app), crawl._data_version()
    url = local(made.get_json()["url"])
    answer = crawl.ask(phone, "GET", url, why="joining a game")
    form = next(f for f in read_page(answer.get_data(as_text=True), url).forms if f.action.endswith("/join"))
    answer = crawl.ask(phone, "POST", form.action, form.default(), why="joining a game")
    assert answer is not None and answer.status_code == 303, answer and answer.status_code
