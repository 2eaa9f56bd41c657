"""Attention Explorer: a Gradio page over our English->German Transformer.

    python app.py        # http://127.0.0.1:7860 (GRADIO_SERVER_NAME / GRADIO_SERVER_PORT honoured)

This first version translates and shows the tokens; the explorer's views arrive with viz/.
app.py only wires components to functions.
"""

from __future__ import annotations

import html

import gradio as gr
import torch

from model.translator import DecodeOptions, load_pretrained

MAX_CHARS = 500


def translate(text: str) -> tuple[str, str]:
    if not text or not text.strip():
        raise gr.Error("Type an English sentence first.")
    if len(text) > MAX_CHARS:
        raise gr.Error(f"Please keep the sentence under {MAX_CHARS} characters (got {len(text)}).")
    a = load_pretrained("en-de").analyze(text, DecodeOptions())
    chips = " ".join(f"<code>{html.escape(t)}</code>" for t in a.src_tokens)
    return a.translation, f"<p>Source pieces: {chips}</p>"


def build() -> gr.Blocks:
    with gr.Blocks(title="Attention Explorer") as demo:
        gr.Markdown("# Attention Explorer\nType an English sentence; a small Transformer translates it to German.")
        text = gr.Textbox(label="English", value="A dog is running in the snow.", max_lines=3)
        go = gr.Button("Translate", variant="primary")
        out = gr.Textbox(label="German")
        pieces = gr.HTML()
        go.click(translate, text, [out, pieces], api_name="translate")
        demo.load(translate, text, [out, pieces])
    return demo


if __name__ == "__main__":
    torch.set_num_threads(2)
    build().queue(default_concurrency_limit=2, max_size=64).launch()
