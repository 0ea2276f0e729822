"""The move of mha/ into layers (issue #24), as a script: `python scripts/relayout.py move` does the `git mv`s,
`python scripts/relayout.py rewrite [files…]` rewrites imports, dotted names and paths written for the flat layout
(idempotent: it can be run again on code written before the move, e.g. a branch merged later).

Kept in the repository for that: a branch started before the move is rewritten with the same table.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# old dotted module -> new dotted module
MOVES = {
    # core: the module, masks, tokens, markup escaping, errors, i18n, caches
    "mha.attention": "mha.core.attention",
    "mha.masks": "mha.core.masks",
    "mha.errors": "mha.core.errors",
    "mha.i18n": "mha.core.i18n",
    "mha.lru": "mha.core.lru",
    # weights: the view spec -> View, trained, pretrained, uploads/export
    "mha.view": "mha.weights.view",
    "mha.batch": "mha.weights.batch",
    "mha.train": "mha.weights.train",
    "mha.train_runs": "mha.weights.train_runs",
    "mha.pretrained": "mha.weights.pretrained",
    "mha.pretrained_files": "mha.weights.pretrained_files",
    "mha.export": "mha.weights.export",
    "mha.torch_check": "mha.weights.torch_check",
    # lessons: what each page teaches, as numbers
    "mha.explain": "mha.lessons.explain",
    "mha.heads": "mha.lessons.heads",
    "mha.bugs": "mha.lessons.bugs",
    "mha.course": "mha.lessons.course",
    "mha.induction": "mha.lessons.induction",
    "mha.induction_view": "mha.lessons.induction_reading",
    # charts: chart style and words, Plotly builders, canvas payloads, the standalone file
    "mha.figures": "mha.charts.figures",
    "mha.explain_figures": "mha.charts.explain",
    "mha.heads_figures": "mha.charts.heads",
    "mha.train_figures": "mha.charts.train",
    "mha.neuron_figures": "mha.charts.neuron",
    "mha.heatmap_data": "mha.charts.heatmap_data",
    "mha.head_view_data": "mha.charts.head_view_data",
    "mha.standalone": "mha.charts.standalone",
    # app: in-page components (a .py beside its .js and .css), sections of pages
    "mha.pages": "mha.app.pages",
    "mha.app.component": "mha.app.components.component",
    "mha.app.head_view": "mha.app.components.head_view",
    "mha.app.heatmap_view": "mha.app.components.heatmap_view",
    "mha.app.bugs_page": "mha.app.sections.bugs",
    "mha.app.check_page": "mha.app.sections.check",
    "mha.app.course_page": "mha.app.sections.course",
    "mha.app.explain": "mha.app.sections.explain",
    "mha.app.heads_page": "mha.app.sections.heads",
    "mha.app.induction_page": "mha.app.sections.induction",
    "mha.app.masks_page": "mha.app.sections.masks",
    "mha.app.neuron_page": "mha.app.sections.neuron",
    "mha.app.playground_page": "mha.app.sections.playground",
    "mha.app.train_page": "mha.app.sections.train",
    "mha.app.live": "mha.app.sections.live",
    "mha.app.model_view": "mha.app.sections.model_view",
    "mha.app.paint_gate": "mha.app.components.paint_gate",  # came with a branch merged after the move
}
# non-Python files that travel with a module
ASSETS = {
    "mha/app/head_view.js": "mha/app/components/head_view.js",
    "mha/app/head_view.css": "mha/app/components/head_view.css",
    "mha/app/heatmap_view.js": "mha/app/components/heatmap_view.js",
    "mha/app/heatmap_view.css": "mha/app/components/heatmap_view.css",
    "mha/app/link_box.js": "mha/app/components/link_box.js",
    "mha/app/link_box.css": "mha/app/components/link_box.css",
    "mha/app/paint_gate.js": "mha/app/components/paint_gate.js",
    "mha/app/paint_gate.css": "mha/app/components/paint_gate.css",
}
# mha.text is split in three by what its names do; mha.figures gives its click reader to core
SPLIT = {
    "mha.text": {
        **dict.fromkeys(["TextError", "Tokens", "clean_text", "tokenize", "safe_label", "PieceLabel", "piece_label",
                         "display_labels", "MAX_LABEL_CHARS", "_clusters", "_visible", "_merge_word_marks", "_WORD",
                         "_JOINERS", "_TAGS"], "mha.core.tokens"),
        **dict.fromkeys(["escape_for_plotly", "escape_markdown", "one_line", "_cut", "_MARKDOWN_PUNCT", "_WJ",
                         "_DEFUSE", "_CONTROLS", "_BIDI_RE", "_BIDI"], "mha.core.markup"),
        **dict.fromkeys(["embed_tokens", "sinusoidal_positions", "token_inputs", "init_weights", "_token_seed"],
                        "mha.core.inputs"),
    },
    "mha.figures": {"clicked_pair": "mha.core.clicks", "_clicked_customdata": "mha.core.clicks"},
    # mha.app.controls, split by what its definitions are (a branch written before the split imports them from it)
    "mha.app.controls": {
        "CUSTOM_WEIGHTS_KEY": "mha.app.state",
        "HEAVY_WORK": "mha.app.compute",
        "INDEX_FORM": "mha.app.widgets",
        "SEEDED": "mha.app.compute",
        "SHARED_KEYS": "mha.app.state",
        "START_PARAM": "mha.app.sidebar",
        "Settings": "mha.app.state",
        "WHOLE_ROWS": "mha.app.widgets",
        "Weights": "mha.app.compute",
        "WeightsScale": "mha.app.widgets",
        "_MORE_DEFAULTS": "mha.app.sidebar",
        "_as_url_value": "mha.app.sidebar",
        "_browser_locale": "mha.app.widgets",
        "_cap_link_text": "mha.app.sidebar",
        "_chart_words": "mha.app.widgets",
        "_check_kv_text": "mha.app.sidebar",
        "_check_text": "mha.app.sidebar",
        "_copy_choice": "mha.app.widgets",
        "_css_text": "mha.app.widgets",
        "_keep_lang_in_url": "mha.app.sidebar",
        "_locked_sizes": "mha.app.sidebar",
        "_model_counts": "mha.app.sidebar",
        "_more_settings_changed": "mha.app.sidebar",
        "_not_read": "mha.app.sidebar",
        "_remember_url_params": "mha.app.sidebar",
        "_sentence_control": "mha.app.sidebar",
        "_size_controls": "mha.app.sidebar",
        "_text_batch": "mha.app.sidebar",
        "_url_notes": "mha.app.sidebar",
        "cached": "mha.app.compute",
        "cached_figure": "mha.app.compute",
        "chart_words": "mha.app.widgets",
        "css_string": "mha.app.widgets",
        "current_view": "mha.app.state",
        "file_uploader": "mha.app.widgets",
        "head_picker": "mha.app.widgets",
        "hide": "mha.app.widgets",
        "int_input": "mha.app.widgets",
        "keep_index": "mha.app.widgets",
        "lang": "mha.app.widgets",
        "link_value": "mha.app.widgets",
        "model_info": "mha.app.state",
        "named_choice": "mha.app.widgets",
        "session_weights": "mha.app.state",
        "settings": "mha.app.state",
        "sidebar_controls": "mha.app.sidebar",
        "t": "mha.app.widgets",
        "table": "mha.app.widgets",
        "token_picker": "mha.app.widgets",
        "weights_scale": "mha.app.widgets",
    },
}
PACKAGES = ["mha.core", "mha.weights", "mha.lessons", "mha.charts", "mha.app.components", "mha.app.sections"]
ROOT_NAMES = {  # what `from mha import …` still gives (mha/__init__.py re-exports the course-facing names)
    "AttentionSteps", "AttentionTrace", "MultiHeadAttention", "attention_steps", "scaled_dot_product_attention",
    "causal_mask", "combine_masks", "from_additive_mask", "from_torch_attn_mask", "padding_mask",
    "to_torch_attn_mask", "TextError", "Tokens", "display_labels", "embed_tokens", "init_weights", "safe_label",
    "sinusoidal_positions", "token_inputs", "tokenize", "check", "strings", "app",
    *[p.split(".")[1] for p in PACKAGES[:4]]}


def path_of(mod: str) -> str:
    return mod.replace(".", "/") + ".py"


def target(mod: str, name: str | None = None) -> str:
    """Where ``mod`` (or ``mod.name``) lives now."""
    if mod in SPLIT and name is not None and name in SPLIT[mod]:
        return SPLIT[mod][name]
    return MOVES.get(mod, mod)


def fmt_from(indent: str, mod: str, names: list[str]) -> str:
    line = f"{indent}from {mod} import {', '.join(names)}"
    if len(line) <= 120:
        return line
    out, cur = [], f"{indent}from {mod} import ("
    for i, n in enumerate(names):
        piece = n + (", " if i < len(names) - 1 else ")")
        if len(cur) + len(piece.rstrip()) > 120:
            out.append(cur.rstrip())
            cur = indent + "    "
        cur += piece
    out.append(cur)
    return "\n".join(out)


def alias_text(a: ast.alias, name: str | None = None) -> str:
    name = name or a.name
    return name if a.asname in (None, name) else f"{name} as {a.asname}"


def rewrite_from(node: ast.ImportFrom, indent: str) -> str | None:
    mod = node.module or ""
    if node.level or not (mod == "mha" or mod.startswith("mha.")):
        return None
    groups: dict[str, list[str]] = {}
    changed = False
    for a in node.names:
        sub = f"{mod}.{a.name}"
        if sub in MOVES or (mod == "mha" and a.name == "text"):
            if sub == "mha.text":
                raise SystemExit(f"`from mha import text` needs a hand edit (split module): line {node.lineno}")
            parent, child = MOVES[sub].rsplit(".", 1)
            groups.setdefault(parent, []).append(child if a.asname in (None, child) and child == a.name
                                                 else f"{child} as {a.asname or a.name}")
            changed = True
            continue
        new = target(mod, a.name)
        if mod in SPLIT and a.name not in SPLIT[mod] and mod in ("mha.text", "mha.app.controls"):
            raise SystemExit(f"unknown name {a.name} from {mod}")
        changed |= new != mod
        groups.setdefault(new, []).append(alias_text(a))
    if not changed:
        return None
    return "\n".join(fmt_from(indent, m, ns) for m, ns in groups.items())


def rewrite_import(node: ast.Import, indent: str) -> str | None:
    names, changed = [], False
    for a in node.names:
        new = MOVES.get(a.name, a.name)
        if a.name == "mha.text":
            new = "mha.core.tokens"
        changed |= new != a.name
        names.append(new if a.asname is None else f"{new} as {a.asname}")
    return f"{indent}import {', '.join(names)}" if changed else None


_DOTTED = re.compile(r"\bmha(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def rewrite_dotted(text: str) -> str:
    """Dotted names in strings, comments and docs: `mha.text.escape_markdown`, "mha.app.controls.t"."""
    def one(m: re.Match) -> str:
        parts = m.group(0).split(".")
        for k in range(len(parts), 1, -1):  # longest module prefix that moved
            mod = ".".join(parts[:k])
            if mod in SPLIT and k < len(parts):
                return ".".join([target(mod, parts[k])] + parts[k:])
            if mod in MOVES:
                return ".".join([MOVES[mod]] + parts[k:])
        return m.group(0)
    return _DOTTED.sub(one, text)


def path_moves() -> dict[str, str]:
    moves = {path_of(o): path_of(n) for o, n in MOVES.items()}
    moves.update(ASSETS)
    return moves


def rewrite_paths(text: str) -> str:
    moves = path_moves()
    pat = re.compile(r"(?<![\w/])(" + "|".join(re.escape(k) for k in sorted(moves, key=len, reverse=True)) + r")\b")
    return pat.sub(lambda m: moves[m.group(1)], text)


def rewrite_python(src: str) -> str:
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.ImportFrom, ast.Import)):
            first = lines[node.lineno - 1]
            indent = first[:len(first) - len(first.lstrip())]
            new = (rewrite_from if isinstance(node, ast.ImportFrom) else rewrite_import)(node, indent)
            if new is not None:
                tail = lines[node.end_lineno - 1][node.end_col_offset:]
                if node.end_lineno > node.lineno and "#" in first:  # a comment after "(" on the first line
                    new = new.replace("\n", "  " + first[first.index("#"):].rstrip() + "\n", 1) if "\n" in new \
                        else new + "  " + first[first.index("#"):].rstrip()
                edits.append((node.lineno, node.end_lineno, new + tail.rstrip("\n") + "\n"))
    for start, end, new in sorted(edits, reverse=True):
        lines[start - 1:end] = [new]
    return "".join(lines)


def rewrite_file(p: Path) -> bool:
    if p.resolve() == Path(__file__).resolve():
        return False  # its own table names the old modules
    old = p.read_text(encoding="utf-8")
    new = old
    if p.suffix == ".py":
        new = rewrite_python(new)
    new = rewrite_paths(rewrite_dotted(new))
    if new != old:
        p.write_text(new, encoding="utf-8")
        return True
    return False


def tracked(*suffixes: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / f for f in out if f.endswith(suffixes) and not f.startswith(("node_modules", "scripts/relayout"))
            and (ROOT / f).exists()]


def move() -> None:
    for pkg in PACKAGES:
        (ROOT / pkg.replace(".", "/")).mkdir(parents=True, exist_ok=True)
    for old, new in path_moves().items():
        if (ROOT / old).exists():
            subprocess.run(["git", "mv", old, new], cwd=ROOT, check=True)


if __name__ == "__main__":
    cmd, *rest = sys.argv[1:] or ["rewrite"]
    if cmd == "move":
        move()
    files = [Path(f).resolve() for f in rest] or tracked(".py", ".md", ".toml", ".cfg", ".ini", ".sh", ".yaml",
                                                         ".yml", ".txt", ".js", "Dockerfile", ".importlinter")
    n = sum(rewrite_file(f) for f in files)
    print(f"rewrote {n} files")
