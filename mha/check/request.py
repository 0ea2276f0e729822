"""What the learner gave the check (``Request``: the input, sizes, mask, seed, head, their code's lines) and what
was found to check in their code (``Target``: a class or a function and how it is called). Plain data that every
module of ``mha.check`` reads; ``mha.check.diagnose`` builds them (``parse_request``, ``find_target``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import torch


@dataclass
class Request:
    x: torch.Tensor  # (1, T, d_model) float32
    d_model: int
    num_heads: int
    allowed: Optional[torch.Tensor]  # (T, T) bool, True = may attend; None = no mask
    seed: int
    head: Optional[int]
    lines: list  # the learner's source lines (1-based: lines[0] is line 1), or [] if unknown

    @property
    def tokens(self) -> int:
        return self.x.size(1)

    @property
    def head_dim(self) -> int:
        return self.d_model // self.num_heads


@dataclass
class Target:
    kind: str  # "class" | "function"
    obj: Any
    name: str
    swapped: bool = False  # constructor takes (num_heads, d_model)
    order: str = "qkv"  # forward's tensors: "qkv" (the course), "vkq" (the second seed), "x" (self-attention only)
    mask_name: Optional[str] = None  # the forward's mask parameter, if it takes one
    mask_positional: bool = True
    dim_name: str = "d_model"  # the constructor's name for d_model (for fixes written in their words)
    mask_required: bool = False  # the mask parameter has no default: pass None for "no mask"
