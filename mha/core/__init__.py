"""The core: the course's MultiHeadAttention with every step exposed, masks, tokens, inputs, markup escaping, errors,
i18n and caches. Imports torch and ``mha.strings`` only (never Streamlit, nor any other layer of ``mha``)."""
