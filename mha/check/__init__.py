"""Check your code: a learner's MultiHeadAttention run in a sandboxed worker and compared step by step with ours.
Pure: imports torch and mha core, never Streamlit."""
