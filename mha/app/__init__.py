"""The Streamlit layer: the only part of ``mha`` that imports Streamlit (``tests/test_layers.py`` checks it).

- ``frame``    the frame around every page: page config, sidebar, link box, navigation
- ``controls`` the shared sidebar controls, cached computation and figures, translation ``t()``, chart words
- ``share``    links (the link box, cleaning the address), the parameters note, uploads, CSV downloads
- ``explain``  Streamlit pieces of Step by step and the lab, shared with the Playground (``cell_breakdown``)
"""
