"""In-page components: each a ``.py`` beside its own ``.js`` and ``.css`` (read by ``component.in_page``).
Streamlit glue; may import every layer below ``mha.app``, never a page section."""
