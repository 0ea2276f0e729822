"""Playground: scores, weights and every head's output for the learner's sentence, live.

The page is ``mha.app.sections.playground.page``."""
from mha.app.sections.playground import page

page()
