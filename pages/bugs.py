"""Bug zoo: each bug of mha/lessons/bugs.py on the learner's sentence beside the real module, the difference, the max
error and the test that catches it; and why one head hides the transpose bugs.

The page is ``mha.app.sections.bugs.page``; the bugs and their runs come from ``mha.lessons.bugs`` (tested in
tests/unit/test_bugs.py).
"""
from mha.app.sections.bugs import page

page()
