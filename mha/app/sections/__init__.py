"""The sections of each page (``pages/<name>.py`` draws ``sections/<name>.py``'s pieces), and pieces shared by pages.
Streamlit glue; may import every other part of ``mha``."""
