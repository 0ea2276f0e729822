"""One command for the whole benchmark report: writes bench/REPORT.md.

    python bench/report.py            # ~5 minutes on 2 cores; starts and stops its own servers (127.0.0.1 only)
    python bench/report.py --quick    # fewer repeats, one load wave: a smoke run of the report itself
    python bench/report.py --out /tmp/REPORT.md
    python bench/report.py --render /tmp/mha-report.json    # rewrite the report from the last run's figures

What it measures, each part on its own (a part that fails is reported as such, the others still run):

1. the machine: CPU model, cores, RAM, load average, Python / torch / Streamlit / Plotly / Chromium versions;
2. rerun time of the Playground against the naive baseline (bench/bench_playground.py's apps and medians, through
   AppTest): "same view" (nothing changed: ours reads its caches) and "new numbers" (the seed changes);
3. payload bytes at 16 / 128 / 512 tokens: the whole page through AppTest (16 and 128: the app stops at 128 tokens,
   mha.weights.view.MAX_TOKENS) and, for all three, the Playground's four figure builders called directly on the
   module's numbers (the chart specs exactly as st.plotly_chart serialises them), raw and deflated;
4. in headless Chromium (Playwright): the median click-to-repaint time of the Playground (click a cell of the
   enlarged head, wait until the selection summary names that cell), and the cold start: from starting
   ``streamlit run`` to the first painted heatmap (the Playground's canvas grid has drawn its cells);
5. forward and trace of our MultiHeadAttention against torch's nn.MultiheadAttention (bench/bench_core.py);
6. many learners at once (bench/load.py): success rate, p50/p95 rerun time, server memory and CPU.

Sections other helpers write by hand stay as they are: a ``## `` heading report.py does not write (training heads,
pretrained layers, ...) and any block between ``<!-- name:start -->`` and ``<!-- name:end -->`` lines (the core
section refreshed by bench/bench_core.py alone, the induction head, the speed in the browser), each in its place; a
section of report.py whose parts were not run (``--only``) keeps its old text (``merge_report``). To let report.py
refresh a marked section again, remove its two marker lines.

Times are medians; ratios are what to compare across machines. The machine may be shared: the load average
before and after is printed with the results.
"""
from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import traceback
import warnings
import zlib
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
sys.path[:0] = [str(ROOT), str(BENCH), str(ROOT / "tests")]

import load  # noqa: E402  (bench/load.py)
import torch  # noqa: E402
from harness.chromium import goto, launch, wait_app_idle  # noqa: E402  (tests/harness: browser and server)
from harness.server import start_server  # noqa: E402

PAYLOAD_TOKENS = (16, 128, 512)
PAYLOAD_HEADS, PAYLOAD_D_MODEL = 16, 256  # the heaviest case the payload target of issue 3 names
VIEWPORT = {"width": 1400, "height": 1000}
RESULTS = Path(tempfile.gettempdir()) / "mha-report.json"  # the raw figures of the last run (see --render)


def fmt_bytes(n: float) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB"


# ---------------------------------------------------------------------------------------------------- machine
def machine() -> dict:
    def first(path: str, prefix: str) -> str | None:
        try:
            for line in Path(path).read_text().splitlines():
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
        except OSError:
            return None
        return None

    import plotly
    import streamlit

    mem = first("/proc/meminfo", "MemTotal")
    return {
        "cpu": first("/proc/cpuinfo", "model name") or platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "ram": f"{int(mem.split()[0]) / 2 ** 20:.1f} GiB" if mem else "unknown",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "torch": torch.__version__,
        "streamlit": streamlit.__version__,
        "plotly": plotly.__version__,
        "load_before": os.getloadavg(),
    }


# ------------------------------------------------------------------------------------------- rerun vs naive
def rerun_vs_naive(reruns: int) -> dict:
    import bench_playground as bp

    torch.set_num_threads(1)  # as the app does (mha.app.frame)
    out = {}
    for _name, params, target in bp.CASES[:1]:  # the default view
        apps = [bp.ours(params), bp.naive(params)]
        for label, new in (("same view", False), ("new numbers", True)):
            m = bp.medians(apps, reruns, new)
            (ow, oc), (nw, nc) = m["ours"], m["naive"]
            out[label] = {"ours_s": ow, "naive_s": nw, "ratio": ow / nw, "cpu_ratio": oc / nc, "target": target
                          if label == "same view" else None}
    return out


# ------------------------------------------------------------------------------------------------- payloads
def page_payloads() -> dict:
    """Bytes one full run of the Playground sends (AppTest), at 16 and 128 tokens (the app's cap)."""
    import bench_playground as bp

    out = {}
    for tokens in PAYLOAD_TOKENS:
        if tokens > 128:
            continue
        params = {"text": bp.words(tokens), "d_model": str(PAYLOAD_D_MODEL), "num_heads": str(PAYLOAD_HEADS)}
        out[tokens] = bp.ours(params).payload()
    return out


def builder_payloads() -> dict:
    """The Playground's four figures built directly from the module's numbers at 16/128/512 tokens: bytes of the
    specs as st.plotly_chart sends them (plotly.io.to_json), and deflated (what gzip on the wire roughly gives)."""
    import plotly.io as pio

    from mha.charts import figures
    from mha.weights.view import build_model

    model = build_model(PAYLOAD_D_MODEL, PAYLOAD_HEADS, 0)
    out = {}
    for T in PAYLOAD_TOKENS:
        x = torch.randn(1, T, PAYLOAD_D_MODEL, generator=torch.Generator().manual_seed(T))
        with torch.no_grad():
            tr = model.trace(x, x, x)
        weights = tr.weights[0].numpy()  # (H, T, T)
        labels = [f"w{i}" for i in range(T)]
        figs = {
            "all heads (weights)": figures.heads_grid(weights, labels, labels, kind="weights"),
            "enlarged head": figures.head_heatmap(weights[0], labels, labels, kind="weights", head=0,
                                                  clickable=T <= 64, selected=(0, 0)),
            "head outputs": figures.head_outputs_grid(tr.head_outputs[0].numpy(), labels),
            "output": figures.features_heatmap(tr.output[0].numpy(), labels, kind="output"),
        }
        specs = {name: pio.to_json(fig, validate=False).encode() for name, fig in figs.items()}
        out[T] = {"figures": {n: len(s) for n, s in specs.items()}, "total": sum(len(s) for s in specs.values()),
                  "deflated": sum(len(zlib.compress(s, 6)) for s in specs.values())}
    return out


# -------------------------------------------------------------------------------------------------- browser
# Every canvas heatmap (mha.app.components.heatmap_view, in a component's shadow root) in the page.
_CANVASES = ("() => [...document.querySelectorAll('*')].filter(e => e.shadowRoot)"
             ".flatMap(e => [...e.shadowRoot.querySelectorAll('.hm')])")


def click_to_repaint(clicks: int) -> dict:
    """Median time from a click on a cell of the enlarged head to the selection summary naming that cell."""
    from playwright.sync_api import sync_playwright

    from mha.core.tokens import tokenize
    from mha.weights.view import DEFAULT_TEXT

    n = len(tokenize(DEFAULT_TEXT).tokens)
    cells = [(i, j) for i in range(n) for j in range(n) if (i, j) != (0, 0)]
    cells = [cells[(k * 7) % len(cells)] for k in range(clicks)]  # spread over the matrix, each new
    server = start_server()
    times = []
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            version = browser.version
            page = browser.new_context(viewport=VIEWPORT, locale="en-US").new_page()
            goto(page, f"{server.url}/playground?look=head", timeout_ms=120_000)  # the enlarged head (#24.4)
            chart = page.locator(".st-key-one_head_chart .hm")  # the enlarged head's canvas (heatmap_view)
            for i, j in [(1, 1)] + cells:  # the first click warms up (the fragment)
                chart.locator("canvas").first.scroll_into_view_if_needed()
                box = chart.evaluate("(r, [i, j]) => r.__hm.box(0, i, j)", [i, j])
                x, y = box["x"] + box["w"] / 2, box["y"] + box["h"] / 2
                page.mouse.move(x, y)
                t0 = time.perf_counter()
                page.mouse.click(x, y)
                page.wait_for_function(
                    "([a, b]) => [...document.querySelectorAll(\"[data-testid='stMarkdownContainer']\")]"
                    ".some(e => e.innerText.includes(a) && e.innerText.includes(b))",
                    arg=[f"(token {i}) → key", f"(token {j}):"], timeout=30_000, polling="raf")
                times.append(time.perf_counter() - t0)
                wait_app_idle(page, timeout_ms=120_000)
            browser.close()
    finally:
        server.stop()
    times = times[1:]
    return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times), "clicks": len(times),
            "chromium": version}


def cold_start(repeats: int) -> dict:
    """From ``streamlit run`` to the first painted heatmap of /playground in a fresh browser, per fresh server (the
    canvas grid since the Playground draws its heatmaps in the page; before, Plotly's first heatmap image)."""
    from playwright.sync_api import sync_playwright

    healthy, painted = [], []
    with sync_playwright() as pw:
        browser = launch(pw)
        for _ in range(repeats):
            t0 = time.perf_counter()
            server = start_server()  # returns once /_stcore/health answers
            try:
                healthy.append(time.perf_counter() - t0)
                context = browser.new_context(viewport=VIEWPORT, locale="en-US")
                page = context.new_page()
                page.goto(f"{server.url}/playground")
                page.wait_for_function(f"() => ({_CANVASES})().some(h => h.dataset.ready)", timeout=180_000,
                                       polling="raf")  # the grid's canvas has drawn its cells
                painted.append(time.perf_counter() - t0)
                context.close()
            finally:
                server.stop()
        browser.close()
    return {"healthy_s": statistics.median(healthy), "painted_s": statistics.median(painted),
            "painted_all_s": painted, "repeats": repeats}


# ------------------------------------------------------------------------------------------------ core module
def core(budget_s: float) -> dict[str, list[dict]]:
    """bench/bench_core.py's two tables, each in a fresh Python process as bench_core runs on its own: large tensors
    are sensitive to the state of the C heap, which the other parts of this report (AppTest, Plotly) leave behind.
    'default': the C allocator as a process starts; 'kept': glibc keeping freed memory (see bench_core)."""
    import subprocess

    out = {}
    for policy in ("default", "kept"):
        code = f"import json, report; print(json.dumps(report.core_rows({budget_s!r}, {policy!r})))"
        run = subprocess.run([sys.executable, "-c", code], cwd=BENCH, capture_output=True, text=True, timeout=900,
                             check=True)
        rows = json.loads(run.stdout.strip().splitlines()[-1])
        if rows is not None:
            out[policy] = rows
    return out


def core_rows(budget_s: float, policy: str) -> list[dict] | None:
    """bench/bench_core.py's comparison as rows, one thread and its CPU clock as its main() uses; None when the
    allocator policy cannot be set here (not glibc)."""
    import bench_core as bc

    torch.set_num_threads(1)
    if policy == "kept" and not bc.keep_freed_memory():
        return None
    return bc.rows(time.thread_time, budget_s)


# ------------------------------------------------------------------------------------------------------ load
LOAD_SCENARIOS = {  # name: bench/load.py arguments
    "stress (bench/load.py defaults)": [],
    "classroom pace": ["--think", "3", "8"],
}


def load_figures(waves: int, scenarios: int) -> dict:
    """bench/load.py's figures per scenario: its defaults (learners changing something every 0.5-2 s), and a
    classroom pace (3-8 s between changes: typing a sentence, reading the heatmaps)."""
    return {name: load.run(load.parse_args(["--waves", str(waves), *extra]))
            for name, extra in list(LOAD_SCENARIOS.items())[:scenarios]}


# ---------------------------------------------------------------------------------------------------- writing
def write_report(path: Path, r: dict, errors: dict, seconds: float) -> None:
    m = r["machine"]
    L = [
        "# Benchmark report",
        "",
        f"Written by `python bench/report.py` on {dt.date.today().isoformat()} in {seconds / 60:.0f} min. "
        "Re-run that command to refresh its parts (described in the script's docstring); the other sections "
        "come from their own scripts in bench/, each named in its heading, and are kept as written.",
        "",
        "## Machine",
        "",
        f"- CPU: {m['cpu']}, {m['cores']} cores; RAM {m['ram']}; {m['os']}",
        f"- Python {m['python']}, torch {m['torch']} (CPU, 1 thread per computation as the app), "
        f"Streamlit {m['streamlit']}, Plotly {m['plotly']}"
        + (f", Chromium {r['click']['chromium']}" if "click" in r else ""),
        f"- Load average (1/5/15 min) before: {' / '.join(f'{v:.1f}' for v in m['load_before'])}; after: "
        f"{' / '.join(f'{v:.1f}' for v in m['load_after'])}. The machine is shared with other work: wall-clock "
        "figures are upper bounds, ratios and CPU seconds the steadier ones.",
        "",
    ]

    def missing(part: str) -> list[str]:
        return [f"*Not measured: {errors[part]}*", ""] if part in errors else []

    L += ["## Rerun time against the naive baseline", "",
          "The Playground at the default view against `bench/naive_playground.py` (the course's class, one "
          "Plotly Express figure per head and matrix, nothing cached), both through AppTest, reruns alternating; "
          "median wall time of one rerun (lower ratio = faster).", ""]
    L += missing("naive")
    if "naive" in r:
        L += ["| rerun | ours | naive | ratio (wall) | ratio (CPU) | target |", "| --- | ---: | ---: | ---: | ---: | "
                                                                                "--- |"]
        for label, v in r["naive"].items():
            target = f"≤ {v['target']}: {'met' if v['ratio'] <= v['target'] else 'missed'}" if v["target"] else ""
            L.append(f"| {label} | {v['ours_s'] * 1e3:.0f} ms | {v['naive_s'] * 1e3:.0f} ms | {v['ratio']:.3f} | "
                     f"{v['cpu_ratio']:.3f} | {target} |")
        L.append("")

    L += ["## Payload", "",
          f"At {PAYLOAD_HEADS} heads, d_model {PAYLOAD_D_MODEL}. The app reads at most 128 tokens per sentence "
          "(`mha.weights.view.MAX_TOKENS`; longer text is cut with a note), so a whole page is measured at 16 and 128 "
          "tokens; "
          "at 512 only the Playground's four figure builders are measured, called directly on the module's numbers "
          "(the chart specs exactly as `st.plotly_chart` serialises them). Deflated ≈ what gzip on the wire sends.", ""]
    L += missing("page_payload")
    L += missing("builder_payload")
    if "builder_payload" in r:
        page = r.get("page_payload", {})
        L += ["| tokens | whole page (AppTest) | page deflated | 4 figures (builders) | figures deflated |",
              "| ---: | ---: | ---: | ---: | ---: |"]
        for T, b in r["builder_payload"].items():
            p = page.get(T)
            L.append(f"| {T} | {fmt_bytes(p['total']) if p else 'capped at 128'} | "
                     f"{fmt_bytes(p['deflated']) if p and 'deflated' in p else '–'} | {fmt_bytes(b['total'])} | "
                     f"{fmt_bytes(b['deflated'])} |")
        big = r["builder_payload"][max(r["builder_payload"], key=int)]["figures"]
        L += ["", "At 512 tokens, per figure: " + ", ".join(f"{n} {fmt_bytes(v)}" for n, v in big.items()) + "."]
        L.append("")

    L += ["## In the browser (headless Chromium)", ""]
    L += missing("click")
    if "click" in r:
        c = r["click"]
        L += [f"- **Click-to-repaint**: median **{c['median_s'] * 1e3:.0f} ms** over {c['clicks']} clicks "
              f"(min {c['min_s'] * 1e3:.0f}, max {c['max_s'] * 1e3:.0f} ms): from a click on a cell of the enlarged "
              "head (Playground, default view) to the selection summary naming that cell (a fragment rerun plus the "
              "repaint)."]
    L += missing("cold")
    if "cold" in r:
        c = r["cold"]
        L += [f"- **Cold start**: median **{c['painted_s']:.1f} s** from `streamlit run` to the first painted "
              f"heatmap of `/playground` ({c['repeats']} fresh servers: "
              f"{', '.join(f'{v:.1f}' for v in c['painted_all_s'])} s); the server answered its health check "
              f"after {c['healthy_s']:.1f} s, the rest is the first run (import torch, build the model) and the "
              "browser loading Plotly and painting."]
    L.append("")

    L += ["## The module against torch", "",
          "`MultiHeadAttention.forward` and `.trace` (every intermediate) against `nn.MultiheadAttention` returning "
          "per-head weights (torch's fused path), float32, batch 1, one thread, median CPU time, in a fresh process "
          "(bench/bench_core.py; lower ratio = faster; trace target ≤ 1.2).", ""]
    L += missing("core")
    titles = {"default": "The C allocator's default policy (freed memory may go back to the OS)",
              "kept": "glibc keeping freed memory for reuse, for both contenders (the target is judged here)"}
    for policy, rows in r.get("core", {}).items():
        L += [f"**{titles[policy]}**", "",
              "| L | H | d_model | torch ms | forward ms | trace ms | forward/torch | trace/torch | page faults/call "
              "torch, trace |", "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for row in rows:
            L.append(f"| {row['L']} | {row['H']} | {row['d_model']} | {row['torch_ms']:.3f} | {row['forward_ms']:.3f}"
                     f" | {row['trace_ms']:.3f} | {row['forward_ratio']:.2f} | {row['trace_ratio']:.2f} | "
                     f"{row['torch_faults']:.0f}, {row['trace_faults']:.0f} |")
        L += ["", f"Worst trace/torch: {max(row['trace_ratio'] for row in rows):.2f}.", ""]
    if "core" in r:
        L += ["At L = 512 the first table also measures the C allocator: trace returns the scores *and* the weights, "
              "(H, L, L) each, where torch's module returns the weights only; freeing that much lets glibc hand the "
              "memory back to the OS, and the next call pays a page fault per 4 KB page (the last column). The "
              "second table keeps freed memory for both contenders alike (bench/bench_core.py).", ""]

    L += ["## Many learners at once", ""]
    L += missing("load")
    if "load" in r:
        L += ["`bench/load.py`: each session speaks Streamlit's own websocket protocol (BackMsg / ForwardMsg) to a "
              "server on 127.0.0.1, as a browser tab does; it opens the Playground at the default view, then changes "
              "the sentence (one of its own: no cache hits), num_heads, the causal mask and d_model. Rerun time = "
              "send -> script_finished at the client. Targets: 25 sessions at once, 100% success, p95 ≤ 2 s, "
              "memory growth < 100 MB per 50 sessions.", "",
              "| scenario | sessions | think time | success | rerun p50 | rerun p95 | open p95 | server CPU per run "
              "| server busy | RSS growth per 50 sessions | machine load (1 min) before → after |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for name, ld in r["load"].items():
            L.append(f"| {name} | {ld['total_sessions']} ({ld['waves']} × {ld['sessions']}) | "
                     f"{ld['think_s'][0]:g}–{ld['think_s'][1]:g} s | {ld['session_success']:.0%} | "
                     f"{ld['change_p50_s']:.2f} s | {ld['change_p95_s']:.2f} s | {ld['first_run_p95_s']:.2f} s | "
                     f"{ld['server_cpu_per_run_s'] * 1e3:.0f} ms | {ld['server_cpu_s'] / ld['wall_s']:.0%} | "
                     f"{ld['rss_growth_mb_per_50']:.0f} MB | "
                     f"{ld.get('load_avg_1min_before', 0):.1f} → {ld.get('load_avg_1min', 0):.1f} |")
        L += ["", "Server busy = the server's CPU seconds over the waves' wall time. Streamlit runs every session's "
              "script in one Python process, so near 100% the server is saturated and p95 is queueing: it can serve "
              "about 1 / (CPU per run) reruns a second, whatever the number of cores. A busy machine (load average "
              "above its 2 cores) stretches every wall-clock figure.", ""]
        for name, ld in r["load"].items():
            L += [f"{name}:", "", "```", load.report(ld), "```", ""]
    not_run = {part for part, why in errors.items() if why.startswith("not asked for")}
    old = path.read_text() if path.exists() else ""
    path.write_text(merge_report(old, "\n".join(L), not_run))


# Each section report.py writes, by its heading, and the parts that measure it: a section none of whose parts ran
# this time (--only) keeps what the report said before.
SECTION_PARTS = {
    "Machine": (),
    "Rerun time against the naive baseline": ("naive",),
    "Payload": ("page_payload", "builder_payload"),
    "In the browser (headless Chromium)": ("click", "cold"),
    "The module against torch": ("core",),
    "Many learners at once": ("load",),
}


def split_sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text before the first section, and the sections as (key, text): a block between ``<!-- name:start -->``
    and ``<!-- name:end -->`` is one section keyed ``<!-- name -->`` (however many headings it holds); otherwise each
    ``## `` heading starts a section keyed by its heading."""
    head, sections, block = [], [], None
    for line in text.splitlines():
        stripped = line.strip()
        if block is not None:
            block[1].append(line)
            if stripped == f"<!-- {block[0]}:end -->":
                sections.append((f"<!-- {block[0]} -->", "\n".join(block[1])))
                block = None
            continue
        if stripped.startswith("<!-- ") and stripped.endswith(":start -->"):
            block = (stripped[5:-10], [line])
        elif line.startswith("## "):
            sections.append((line[3:].strip(), line))
        elif sections:
            key, body = sections[-1]
            sections[-1] = (key, body + "\n" + line)
        else:
            head.append(line)
    if block is not None:  # a start marker without its end: keep the rest as written
        sections.append((f"<!-- {block[0]} -->", "\n".join(block[1])))
    return "\n".join(head), sections


def merge_report(old: str, new: str, not_run: set[str]) -> str:
    """The new report with every section report.py does not write kept from the old one, in its place.

    Sections other helpers wrote by hand (a ``## `` heading report.py does not write, or any block between
    ``<!-- name:start -->`` and ``<!-- name:end -->`` markers: bench_train.py, bench_pretrained.py, the induction
    head, the core section refreshed by bench_core.py alone, the speed in the browser) stay as written; a section
    of report.py whose parts were not run this time (``--only``) keeps its old text; the others are replaced."""
    if not old.strip():
        return new.rstrip() + "\n"
    new_head, new_sections = split_sections(new)
    fresh = dict(new_sections)
    _, old_sections = split_sections(old)
    kept_by_marker = {key for key, _ in old_sections if key.startswith("<!--")}
    out, done = [new_head.rstrip()], set()
    for key, body in old_sections:
        parts = SECTION_PARTS.get(key)
        if key in fresh and not (parts and all(p in not_run for p in parts)):
            out.append(fresh[key].rstrip())
        else:
            out.append(body.rstrip())  # written by someone else, or not measured this time: as it was
        done.add(key)
    # Sections report.py writes that the old report lacked (and no marked block replaces): at the end.
    for key, body in new_sections:
        if key not in done and not any(f"## {key}" in old_body for k, old_body in old_sections if k in kept_by_marker):
            out.append(body.rstrip())
    return "\n\n".join(out) + "\n"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description="Write bench/REPORT.md")
    p.add_argument("--quick", action="store_true", help="fewer repeats and one load wave (a smoke run)")
    p.add_argument("--out", type=Path, default=BENCH / "REPORT.md")
    p.add_argument("--only", nargs="*", help="parts to run: naive page_payload builder_payload click cold core load")
    p.add_argument("--render", type=Path, metavar="JSON", help="only rewrite the report from a results file")
    args = p.parse_args(argv)
    if args.render:
        saved = json.loads(args.render.read_text())
        write_report(args.out, saved["results"], saved["errors"], saved["seconds"])
        print(f"wrote {args.out}")
        return
    warnings.filterwarnings("ignore")
    q = args.quick
    parts = {
        "naive": lambda: rerun_vs_naive(3 if q else 7),
        "page_payload": page_payloads,
        "builder_payload": builder_payloads,
        "core": lambda: core(0.3 if q else 1.0),
        "click": lambda: click_to_repaint(5 if q else 15),
        "cold": lambda: cold_start(1 if q else 3),
        "load": lambda: load_figures(1 if q else 2, 1 if q else 2),  # last: the heaviest on the machine
    }
    t0 = time.perf_counter()
    results, errors = {"machine": machine()}, {}
    for name, fn in parts.items():
        if args.only and name not in args.only:
            errors[name] = "not asked for (--only)"
            continue
        print(f"report: {name} ...", file=sys.stderr, flush=True)
        t = time.perf_counter()
        try:
            with redirect_stdout(io.StringIO()):
                results[name] = fn()
        except Exception as exc:  # noqa: BLE001 one failing part must not lose the others
            traceback.print_exc()
            errors[name] = f"{type(exc).__name__}: {str(exc)[:300]}"
        print(f"report: {name} done in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    results["machine"]["load_after"] = os.getloadavg()
    seconds = time.perf_counter() - t0
    RESULTS.write_text(json.dumps({"results": results, "errors": errors, "seconds": seconds}, indent=1))
    write_report(args.out, results, errors, seconds)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
