"""Limits enforced on the server (a Textbox max_length is only a hint to the browser), and resource bounds."""

import os

MAX_CHARS = 300  # characters of input text
MAX_SOURCE_TOKENS = 80  # after tokenization
MAX_BEAM = 8
MAX_OUTPUT_TOKENS = 100  # decoding steps
MAX_TEMPERATURE = 5.0
MAX_TOP_K = 200
MAX_PE_LENGTH = 200
MAX_NO_REPEAT_NGRAM = 6  # no_repeat_ngram_size: 0 = off
MAX_REPETITION_PENALTY = 3.0  # repetition_penalty: 1 = off

# One slot per core for all model work, whichever event or endpoint asks (explorer.serving.store.model_slot),
# and the same number as Gradio's concurrency limit of the shared "model" concurrency group.
MODEL_SLOTS = int(os.environ.get("ATTENTION_EXPLORER_CONCURRENCY", str(min(os.cpu_count() or 2, 8))))
# Translate events run this many at once (their own concurrency group): their greedy decodes wait together and
# run as one batch of up to DECODE_BATCH (explorer/serving/batcher.py); the model work inside still passes MODEL_SLOTS.
TRANSLATE_SLOTS = 8
DECODE_BATCH = 8
# The queue counts events, not people: a student's Translate is one event and each tab opened one more.
MAX_STUDENTS = 200
QUEUE_SIZE = MAX_STUDENTS * 4  # events waiting; a class of 100 clicking at once queues, never "Queue is full"
# Short work waiting, per page (a session: a Translate and the views it draws are a few at once) and per address (a
# class behind one school address fits): one visitor's flood of events never fills the queue for everyone else (helper
# 30: one client's 10 loops kept Gradio's 800 places full, 37 of 38 honest requests "Queue is full"). A full queue
# makes room for a newcomer by refusing the newest event of the address that holds the most.
SHORT_PER_CLIENT = 24
SHORT_PER_ADDRESS = QUEUE_SIZE // 4
SESSION_CAPACITY = 16  # Gradio keeps each session's last output values in memory; the oldest sessions go first (the
# page keeps its own state and every event sends what it needs, so a session evicted mid-class loses nothing)

# Long work (attribution, patching, attention through training) has its own concurrency group and queue rules
# (explorer/serving/fair_queue.py); its model work yields to short work between chunks (explorer/serving/store.py).
LONG_SLOTS = MODEL_SLOTS
LONG_PER_CLIENT = 3  # long requests one client may have waiting or running
# ... and one address (every session it opens: a fresh session_hash per call made each a new client); a class behind
# one school address pressing Attribute together fits, one visitor's flood does not take the whole queue
LONG_PER_ADDRESS = 24
LONG_QUEUE = 240  # long requests waiting in all (a class of 60 pressing Attribute twice fits)
MAX_IG_WORK = 150_000  # integrated gradients: steps x German pieces x all pieces (explorer/api/beyond.check_work)
UNHEARD_GRACE_S = 5.0  # a long request posted over plain HTTP whose result nobody opened after this is dropped

ANALYSIS_CACHE = 64  # recent analyses kept so that every tab of one translation reuses one decode
ANALYSIS_CACHE_BYTES = 96 * 2**20  # ... and at most this many bytes of captured tensors
EXPORT_TTL_S = float(os.environ.get("ATTENTION_EXPLORER_EXPORT_TTL", "60"))  # exports are deleted after this
EXPORT_MAX_BYTES = 128 * 2**20  # all exports on disk together (one is 1-4 MB): the oldest go first
STATUS_EVERY_S = 1.0  # how often a waiting page hears its queue position
QUEUE_POLL_S = 0.01  # how often Gradio's queue loop looks for an event it can start when it has none
# Attention through training keeps each snapshot's cross-attention of every layer for this many recent requests:
# at most 8 snapshots x 3 layers x 4 heads x 101 x 80 float32 = 3.1 MB a request at the longest, so 25 MB in all.
TRAINING_VIEW_CACHE = 8
