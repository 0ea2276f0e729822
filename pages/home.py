"""Home: what this is, the guided path first, then a first step (the course's sentence in the Playground), a
picture, and where to go. The page is ``mha.app.sections.home.page``."""
from mha.app.sections.home import page

page()
