"""Load time and rerun time of a pretrained model's layer, against the random module at the same sizes.

    python bench/bench_pretrained.py             # BERT-mini-sized (4 layers, 4 heads, d_model 256); ~1 minute
    python bench/bench_pretrained.py --base      # also a bert-base-sized model (12 layers, 12 heads, 768; ~440 MB
                                                 # written to a temporary folder)

These machines cannot reach the hub, so the model is built here with random weights in the default model's shape
(google/bert_uncased_L-4_H-256_A-4: vocabulary 30,522, 512 positions, feed-forward 1,024) and saved with
save_pretrained: loading it is the path a downloaded model takes. The times are those of that shape, not of the
real checkpoint's numbers (which cost the same to run).

Printed (a benchmark, not a test: it never fails; one thread, as the app; medians of this thread's CPU time, which
a busy shared machine disturbs far less than wall time; contenders interleaved):
- load: ``mha.weights.pretrained.load_model`` on a fresh cache (config, weights, tokenizer, hooks), and the one-time
import
  of transformers before it;
- rerun at 16 and 128 tokens, layer 0 and the last layer (the model runs up to the chosen layer only):
  ``run_layer`` (tokenize with the model's tokenizer, run the model to the layer, our module's trace, compare)
  against the random source at the same d_model and num_heads (``mha.weights.view``'s steps: tokenize, embed, the seeded
  module's trace; run_view itself stops at d_model 512), and our module's ``trace`` alone on the layer's input
  against the random module's on an input of the same shape. ``run_layer`` runs the model each time (the numbers it
  keeps per loaded model are dropped before each call); "kept" is ``run_layer`` on a layer a run on the same
  sentence already passed (the last layer's run keeps every layer): the model does not run.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # run from anywhere; tests/tiny_models.py builds the model

from mha.weights import pretrained as P  # noqa: E402
from mha.weights import pretrained_files  # noqa: E402
from mha.weights.view import build_model, text_batch  # noqa: E402

LENGTHS = (16, 128)
WARMUP, MIN_REPEATS, MAX_REPEATS, BUDGET_S = 2, 7, 100, 2.0
SHAPES = {  # name: (layers, heads, d_model, ffn, vocab, positions)
    "BERT-mini-sized": (4, 4, 256, 1024, 30522, 512),
    "bert-base-sized": (12, 12, 768, 3072, 30522, 512),
}
WORDS = "the cat sat on the mat and the dog saw a cat".split()


def medians(calls: dict) -> dict:
    """Median seconds per call of each zero-argument function, run interleaved in a fresh order each round."""
    for fn in calls.values():
        for _ in range(WARMUP):
            fn()
    times = {name: [] for name in calls}
    order, start = random.Random(0), time.perf_counter()
    for n in range(1, MAX_REPEATS + 1):
        for name in order.sample(list(calls), len(calls)):
            t0 = time.thread_time()
            calls[name]()
            times[name].append(time.thread_time() - t0)
        if n >= MIN_REPEATS and time.perf_counter() - start > BUDGET_S:
            break
    return {name: statistics.median(ts) for name, ts in times.items()}


def text_of(tokens: int) -> str:
    return " ".join(WORDS[i % len(WORDS)] for i in range(tokens))


def bench_shape(name: str, folder: Path) -> dict:
    import tiny_models

    layers, heads, d_model, ffn, vocab, positions = SHAPES[name]
    tiny_models.build("bert", folder, d_model=d_model, num_heads=heads, layers=layers, ffn=ffn,
                      vocab_size=vocab, max_positions=positions)
    loads, load_cpu = [], []
    for _ in range(3):
        P.clear_cache()
        t0, c0 = time.perf_counter(), time.process_time()
        loaded = P.load_model(str(folder), max_bytes=10**12)
        loads.append(time.perf_counter() - t0)
        load_cpu.append(time.process_time() - c0)
    rows = []
    for length in LENGTHS:
        text = text_of(length)  # the tiny vocabulary: one token per word, plus [CLS] and [SEP] (cut to length)
        tokens = P.model_tokens(loaded, [text], max_tokens=length)
        assert tokens.ids.size(1) == length, tokens.ids.shape
        random_module = build_model(d_model, heads, 0)

        def random_source(text=text):  # mha.weights.view.run_view's steps, without its d_model limit
            batch = text_batch(text)
            x = batch.inputs(d_model, 0)  # (1, T, d_model)
            with torch.no_grad():
                return random_module.trace(x, x, x)

        assert random_source().weights.shape[-1] == length
        x_random = torch.randn(1, length, d_model)
        for layer in (0, layers - 1):
            run = P.run_layer(loaded, layer, [text], max_tokens=length)
            P.run_layer(loaded, layers - 1, [text], max_tokens=length)  # keeps every layer's numbers ("kept")
            module = P.layer_module(loaded, layer)

            def trace_ours(module=module, run=run):
                with torch.no_grad():
                    module.trace(run.x, run.x, run.x, run.mask)

            def trace_random():
                with torch.no_grad():
                    random_module.trace(x_random, x_random, x_random)

            t = medians({
                "run_layer": lambda layer=layer: (loaded._captures.clear(),
                                                  P.run_layer(loaded, layer, [text], max_tokens=length)),
                "kept": lambda layer=layer: P.run_layer(loaded, layer, [text], max_tokens=length),
                "random": random_source,
                "trace_ours": trace_ours,
                "trace_random": trace_random,
            })
            rows.append(dict(tokens=length, layer=layer, diff=max(run.weights_diff, run.output_diff), **t))
    params = sum(p.numel() * p.element_size() for p in loaded.model.parameters())
    return dict(name=name, layers=layers, heads=heads, d_model=d_model, size=pretrained_files.folder_size(folder),
                params=params, load=statistics.median(loads),
                load_cpu=statistics.median(load_cpu), rows=rows)


def report(result: dict, import_s: float) -> str:
    r = result
    lines = [
        f"**{r['name']}** ({r['layers']} layers, {r['heads']} heads, d_model {r['d_model']}; "
        f"weights {r['size'] / pretrained_files.MB:.0f} MB on disk, "
        f"{r['params'] / pretrained_files.MB:.0f} MB in memory): "
        f"load {r['load'] * 1000:.0f} ms wall, {r['load_cpu'] * 1000:.0f} ms CPU (median of 3 on a fresh cache, "
        f"files in the OS page cache; the first import of transformers took {import_s:.1f} s more, once per "
        f"process).",
        "",
        "| tokens | layer | run_layer ms | kept ms | random source ms | ratio | kept ratio | our trace ms (biases) | "
        "random trace ms | ratio | max diff |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in r["rows"]:
        lines.append(
            f"| {row['tokens']} | {row['layer']} | {row['run_layer'] * 1e3:.2f} | {row['kept'] * 1e3:.2f} | "
            f"{row['random'] * 1e3:.2f} | {row['run_layer'] / row['random']:.2f} | "
            f"{row['kept'] / row['random']:.2f} | {row['trace_ours'] * 1e3:.3f} | "
            f"{row['trace_random'] * 1e3:.3f} | {row['trace_ours'] / row['trace_random']:.2f} | {row['diff']:.1e} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", action="store_true", help="also a bert-base-sized model (~440 MB on disk)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    import transformers  # noqa: F401
    from transformers import AutoModel, AutoTokenizer  # noqa: F401  (what load_model imports first)
    import_s = time.perf_counter() - t0
    names = ["BERT-mini-sized"] + (["bert-base-sized"] if args.base else [])
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            print(report(bench_shape(name, Path(tmp) / name), import_s))
            print()
            P.clear_cache()


if __name__ == "__main__":
    main()
