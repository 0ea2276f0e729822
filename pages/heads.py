"""Heads: measure every head, compare two, switch some off, see q and k together, order and seeds.

The page is ``mha.app.sections.heads.page`` (the sections' numbers from ``mha.lessons.heads``, pure and tested,
their figures from ``mha.charts.heads``). Only the open section is computed; it is part of the link:
``/heads?hd_section=ablate``.
"""
from mha.app.sections.heads import page

page()
