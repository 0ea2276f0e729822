"""Scaling & softmax lab: why the course divides by √head_dim, measured on the learner's sentence and on random q, k.

The page is ``mha.app.sections.lab.page``."""
from mha.app.sections.lab import page

page()
