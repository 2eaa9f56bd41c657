"""Training: corpora and mixing, the tokenizer, the training loop (one process or DDP), resume points, averaging,
compression and evaluation. Serving (model/, explorer/, app.py) never imports this package."""
