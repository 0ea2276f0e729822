"""Masks: the mask, the masked scores and the weights for none / causal / padding / both / your own mask; a query
with nothing to attend to; the two boolean conventions; a live check against PyTorch.

The page is ``mha.app.sections.masks.page``; masks and masked attention come from ``mha.weights.batch``, the
comparison with torch from ``mha.weights.torch_check``.
"""
from mha.app.sections.masks import page

page()
