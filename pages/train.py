"""Train: train the course's MultiHeadAttention on a small copying task, live, and watch its heads specialise on the
learner's own sentence. The page is ``mha.app.sections.train.page`` (the live UI ``mha.app.sections.live``)."""
from mha.app.sections.train import page

page()
