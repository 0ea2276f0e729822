"""The app's pages, in menu order. Pure data: app.py, the pages themselves and the tests all read it.

Each entry: (file under pages/, title key in mha/strings, icon). The URL path of a page is its file name without
``.py`` (``pages/playground.py`` -> ``/playground``), the same rule that Streamlit's legacy ``pages/`` mode uses:
on a freshly started server the very first request is routed in that mode, and only matching paths avoid a
"Page not found" there (see ``mha.app.frame``). The first entry is the home page, at ``/``.
"""
PAGES = [
    ("pages/home.py", "nav_home", "🏠"),
    ("pages/course.py", "nav_course", "🎓"),
    ("pages/playground.py", "nav_playground", "🔬"),
    ("pages/heads.py", "nav_heads", "🧠"),
    ("pages/explain.py", "nav_explain", "🧮"),
    ("pages/lab.py", "nav_lab", "🌡️"),
    ("pages/masks.py", "nav_masks", "🎭"),
    ("pages/train.py", "nav_train", "🏋️"),
    ("pages/induction.py", "nav_induction", "🔁"),
    ("pages/bugs.py", "nav_bugs", "🐛"),
    ("pages/check.py", "nav_check", "🩺"),
    ("pages/share.py", "nav_share", "🔗"),
]

# Pages that train modules of their own: the sidebar's weight source (random / trained / pretrained / uploaded) is not
# what they show (the course picks each step's weights itself), so the frame's "which weights are in use" note is
# left off there.
OWN_MODULE_PAGES = ("pages/train.py", "pages/induction.py", "pages/course.py")


def url_path(page_file: str) -> str:
    """The URL path of a page ('' for home)."""
    return "" if page_file == PAGES[0][0] else page_file.rsplit("/", 1)[-1].removesuffix(".py")
