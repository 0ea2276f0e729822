"""Multi-Head Attention Playground — entry point: `streamlit run app.py`.

Draws the shared controls (sidebar, mirrored in the URL), then runs the chosen page from pages/
(the list is in mha/app/pages.py; the frame in mha/app/frame.py).
"""
from mha.app.frame import run_app

run_app()
