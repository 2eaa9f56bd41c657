"""The page's tabs, one module each: its layout and the events of its own controls in one place (app.py lays out
the top of the page, calls each tab's ``build`` in order, and wires what crosses tabs: Translate, links, drawing)."""
