"""Share & export: the current view as JSON / .npz / CSV, the module's parameters as .pt, and your own in.

The page is ``mha.app.sections.share.page``."""
from mha.app.sections.share import page

page()
