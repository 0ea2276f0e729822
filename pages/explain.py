"""Step by step: the course's MultiHeadAttention, line by line, on the learner's own sentence and settings.

The page is ``mha.app.sections.explain.page``."""
from mha.app.sections.explain import page

page()
