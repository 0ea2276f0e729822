"""Screenshots of every page at the three sizes of issue #16 x two languages, into test-artifacts/sizes/.

Sizes: the default view; a 43-token sentence; d_model 256 with 16 heads. Each picture is taken by the shared
tool ``screenshot.py`` (headless Chromium on a fresh server), one run per language so a failure in one leaves the
other. Open the PNGs with an image viewer and look at them:

    python scripts/screenshots_sizes.py                  # every page, both languages
    python scripts/screenshots_sizes.py --pages explain heads --langs ko --sizes long
    python scripts/screenshots_sizes.py --open-all --pages playground explain   # folded sections open

``--open-all`` adds the link parameters that open every folded section (the Playground's cell breakdown, head
outputs and output; every step of Step by step and its cell breakdown) and writes into ``<size>-<lang>-open/``, so
the folded charts are photographed too, next to the folded default.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from urllib.parse import urlencode

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from mha.app.pages import PAGES, url_path  # noqa: E402
from mha.lessons.explain import STEP_SHAPES  # noqa: E402

LONG_TEXT = ("The quick brown fox jumps over the lazy dog while the small cat sleeps on a warm mat near the old red "
             "barn and the farmer walks slowly to the green field to see his tired horse eat fresh hay today and "
             "sleeps")  # 43 tokens
SIZES = {
    "default": {},
    "long": {"text": LONG_TEXT},
    "big": {"d_model": 256, "num_heads": 16},
}
# the link parameters that open every folded section, by page (README, Links)
OPEN_ALL = {
    "playground": {"show_cell": "true", "show_head_outputs": "true", "show_output": "true"},
    "explain": {"ex_show_cell": "true", **{f"ex_show_{step}": "true" for step in STEP_SHAPES}},
}
TOOL = os.environ.get("MHA_SCREENSHOT_TOOL", os.path.join(os.path.dirname(ROOT), "shared", "tools", "screenshot.py"))
if not os.path.exists(TOOL):
    TOOL = "/work/shared/tools/screenshot.py"


def main() -> None:
    names = [url_path(f) or "home" for f, _, _ in PAGES]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", nargs="*", default=names, help=f"pages by URL path ({', '.join(names)})")
    ap.add_argument("--sizes", nargs="*", default=list(SIZES), choices=list(SIZES))
    ap.add_argument("--langs", nargs="*", default=["en", "ko"], choices=["en", "ko"])
    ap.add_argument("--out", default=os.path.join(ROOT, "test-artifacts", "sizes"))
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--open-all", action="store_true",
                    help="open every folded section by link (pictures go to <size>-<lang>-open/)")
    ap.add_argument("--missing", action="store_true", help="only the pictures not taken yet")
    args = ap.parse_args()
    for lang in args.langs:
        for size in args.sizes:
            paths = []
            for name in args.pages:
                opened = OPEN_ALL.get(name, {}) if args.open_all else {}
                query = urlencode({**SIZES[size], **opened, "lang": lang})
                paths.append(f"/{'' if name == 'home' else name}?{query}")
            out = os.path.join(args.out, f"{size}-{lang}" + ("-open" if args.open_all else ""))
            shoot = lambda ps: subprocess.run([sys.executable, TOOL, "--out", out, "--width", str(args.width),  # noqa
                                               *ps], cwd=ROOT, check=False)
            if args.missing:
                paths = [p for p in paths if not os.path.exists(os.path.join(out, _file_name(p)))]
            if paths:
                shoot(paths)
            # the tool stops at the first page that fails (a tall page's screenshot can time out on a busy
            # machine): take each missing one again on its own
            for path in [p for p in paths if not os.path.exists(os.path.join(out, _file_name(p)))]:
                shoot([path])


def _file_name(path: str) -> str:
    """The PNG name the screenshot tool gives a path."""
    return (re.sub(r"[^A-Za-z0-9_.-]+", "_", path.strip("/")) or "home")[:80] + ".png"


if __name__ == "__main__":
    main()
