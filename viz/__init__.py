"""Pure views of the model: arrays and tokens in, a plotly Figure or an HTML string out.

Nothing here runs the model or reads a file; every function can be tested on its own.
"""
