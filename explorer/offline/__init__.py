"""The offline bundle: ``python -m explorer.offline OUT/`` writes a folder of static files (a page, the JS model of
``explorer/browser_model``, one checkpoint's weights, plotly, the catalogues) that translates and draws its views with
no server, opened from ``file://`` or any static host: what a teacher copies onto tablets for a lesson with no
network. ``bundle`` builds it (ES modules turned into one classic script, files inlined as base64, since a page opened
from ``file://`` may neither fetch nor import); ``static/`` holds the page and its own scripts. It may import
explorer.serving (the limits); it reads the browser model's JS modules and the page's classic scripts as files."""
