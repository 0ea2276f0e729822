"""Tokens to tensors: deterministic embeddings, sinusoidal positions, seeded weights.

Pure torch. Nothing here depends on Python's salted ``hash()``: the same token, seed and d_model give the same
vector in every process and on every machine.
"""
from __future__ import annotations

import hashlib
import math

import torch


def _token_seed(token: str, seed: int, d_model: int) -> int:
    digest = hashlib.blake2b(f"{seed}\x1f{d_model}\x1f{token}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") & 0x7FFF_FFFF_FFFF_FFFF


def embed_tokens(tokens, d_model: int, seed: int = 0, dtype=torch.float32) -> torch.Tensor:
    """(T, d_model): a fixed random vector per distinct token string (unit variance per feature), reproducible
    across processes and machines. The same word at two positions gets the same vector: positions tell them apart."""
    vectors = {}
    for tok in tokens:
        if tok not in vectors:
            g = torch.Generator().manual_seed(_token_seed(tok, seed, d_model))
            vectors[tok] = torch.randn(d_model, generator=g, dtype=torch.float64)
    return torch.stack([vectors[t] for t in tokens]).to(dtype) if tokens else torch.zeros(0, d_model, dtype=dtype)


def sinusoidal_positions(seq_len: int, d_model: int, dtype=torch.float32) -> torch.Tensor:
    """(T, d_model) sinusoidal positional encoding from 'Attention Is All You Need' (works for odd d_model too)."""
    pos = torch.arange(seq_len, dtype=torch.float64).unsqueeze(1)  # (T, 1)
    i = torch.arange(0, d_model, 2, dtype=torch.float64)  # even feature indices
    angle = pos / torch.pow(10000.0, i / d_model)  # (T, ceil(D/2))
    pe = torch.zeros(seq_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return pe.to(dtype)


def token_inputs(tokens, d_model: int, seed: int = 0, positional: bool = True, dtype=torch.float32) -> torch.Tensor:
    """(T, d_model) model input: token embeddings, plus sinusoidal positions when ``positional``."""
    x = embed_tokens(tokens, d_model, seed, dtype=torch.float64)
    if positional:
        x = x + sinusoidal_positions(len(tokens), d_model)
    return x.to(dtype)


def init_weights(module: torch.nn.Module, seed: int) -> torch.nn.Module:
    """Re-initialise every parameter of ``module`` (for MultiHeadAttention: the four nn.Linear weights and the output
    bias) like PyTorch's nn.Linear default, U(-1/sqrt(fan_in), 1/sqrt(fan_in)), in name order, from a private
    generator: reproducible for a seed and safe under threads (the global RNG is never touched)."""
    g = torch.Generator().manual_seed(int(seed))
    with torch.no_grad():
        for _name, p in sorted(module.named_parameters()):  # in name order
            fan_in = p.size(-1) if p.dim() > 1 else p.size(0)
            bound = 1.0 / math.sqrt(fan_in)
            p.copy_(torch.empty(p.shape, dtype=torch.float64).uniform_(-bound, bound, generator=g).to(p.dtype))
    return module
