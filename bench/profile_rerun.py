"""Where a rerun's server-side time goes: one page under AppTest, a change, cProfile.

    python bench/profile_rerun.py                                  # Playground, a new sentence, default view
    python bench/profile_rerun.py --page heads --change switch     # open the Heads page (warm) from the Playground
    python bench/profile_rerun.py --size 128 --change num_heads --top 40

The change is made ``--repeat`` times (each a new sentence / the other head count), the last one profiled after a
warm-up, so caches hold what a warm server holds. Prints the functions by cumulative time, plus the total rerun
time and the bytes the run sent (its ForwardMsgs). For bench/REPORT.md's "Speed in the browser" section.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

import torch  # noqa: E402
from harness.apptest import open_page  # noqa: E402  (tests/harness: a page opened as a direct link)
from streamlit.testing.v1.local_script_runner import LocalScriptRunner  # noqa: E402

_sent: dict = {}
_forward_msgs = LocalScriptRunner.forward_msgs


def _measured(self):
    msgs = _forward_msgs(self)
    _sent.update(bytes=sum(m.ByteSize() for m in msgs), messages=len(msgs))
    return msgs


LocalScriptRunner.forward_msgs = _measured
_run_script = LocalScriptRunner._run_script
PROFILE: list = []  # a cProfile.Profile while the next run is to be profiled (the script runs in its own thread)


def _profiled_run_script(self, *args, **kwargs):
    if not PROFILE:
        return _run_script(self, *args, **kwargs)
    prof = PROFILE[0]
    prof.enable()
    try:
        return _run_script(self, *args, **kwargs)
    finally:
        prof.disable()


LocalScriptRunner._run_script = _profiled_run_script


def words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--page", default="playground")
    p.add_argument("--size", choices=["default", "128"], default="default")
    p.add_argument("--change", choices=["text", "num_heads", "switch", "same"], default="text")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--sort", default="cumulative")
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    n = 128 if args.size == "128" else 5
    params = {"text": words(128, "w"), "d_model": "256", "num_heads": "16"} if args.size == "128" else {}
    start = "pages/playground.py" if args.change == "switch" else f"pages/{args.page}.py"
    at = open_page(start, params, timeout=600)
    at.run()
    heads = (16, 8) if args.size == "128" else (4, 2)

    def change(i: int):
        if args.change == "text":
            at.text_area(key="text").set_value(words(n, f"s{i}x"))
        elif args.change == "num_heads":
            at.selectbox(key="num_heads").set_value(heads[i % 2])
        elif args.change == "switch":
            at.switch_page(f"pages/{args.page}.py" if i % 2 else "pages/playground.py")

    for i in range(args.repeat):
        change(i if args.change != "switch" else 1)
        at.run()
        if args.change == "switch":
            change(0)
            at.run()
    change(args.repeat if args.change != "switch" else 1)
    prof = cProfile.Profile()
    PROFILE.append(prof)
    t0 = time.perf_counter()
    at.run()
    PROFILE.clear()
    seconds = time.perf_counter() - t0
    if at.exception:
        raise SystemExit(f"the run raised: {at.exception[0].value}")
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats(args.sort).print_stats(args.top)
    print(out.getvalue())
    print(f"{args.page}, {args.size}, change {args.change}: rerun {seconds * 1e3:.0f} ms under the profiler, "
          f"sent {_sent.get('bytes', 0):,} bytes in {_sent.get('messages', 0)} messages")


if __name__ == "__main__":
    main()
