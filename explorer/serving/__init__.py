"""Serving: the machinery and bounds that keep a public server fair and alive. ``limits`` holds every bound;
``request`` the validated ``Request`` and ``UserError``; ``store`` the bounded analysis store and the model gate;
``batcher`` greedy decodes that wait together run as one batch; ``memory`` the allocator's arenas; ``priority``
redraw-only views wait for running translations; ``fair_queue`` Gradio's queue with a few long requests per client;
``listeners`` and ``edges`` result streams counted and requests the app never needs refused; ``static_cache`` static
files compressed once; ``blocks`` lean sessions; ``exports`` export files that never pile up. It imports nothing from
the other parts of explorer (only model, gradio and libraries), so every part may build on it.
"""
