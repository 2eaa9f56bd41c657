"""The explorer's server side, in five parts, and the offline bundle made from them; app.py wires the five to Gradio.

- ``explorer.serving``: the machinery and bounds that keep a public server fair and alive (requests, the analysis
  store and its model gate, the queue, limits, edges, static files, exports).
- ``explorer.api``: what one call computes and returns: the public API (``endpoints``) and its handlers.
- ``explorer.page``: the Gradio page: its tabs, its private events (``ui``), its texts, the browser's scripts and
  styles (``page/static/``).
- ``explorer.classroom``: class rooms: a teacher, students and the streams between them (``classroom/static/``).
- ``explorer.browser_model``: the model in the browser: the forward pass and tokenizer in JavaScript
  (``browser_model/static/``), the route that serves them and the weights, and their parity with PyTorch.
- ``explorer.offline``: ``python -m explorer.offline OUT/``, a folder of static files that translates and draws its
  views with no server (the browser model's modules and the page's classic scripts, read as files).

The words a person reads live below explorer and viz both, in the top-level ``i18n`` package (viz's figures speak
them too). Imports point down only: page -> api -> serving; classroom -> serving; browser_model -> serving;
offline -> serving; every part (and viz) may import i18n, which imports none of them (tests/test_layout.py checks it).
"""
