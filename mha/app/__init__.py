"""The Streamlit layer: the only part of ``mha`` that imports Streamlit (``tests/unit/test_layers.py`` checks it).
May import every layer below it; nothing below imports it.

- ``frame``      the frame around every page: page config, sidebar, link box, navigation (``pages`` lists them)
- ``sidebar``    the shared controls in the sidebar; ``state`` their ``Settings`` (``ViewSpec``'s fields), the view
- ``widgets``    the one head / token picker, named choice, int input, uploader, keyed table; ``t()``, chart words
- ``sources``    the weight sources (random, trained, pretrained, uploaded) as sidebar controls
- ``compute``, ``runs``  cached and light computation in slots; long runs queued outside them (fair compute)
- ``share``      links (the link box, cleaning the address), the parameters note, uploads, CSV downloads
- ``internals``  every use of Streamlit's private internals, in one place
- ``serve``      the hosted launcher (``python -m mha.app.serve``): upload limits and routing set before the server
                 starts
- ``components`` in-page components (``.py`` + ``.js`` + ``.css``); ``sections`` the pieces of each page
"""
