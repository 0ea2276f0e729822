"""Check your code: a learner's MultiHeadAttention run in a sandboxed worker and compared step by step with ours.
Pure: imports torch, ``mha.lessons`` (the Bug zoo's bugs), ``mha.core``; never Streamlit; its messages are keys."""
