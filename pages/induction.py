"""Induction: two layers of the course's MultiHeadAttention grow an induction head, live; then the learner's own
text repeated shows the previous-token diagonal (layer 1) and the induction stripe (layer 2), and switching the
layer-1 head off removes the stripe. The page is ``mha.app.sections.induction.page`` (the live UI
``mha.app.sections.live``). (No ``st.stop()``: the frame's link checks run after the page.)"""
from mha.app.sections.induction import page

page()
