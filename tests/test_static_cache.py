"""explorer/serving/static_cache.py: each static file compressed once, served the same as Gradio would serve it."""

import asyncio
import gzip

import brotli

from explorer.serving.static_cache import MIN_SIZE, StaticCache

BODY = ("console.log('attention');\n" * 400).encode()


class Files:
    """A tiny ASGI app standing in for Gradio's static routes; counts how often it is asked."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope, receive, send) -> None:
        self.calls += 1
        path = scope["path"]
        status, body = (200, BODY) if path.endswith(".js") else (404, b"not found")
        if path.endswith(".woff2"):
            status, body = 200, bytes(range(256)) * 8
        headers = [(b"content-type", b"text/javascript"), (b"etag", b'"abc"'), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        half = len(body) // 2  # in two chunks, as a streamed file response sends it
        await send({"type": "http.response.body", "body": body[:half], "more_body": True})
        await send({"type": "http.response.body", "body": body[half:]})


def get(app, path: str, client: str = "10.0.0.1", **headers: str) -> tuple[int, dict, bytes]:
    path, _, query = path.partition("?")
    scope = {"type": "http", "method": "GET", "path": path, "query_string": query.encode(), "client": (client, 5000),
             "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]}
    out: dict = {}
    body: list[bytes] = []

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        if message["type"] == "http.response.start":
            out.update(status=message["status"], headers={k.decode(): v.decode() for k, v in message["headers"]})
        else:
            body.append(message.get("body", b""))

    asyncio.run(app(scope, receive, send))
    return out["status"], out["headers"], b"".join(body)


def test_compressed_once_and_identical_after_decompression():
    files = Files()
    app = StaticCache(files)
    for _ in range(3):
        status, headers, body = get(app, "/assets/index.js", accept_encoding="gzip, deflate, br, zstd")
        assert status == 200 and headers["content-encoding"] == "br" and brotli.decompress(body) == BODY
        assert int(headers["content-length"]) == len(body) and headers["etag"] == '"abc"'
    assert files.calls == 1 and app.hits == 2
    status, headers, body = get(app, "/assets/index.js", accept_encoding="gzip")
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == BODY
    status, headers, body = get(app, "/assets/index.js")
    assert "content-encoding" not in headers and body == BODY
    assert files.calls == 3  # one per encoding


def test_conditional_request_gets_304_and_errors_are_not_cached():
    files = Files()
    app = StaticCache(files)
    get(app, "/assets/index.js", accept_encoding="br")
    status, _, body = get(app, "/assets/index.js", accept_encoding="br", if_none_match='"abc"')
    assert status == 304 and body == b""
    for _ in range(2):
        status, _, body = get(app, "/assets/missing.css", accept_encoding="br")
        assert status == 404 and body == b"not found"
    assert files.calls == 3  # the 404 asked the app each time, once


def test_binary_files_and_other_paths_pass_as_they_are():
    files = Files()
    app = StaticCache(files)
    status, headers, body = get(app, "/static/fonts/font.woff2", accept_encoding="br")
    assert status == 200 and "content-encoding" not in headers and body == bytes(range(256)) * 8
    get(app, "/gradio_api/queue/data.js", accept_encoding="br")
    get(app, "/gradio_api/queue/data.js", accept_encoding="br")
    assert files.calls == 3  # not a static path: never cached
    assert len(BODY) >= MIN_SIZE


def test_inside_gradios_brotli_middleware_small_and_large_files_stay_whole():
    """Gradio's Brotli middleware (outside ours) compresses a small body itself, editing the response headers in
    place: the cached headers must not change with it (a 200 then announced a length its body did not have)."""
    from gradio.brotli_middleware import BrotliMiddleware

    class Two:
        async def __call__(self, scope, receive, send):
            body = b"a{color:red}" * (38 if scope["path"].endswith("small.css") else 400)
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/css"), (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})

    app = BrotliMiddleware(StaticCache(Two()), quality=4)
    for name, n in (("small", 38), ("large", 400)):  # 456 bytes: Brotli compresses it, we do not
        for _ in range(3):
            status, headers, body = get(app, f"/assets/{name}.css", accept_encoding="br")
            raw = brotli.decompress(body) if headers.get("content-encoding") == "br" else body
            assert status == 200 and raw == b"a{color:red}" * n and int(headers["content-length"]) == len(body)


class Page:
    """Stands in for Gradio's page route: the page names the origin it was asked under; a login sets a cookie."""

    def __init__(self, cookie: bool = False) -> None:
        self.calls, self.cookie = 0, cookie

    async def __call__(self, scope, receive, send) -> None:
        self.calls += 1
        host = dict(scope["headers"]).get(b"host", b"?")
        body = b"<html>" + b"root=http://" + host + b" " + b"x" * 2000 + b"</html>"
        headers = [(b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode())]
        if self.cookie:
            headers.append((b"set-cookie", b"access-token=secret"))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def test_the_page_is_kept_compressed_per_origin():
    page = Page()
    app = StaticCache(page)
    for host in ("a.example", "a.example", "b.example", "a.example"):
        status, headers, body = get(app, "/", host=host, accept_encoding="gzip, br")
        assert status == 200 and headers["content-encoding"] == "br"
        assert brotli.decompress(body).startswith(b"<html>root=http://" + host.encode() + b" ")
    assert page.calls == 2  # one per origin
    get(app, "/", host="a.example", x_forwarded_host="proxy.example", accept_encoding="br")
    assert page.calls == 3  # a proxy names another origin: its own copy


def test_a_page_with_a_cookie_is_never_kept_and_copies_are_bounded():
    from explorer.serving.static_cache import MAX_PAGES

    page = Page(cookie=True)
    app = StaticCache(page)
    for _ in range(2):
        status, headers, _ = get(app, "/", host="a.example", accept_encoding="br")
        assert status == 200 and headers["set-cookie"] == "access-token=secret"
    assert page.calls == 2
    plain = Page()
    app = StaticCache(plain)
    for i in range(MAX_PAGES + 5):  # (each from an address of its own: see the next test)
        get(app, "/", client=f"10.0.1.{i}", host=f"h{i}.example", accept_encoding="br")
    assert app.pages == MAX_PAGES and app.evicted == 5 and plain.calls == MAX_PAGES + 5
    get(app, "/", host=f"h{MAX_PAGES + 4}.example", accept_encoding="br")  # the newest origin: still kept
    assert plain.calls == MAX_PAGES + 5
    get(app, "/", host="h0.example", accept_encoding="br")  # the least recently used went first: asked again
    assert plain.calls == MAX_PAGES + 6 and app.pages == MAX_PAGES


def test_new_host_names_from_one_address_are_built_a_few_times_a_minute_and_never_evict_the_real_origin():
    """Attacker helper 33 asked for the page (and /config) under a new Host or X-Forwarded-Host each time: ~55 ms of
    server CPU a request, honest Translate 4-9 s. One address now has at most NEW_PAGES_PER_MIN copies built a
    minute (then 429; a kept copy is always served), and the page kept with the fewest visits goes first."""
    from explorer.serving.static_cache import MAX_PAGES, NEW_PAGES_PER_MIN

    page = Page()
    app = StaticCache(page)
    for _ in range(5):  # the real origin, visited by a class
        assert get(app, "/", host="space.example", accept_encoding="br")[0] == 200
    statuses = [get(app, path, client="6.6.6.6", host=f"x{i}.example", accept_encoding="br")[0]
                for i in range(3 * NEW_PAGES_PER_MIN) for path in ("/", "/config")]
    assert statuses.count(200) == NEW_PAGES_PER_MIN and statuses.count(429) == 5 * NEW_PAGES_PER_MIN
    assert page.calls == 1 + NEW_PAGES_PER_MIN and app.pages == min(MAX_PAGES, 1 + NEW_PAGES_PER_MIN)
    status, _, body = get(app, "/", client="6.6.6.7", host="space.example", accept_encoding="br")
    assert status == 200 and brotli.decompress(body).startswith(b"<html>root=http://space.example ")
    assert page.calls == 1 + NEW_PAGES_PER_MIN  # still kept: served, not built again
    status, _, _ = get(app, "/", client="6.6.6.6", host="space.example", accept_encoding="br")
    assert status == 200  # a kept copy is served to the held address too


def test_every_link_of_one_origin_shares_one_copy_of_the_page():
    """A link's query string is read by the page itself: 40 different links cost Gradio one page build, where a
    cache keyed on the whole URL filled up after 16 and then built the page for every new link."""
    from urllib.parse import quote

    page = Page()
    app = StaticCache(page)
    for i in range(40):
        status, headers, body = get(app, f"/?text={quote(f'Dog number {i} runs.')}&tab=steps&step={i % 5}",
                                    host="a.example", accept_encoding="br")
        assert status == 200 and brotli.decompress(body).startswith(b"<html>root=http://a.example ")
    assert page.calls == 1 and app.hits == 39 and app.pages == 1


def test_static_files_are_evicted_least_recently_used_first_within_the_byte_bound(monkeypatch):
    from explorer.serving import static_cache

    files = Files()
    app = StaticCache(files)
    one = len(get(app, "/assets/0.js", accept_encoding="br")[2])
    monkeypatch.setattr(static_cache, "MAX_BYTES", one * 3)
    for name in ("1", "2", "0", "3"):  # 0 used again before 3 arrives: 1 is the least recently used
        get(app, f"/assets/{name}.js", accept_encoding="br")
    assert app.size <= one * 3 and app.evicted == 1
    calls = files.calls
    get(app, "/assets/0.js", accept_encoding="br")
    assert files.calls == calls  # kept
    get(app, "/assets/1.js", accept_encoding="br")
    assert files.calls == calls + 1  # evicted, asked again
