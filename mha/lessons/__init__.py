"""What each page teaches, as numbers: explain steps, heads' patterns, the Bug zoo, the course, induction heads.
May import ``mha.weights``, ``mha.core`` and ``mha.strings``; never Streamlit, charts or the app."""
