"""Multi-head attention, as taught in the course, with every intermediate exposed: ``from mha import
MultiHeadAttention`` gives the core's public names (``mha.core``); the layers are the subpackages (``.importlinter``).
No Streamlit here (except the subpackage ``mha.app``, the app's Streamlit layer; ``tests/unit/test_layers.py``)."""
from mha.core.attention import (
    AttentionSteps,
    AttentionTrace,
    MultiHeadAttention,
    attention_steps,
    scaled_dot_product_attention,
)
from mha.core.inputs import embed_tokens, init_weights, sinusoidal_positions, token_inputs
from mha.core.masks import (
    causal_mask,
    combine_masks,
    from_additive_mask,
    from_torch_attn_mask,
    padding_mask,
    to_torch_attn_mask,
)
from mha.core.tokens import TextError, Tokens, display_labels, safe_label, tokenize

__all__ = [
    "AttentionSteps", "AttentionTrace", "MultiHeadAttention", "attention_steps", "scaled_dot_product_attention",
    "causal_mask", "combine_masks", "from_additive_mask", "from_torch_attn_mask", "padding_mask", "to_torch_attn_mask",
    "TextError", "Tokens", "display_labels", "embed_tokens", "init_weights", "safe_label", "sinusoidal_positions",
    "token_inputs", "tokenize",
]
