"""The one way tests and bench/ open the app (issue #24): ``harness.apptest`` opens a page in AppTest and reads what
it drew; ``harness.server`` starts ``streamlit run`` on a free loopback port; ``harness.chromium`` launches the
browser and goes to a page, waiting until the app has run and drawn; ``harness.uploads`` makes and refuses weight
files. Tests import it as ``harness`` (tests/ is on sys.path under pytest); bench/ puts tests/ on sys.path."""
