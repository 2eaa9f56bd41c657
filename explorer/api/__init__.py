"""The public API and its handlers: what one call computes and returns. ``endpoints`` holds the public endpoints
(their names, defaults and work groups); ``handlers`` turns a Request into figures, text or bytes (no Gradio);
``beyond`` does the same for attribution, patching and what-if; ``through_training`` shows a sentence through the
training snapshots; ``advice`` what a learner is told before trusting a translation (a loop, low confidence);
``examples`` the fallback example sentences. It may import explorer.serving only (besides model and viz), never the
page or class rooms.
"""
