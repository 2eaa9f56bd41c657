"""The explorer's server side, in five parts; app.py wires them to Gradio.

- ``explorer.serving``: the machinery and bounds that keep a public server fair and alive (requests, the analysis
  store and its model gate, the queue, limits, edges, static files, exports).
- ``explorer.api``: what one call computes and returns: the public API (``endpoints``) and its handlers.
- ``explorer.page``: the Gradio page: its tabs, its private events (``ui``), its texts, the browser's scripts and
  styles (``page/static/``).
- ``explorer.classroom``: class rooms: a teacher, students and the streams between them (``classroom/static/``).
- ``explorer.i18n``: the words a person reads, one catalogue per language, and text made in the reader's language.

Imports point down only: page -> api -> serving -> i18n; classroom -> serving; every part may import i18n, which
imports no other part
(tests/test_layout.py checks it).
"""
