"""The names of the model's hook points and special pieces, built in one place (plain strings: no torch, so viz may import it).

    act_name("cross", 1, "weights")  -> "decoder.layers.1.cross_attn.weights"   (B, H, T, S)
    act_name("encoder", 0, "z")      -> "encoder.layers.0.self_attn.z"          (B, H, S, d_k)
    act_name("decoder", 2, "out")    -> "decoder.layers.2.out"                  (B, T, D) residual stream after the layer
    act_name("encoder", None, "out") -> "encoder.out"                           (B, S, D) the encoder's output (memory)

``kind`` is an attention kind: "encoder" (encoder self-attention), "decoder" (masked decoder
self-attention) or "cross" (decoder cross-attention). For the per-layer hooks that are not attention
("out", "hidden"), "encoder" and "decoder" name the stack and "cross" means the decoder.
"""

from __future__ import annotations

SPECIAL_PIECES = ("<pad>", "<unk>", "<s>", "</s>")  # the pieces of the tokenizer's PAD, UNK, BOS and EOS (ids 0-3)

# attention kind -> (stack, attention block inside a layer)
KINDS: dict[str, tuple[str, str]] = {
    "encoder": ("encoder", "self_attn"),
    "decoder": ("decoder", "self_attn"),
    "cross": ("decoder", "cross_attn"),
}
# hooks inside an attention block; "attn_out" is the block's own "out" (after W_O)
ATTENTION_HOOKS = ("q", "k", "v", "scores", "weights", "z", "attn_out")
LAYER_HOOKS = ("out", "hidden")  # the layer's output (residual stream) and the feed-forward's hidden layer
TOP_HOOKS = ("src_embed", "src_pos", "tgt_embed", "tgt_pos", "logits")


def block_name(kind: str, layer: int) -> str:
    """The attention block of ``kind`` in ``layer``: "decoder.layers.0.cross_attn"."""
    if kind not in KINDS:
        raise ValueError(f"attention kind must be one of {sorted(KINDS)}, not {kind!r}")
    if isinstance(layer, bool) or not isinstance(layer, int) or layer < 0:
        raise ValueError(f"layer must be an int >= 0, not {layer!r}")
    stack, attn = KINDS[kind]
    return f"{stack}.layers.{layer}.{attn}"


def act_name(kind: str, layer: int | None = None, what: str = "out") -> str:
    """The hook name of ``what`` in ``layer`` of ``kind`` (see the module's docstring); ``layer=None`` names the
    stack's own hook ("encoder.out", "decoder.out")."""
    if kind in TOP_HOOKS and layer is None:
        return kind
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {sorted(KINDS)} (or {', '.join(TOP_HOOKS)}), not {kind!r}")
    if what in ATTENTION_HOOKS:
        if layer is None:
            raise ValueError(f"{what!r} is a hook of an attention block: give a layer")
        return f"{block_name(kind, layer)}.{'out' if what == 'attn_out' else what}"
    if what not in LAYER_HOOKS:
        raise ValueError(f"what must be one of {ATTENTION_HOOKS + LAYER_HOOKS}, not {what!r}")
    stack = KINDS[kind][0]
    if layer is None:
        if what != "out":
            raise ValueError(f"{what!r} is a hook of a layer: give a layer")
        return f"{stack}.out"
    block_name(kind, layer)  # checks the layer
    return f"{stack}.layers.{layer}.{'ffn.hidden' if what == 'hidden' else 'out'}"
