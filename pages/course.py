"""Follow the course (강의 따라가기): the course's questions one step at a time, on the learner's sentence.

The step is in the link (``/course?step=3``): a teacher can send any step. The page is
``mha.app.sections.course.page``, the steps and their answers in ``mha.lessons.course``."""
from mha.app.sections.course import page

page()
