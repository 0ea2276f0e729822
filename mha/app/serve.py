"""Start the app as a hosted server: ``python -m mha.app.serve [options of streamlit run]``.

    python -m mha.app.serve --server.port=8501 --server.address=0.0.0.0

The same server as ``streamlit run app.py`` (Streamlit's own command line, in this process), with two things set
before it starts, so that they hold from the first websocket on instead of from the first script run:

- the per-session and server-wide upload limits (``internals.limit_uploads_for_every_server``): under ``streamlit
  run`` they come with the first run of app.py, and until some page has run, a session that never asked for a run
  keeps Streamlit's unlimited upload store (issue #23.2);
- no legacy ``pages/`` routing (``internals.route_through_app_only``): every run, a fresh server's first one too,
  goes through app.py's ``st.navigation``;

and it is headless (a server opens no browser; an option given later wins). ``.streamlit/config.toml`` holds the rest.

The Dockerfile, deploy/run_local.sh and deploy/compose.yaml start the app this way; ``streamlit run app.py`` keeps
working as before (the first run installs the upload limit).
"""
from __future__ import annotations

import sys
from pathlib import Path

from mha.app import internals

APP = Path(__file__).resolve().parents[2] / "app.py"


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    internals.limit_uploads_for_every_server()
    internals.route_through_app_only()
    internals.run_streamlit(["run", str(APP), "--server.headless=true", *args])


if __name__ == "__main__":
    main()
