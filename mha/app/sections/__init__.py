"""Each page (``sections/<name>.py``'s ``page()``, decorated by ``frame.page``; ``pages/<name>.py`` only calls it) with
its pieces, and pieces shared by pages. Streamlit glue; may import every other part of ``mha``."""
