"""Check your code: a learner's MultiHeadAttention beside the course's module, on the sidebar's sentence; the first
step that differs, the shape trace, the bug by name and its fix.

The page is ``mha.app.sections.check.page``; the code runs in the sandboxed worker (``mha.check``).
"""
from mha.app.sections.check import page

page()
