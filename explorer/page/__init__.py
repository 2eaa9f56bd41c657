"""The Gradio page: ``tabs/`` (one module per tab: its layout and the events of its own controls), ``ui`` (the page's
private server events), ``texts`` (the words for a learner) and ``static/`` (the views, links, lesson, presentation
and diagram the browser draws itself, and the page's styles, style.css). It may import explorer.api and
explorer.serving, never the class rooms (app.py wires those).
"""
