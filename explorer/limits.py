"""Limits enforced on the server (a Textbox max_length is only a hint to the browser)."""

import os

MAX_CHARS = 300  # characters of input text
MAX_SOURCE_TOKENS = 80  # after tokenization
MAX_BEAM = 8
MAX_OUTPUT_TOKENS = 100  # decoding steps
MAX_TEMPERATURE = 5.0
MAX_TOP_K = 200
MAX_PE_LENGTH = 200
QUEUE_SIZE = 64  # waiting requests beyond this are refused with "queue full"
CONCURRENCY = int(os.environ.get("ATTENTION_EXPLORER_CONCURRENCY", "2"))  # events at once: one per core
ANALYSIS_CACHE = 64  # recent analyses kept so that every tab of one request reuses one decode
