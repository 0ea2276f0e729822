"""The Check your code page (``page``, which pages/check.py calls) and its sections: the editor with its examples,
upload and link; the Check button, which hands the code to the sandboxed worker (``mha.check.worker.run_check``) on a
thread of its own; and the answer: a refusal next to the editor, the verdict, both tensors of the first step that
differs, the shape trace, the bug and its fix, the checks that need no reference, a crash explained.

The learner's code is never run here: it is text, shown only through ``st.code`` / ``st.text_area`` or escaped by
``mha.core.markup.escape_markdown`` (the one helper) when a message quotes it. Streamlit glue only.

The code is in the link (``code``: ``mha.check.code_link``, a hidden control bound to the URL like every other
control), so the sidebar's link box shares it with the sentence and settings: a teacher's exercise.
"""
from __future__ import annotations

import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import streamlit as st

from mha.app import frame
from mha.app.components.component import asset
from mha.app.state import CUSTOM_WEIGHTS_KEY, current_view, settings
from mha.app.widgets import chart_words, file_uploader, hide, lang, t
from mha.charts import figures
from mha.check import code_link, examples, worker
from mha.core import i18n
from mha.core.errors import LearnerError
from mha.core.markup import escape_markdown
from mha.core.tokens import display_labels

EDITOR, LINK, UPLOAD = "ck_editor", "code", "ck_upload"  # widget keys; LINK is the URL parameter
EDITOR_CSS = "<style>" + asset(__file__, ".css") + "</style>"  # check.css: the editor's monospace (by EDITOR)
MAX_UPLOAD_BYTES = 4 * code_link.MAX_CODE_CHARS
STEPS = ("projections", "split", "scores", "scale", "mask", "softmax", "weighted_sum", "combine", "output")
SQUARE_STEPS = {"scores": "scores", "scale": "scores", "mask": "scores", "softmax": "weights"}  # (Tq, Tk) maps
# (T, features) maps, by what the colour bar names: the diagnosis compares q at projections and split
FEATURE_STEPS = {"projections": "query", "split": "query", "weighted_sum": "head_outputs", "combine": "concat"}
TRACE_LINES = 200  # a forward in a loop can make thousands of calls: the first ones tell the story
HALF_PX = 460  # a chart in one of two columns (1400 px window)
POLL_S = 0.4
DIAGNOSES = ("equal", "differs", "crash", "unsupported", "bad_output")  # mha.check.diagnose's statuses

# Checks of every session run on these threads (each waits on a worker process): two at once for the server, the
# machine's two cores; a third waits its turn. A visitor's Playground never waits on them.
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="mha-check")


def enabled() -> bool:
    """False when the host turned learner code off (``MHA_CHECK=off``; docs/security.md): the worker's setting."""
    return worker.enabled()


def warm() -> None:
    """Start the server's checkers (in the background) when the page is opened: the first Check finds one warm
    instead of waiting for a worker to import torch. A no-op once they run."""
    worker.prestart()


def uploaded_weights() -> bool:
    """Whether this session's uploaded weights are in use elsewhere (the check runs on the seeded ones)."""
    return bool(st.session_state.get(CUSTOM_WEIGHTS_KEY))


# ------------------------------------------------------------------------------------------------ messages


def _safe(value):
    """A value for a message: numbers as they are (format specs apply), anything else escaped as literal text."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (int, np.integer)) for v in value):
        return escape_markdown(_shape(value))
    return escape_markdown(str(value), 300)


_CODE_SPAN = re.compile(r"`([^`]*\{[^`{}]+\}[^`]*)`")  # a catalog's `{name}`, `{owner}.{name} = …`


def message(key, fmt: dict | None = None) -> str:
    """The catalog's text for a key the worker or the diagnosis sent, with every value escaped: inside a code span
    of the text (`{name}`) as code, elsewhere as literal text. A key this page does not know (or values that do
    not fit it) gives a message that names the key, never an exception."""
    unknown = t("ck_unknown_message", key=escape_markdown(str(key), 60, code=True))
    entry = i18n.CATALOG.get(key) if isinstance(key, str) else None
    if entry is None:
        return unknown
    fmt = {str(k): v for k, v in dict(fmt or {}).items()}
    template = entry.get(lang()) or entry["en"]
    values: dict = {}
    try:
        def span(m: re.Match) -> str:  # the span's text with the values as given, fenced as one code span
            name = f"_ck_span_{len(values)}"
            raw = {k: v if isinstance(v, (int, float)) else _shape(v) if isinstance(v, (list, tuple)) else str(v)
                   for k, v in fmt.items()}
            values[name] = escape_markdown(m.group(1).format(**raw), 200, code=True)
            return "{" + name + "}"

        template = _CODE_SPAN.sub(span, template)
        return i18n.fill(template, **{k: _safe(v) for k, v in fmt.items()}, **values)
    except (KeyError, ValueError, IndexError, TypeError, AttributeError):
        return unknown


def _name(*keys: str, fallback: str = "") -> str:
    """The first of ``keys`` the catalog has, in the page's language; else ``fallback`` escaped."""
    for key in keys:
        if key in i18n.CATALOG:
            return t(key)
    return escape_markdown(fallback, 80)


def step_name(step) -> str:
    return _name(f"ck_step_{step}", fallback=str(step))


def _shape(value) -> str:
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, np.integer)) for v in value):
        return "(" + ", ".join(str(int(v)) for v in value) + ")"
    if isinstance(value, (list, tuple)):
        return ", ".join(_shape(v) for v in value)
    return str(value)


def excerpt(code: str, line, col=None) -> str | None:
    """Line ``line`` (1-based) of ``code`` with its number, and a caret under column ``col``: shown as code."""
    lines = code.split("\n")
    if not isinstance(line, int) or not 1 <= line <= len(lines):
        return None
    text = lines[line - 1].expandtabs(4)[:200]
    out = f"{line:>4} | {text}"
    if isinstance(col, int) and col >= 1:
        out += "\n" + " " * (7 + min(col - 1, len(text))) + "^"
    return out


# --------------------------------------------------------------------------------------------- the code itself


def _set_code(code: str) -> None:
    """Put ``code`` in the editor and in the link (none for the starter; none, with a note, when too long)."""
    st.session_state[EDITOR] = code
    _code_to_link(code)


def _code_to_link(code: str) -> None:
    st.session_state.pop("_ck_link_note", None)
    st.session_state.pop("_ck_link_error", None)  # the learner has moved on from a link that could not be read
    try:
        value = "" if code in examples.STARTERS else code_link.encode(code)
    except LearnerError as err:
        value = ""
        st.session_state["_ck_link_note"] = (err.key, err.fmt)
    st.session_state[LINK] = st.session_state["_ck_link_seen"] = value


def link_holder() -> None:
    """The hidden control that holds the code in the link. A new value (a link opened, the back button) is decoded
    into the editor; one that cannot be read leaves the starter there, with a note next to the editor."""
    hide(LINK)
    value = st.text_input(LINK, key=LINK, bind="query-params", label_visibility="collapsed") or ""
    if value == st.session_state.get("_ck_link_seen"):
        return
    st.session_state["_ck_link_seen"] = value
    st.session_state.pop("_ck_link_error", None)
    if not value:
        return
    try:
        st.session_state[EDITOR] = code_link.decode(value)
    except LearnerError as err:
        st.session_state["_ck_link_error"] = (err.key, err.fmt)
        st.session_state[EDITOR] = examples.starter(lang())


def example_buttons() -> None:
    """One click puts an example in the editor (and in the link)."""
    st.caption(t("ck_examples"))
    with st.container(horizontal=True, key="ck_examples"):
        for ex in examples.EXAMPLES:
            code = examples.starter(lang()) if ex.id == "starter" else ex.code  # its words in the page's language
            st.button(t(ex.title_key), key=f"ck_load_{ex.id}", on_click=_set_code, args=(code,))


def editor() -> str:
    """The editor: a monospace text area (see docs: a code-editor component cannot be driven by AppTest, and the
    maintained ones are iframes; the numbered view below it gives the lines the messages point at)."""
    if st.session_state.get(EDITOR) in (None, *examples.STARTERS):  # an untouched starter follows the language
        st.session_state[EDITOR] = examples.starter(lang())
    st.html(EDITOR_CSS)
    code = st.text_area(t("ck_editor"), key=EDITOR, height=460, max_chars=code_link.MAX_CODE_CHARS,
                        help=t("ck_editor_help", max=code_link.MAX_CODE_CHARS),
                        on_change=lambda: _code_to_link(st.session_state.get(EDITOR) or ""),
                        persist_state="session")
    if "_ck_link_error" in st.session_state:
        key, fmt = st.session_state["_ck_link_error"]
        st.warning(message(key, fmt), icon="🔗")
    return code or ""


def numbered(code: str) -> None:
    """The code with its line numbers, the numbers every message, trace line and fix points at."""
    with st.expander(t("ck_lines")):
        st.code(code, language="python", line_numbers=True)


def _on_upload() -> None:
    f = st.session_state.get(UPLOAD)
    st.session_state.pop("_ck_upload_note", None)
    if f is None:
        return
    try:
        code = code_link.read_upload(f.getvalue(), MAX_UPLOAD_BYTES)
    except LearnerError as err:
        st.session_state["_ck_upload_note"] = ("warning", err.key, err.fmt)
        return
    _set_code(code)
    st.session_state["_ck_upload_note"] = ("caption", "ck_uploaded", {"name": getattr(f, "name", "")})


def upload() -> None:
    file_uploader(t("ck_upload"), UPLOAD, ["py"], 1, on_change=_on_upload,
                  help=t("ck_upload_help", max_kb=MAX_UPLOAD_BYTES // 1000))
    note = st.session_state.get("_ck_upload_note")
    if note:
        kind, key, fmt = note
        (st.warning if kind == "warning" else st.caption)(message(key, fmt))


# ------------------------------------------------------------------------------------------------ the check


def request_for(view, s) -> dict:
    """What the worker gets: the sentence's tokens and embeddings, the sizes, the mask (1 = may attend; None for
    none) and the seed of the parameters. Self-attention: a keys/values text is not used here."""
    allowed = np.asarray(view.allowed[0])  # (Tq, Tk): the same for every head
    mask = None if view.is_cross or allowed.all() else allowed.astype(int).tolist()
    # 6 decimals: the worker and our module both read these numbers; 128 tokens x d_model 512 stay under the
    # worker's 1 MB request (full float reprs were 1.35 MB)
    x = np.round(np.asarray(view.x, dtype=float), 6)
    return {"tokens": list(view.tokens), "x": [x.tolist()], "d_model": s.d_model,
            "num_heads": s.num_heads, "mask": mask, "seed": s.seed}


@dataclass
class Job:
    future: Future
    code: str
    request: dict


def _check(run_check, code: str, request: dict) -> dict:
    try:
        result = run_check(code, request)
        return result if isinstance(result, dict) else {"status": "failed"}
    except Exception:  # noqa: BLE001 the worker's own failure: a message, never a traceback on the page
        return {"status": "failed"}


def _start(code: str, request: dict) -> None:
    """The Check button: one check at a time per session; a click while one runs says so."""
    job = st.session_state.get("_ck_job")
    if job is not None and not job.future.done():
        st.session_state["_ck_busy"] = True
        return
    st.session_state["_ck_job"] = Job(_POOL.submit(_check, worker.run_check, code, request), code, request)


def _ask() -> None:
    st.session_state["_ck_asked"] = True


def check_button(code: str, request: dict, asked: bool) -> None:
    """The Check button. Its click is noted by a callback (so that it counts on a session's first page too, whose
    widget ids change after the first run) and read at the top of the page (``asked``: a run that stops early, on
    an empty sentence, does not keep it for later); the check starts here, on the code and settings of this run.
    (The callback's own arguments would be those drawn the run before: pasting code and pressing Check at once,
    the editor's new text and the click arrive together, and the old text would be checked.)"""
    st.button(t("ck_run"), key="ck_run", type="primary", icon="🩺", on_click=_ask)
    if asked:
        _start(code, request)


def answer_area(code: str, request: dict) -> None:
    """Under the Check button: while a check runs, a note (this part alone reruns until the answer is there);
    then the answer."""
    job = st.session_state.get("_ck_job")
    running = job is not None and not job.future.done()

    @st.fragment(run_every=POLL_S if running else None)
    def area() -> None:
        job = st.session_state.get("_ck_job")
        if job is not None:
            if not job.future.done():
                st.info(t("ck_running"), icon="⏳")
                if st.session_state.get("_ck_busy"):
                    st.caption(t("ck_busy"))
                return
            st.session_state["_ck_result"] = (job.future.result(), job.code, job.request)
            st.session_state.pop("_ck_job", None)
            st.session_state.pop("_ck_busy", None)
            if running:
                st.rerun()  # the whole page, once: the timer stops and every section shows the answer
        found = st.session_state.get("_ck_result")
        if found is not None:
            result, checked_code, checked_request = found
            if (checked_code, checked_request) != (code, request):
                st.caption(t("ck_stale"))
            show_answer(result, checked_code, checked_request)

    area()


# ------------------------------------------------------------------------------------------------ the answer


def show_answer(result: dict, code: str, request: dict) -> None:
    status = result.get("status")
    if status == "failed":
        st.warning(t("ck_failed"), icon="⚠️")
    elif status in ("refused", "limit", "off", "error") or (status not in DIAGNOSES and result.get("key")):
        st.warning(message(result.get("key"), result.get("fmt")), icon="✋")
        line, col = result.get("line"), result.get("col")
        shown = excerpt(code, line, col)
        if shown:
            st.caption(t("ck_at_line", line=line, col=col) if isinstance(col, int) else t("ck_at_line_only", line=line))
            st.code(shown, language="text")
    elif status in DIAGNOSES:
        verdict(result, code, request)
    else:
        st.warning(t("ck_unknown_message", key=escape_markdown(str(status), 60, code=True)))


def _diff(x) -> str:
    if not isinstance(x, (int, float)) or not np.isfinite(x):
        return "—"
    return "0" if x == 0 else f"{x:.2e}"


def verdict(result: dict, code: str, request: dict) -> None:
    status = result["status"]
    heads = request["num_heads"]
    st.caption(t("ck_on", n=len(request["tokens"]), d_model=request["d_model"], num_heads=heads,
                 seed=request["seed"], mask=t("ck_on_mask") if request.get("mask") else ""))
    said = result.get("message") or {}
    if status == "equal":
        st.success(t("ck_equal", max_diff=_diff(result.get("max_diff"))), icon="✅")
    elif status == "differs":
        st.info(t("ck_differs", step=step_name(result.get("first_step")), max_diff=_diff(result.get("max_diff"))),
                icon="🔎")
    if said.get("key"):
        (st.markdown if status in ("equal", "differs") else st.warning)(message(said["key"], said.get("fmt")))
    if status == "crash":
        crash(result.get("crash") or {}, code)
    bug(result.get("bug"), code)
    steps = result.get("steps") or []
    first = next((s for s in steps if s.get("id") == result.get("first_step")), None)
    if status == "differs" and first is not None:
        step_maps(first, display_labels(request["tokens"]))  # the checked sentence's, even if the sidebar moved on
    if steps:
        step_table(steps, result.get("first_step"))
    if result.get("trace") or status != "unsupported":  # nothing was run when nothing could be checked
        trace(result.get("trace") or [])
    checks(result.get("checks") or [], result.get("checks_skipped") or [])


def _matrix(m):
    try:
        a = np.asarray(m, dtype=float)
    except (TypeError, ValueError):
        return None
    return a if a.ndim == 2 and a.size else None


def _labels(n: int, labels) -> list[str]:
    return list(labels) if len(labels) == n else [str(i) for i in range(n)]


def step_maps(step: dict, labels: list[str]) -> None:
    """Their tensor and ours for the step, side by side, on one colour scale (the app's rule: weights 0 … top in
    blue, anything signed red-blue around 0); a cell that is not a finite number is grey, never NaN on a chart."""
    words = chart_words()
    ours, theirs = _matrix(step.get("ours")), _matrix(step.get("theirs"))
    if isinstance(step.get("head"), int):
        st.caption(t("ck_of_head", head=step["head"]))
    if ours is not None and theirs is not None and ours.shape != theirs.shape:
        st.caption(t("ck_shape_differs", theirs=_shape(theirs.shape), ours=_shape(ours.shape)))
    shown = [m for m in (theirs, ours) if m is not None]
    finite = [np.where(np.isfinite(m), m, 0.0) for m in shown]
    kind = SQUARE_STEPS.get(step.get("id"), "output")
    top = figures.weights_top(finite) if kind == "weights" else figures.symmetric_range(*finite)
    left, right = st.columns(2)
    for col, title, m, key in ((left, "ck_theirs", theirs, "ck_theirs_chart"), (right, "ck_ours", ours,
                                                                                "ck_ours_chart")):
        col.markdown(f"**{t(title)}**")
        if m is None:
            col.caption(t("ck_theirs_missing"))
            continue
        ok = np.isfinite(m)
        z = np.where(ok, m, 0.0)
        rows = _labels(m.shape[0], labels)
        if kind in ("weights", "scores"):
            fig = figures.head_heatmap(z, rows, _labels(m.shape[1], labels), kind=kind,
                                       allowed=ok if not ok.all() else None, clickable=False, zmax=top,
                                       width_px=HALF_PX, words=words)
        else:
            fig = figures.features_heatmap(z, rows, kind=FEATURE_STEPS.get(step.get("id"), "output"), zmax=top,
                                           words=words)
        col.plotly_chart(figures.readable_ticks(fig), key=key, width="content" if fig.layout.width else "stretch")


def step_table(steps: list, first) -> None:
    """Every step compared: its name and the largest difference (or that their code had none)."""
    lines = []
    for s in steps:
        mark = "▶ " if s.get("id") == first else "  "
        diff = s.get("max_diff")
        lines.append(f"{mark}{step_name(s.get('id'))}: "
                     f"{_diff(diff) if s.get('theirs') is not None or diff is not None else t('ck_not_found')}")
    with st.expander(t("ck_steps")):
        st.code("\n".join(lines), language="text")


def trace(items: list) -> None:
    st.subheader(t("ck_trace"))
    st.caption(t("ck_trace_help"))
    if not items:
        st.caption(t("ck_trace_empty"))
        return
    first = next((n for n, it in enumerate(items) if isinstance(it, dict) and it.get("wrong")), None)
    lines = []
    for n, it in enumerate(items[:TRACE_LINES]):
        if not isinstance(it, dict):
            continue
        if it.get("skipped"):
            lines.append(f"       … +{int(it['skipped'])}")
            continue
        line = it.get("line")
        where = f"{line:>4}" if isinstance(line, int) else "   ·"
        out = "✗" if it.get("out") is None else _shape(it.get("out"))  # the call that failed
        lines.append(f"{'▶' if n == first else ' '} {where}  {str(it.get('op', '?'))[:40]:<14} "
                     f"{_shape(it.get('in', ''))} -> {out}")
    if len(items) > TRACE_LINES:
        lines.append(f"       … +{len(items) - TRACE_LINES}")
    st.code("\n".join(lines), language="text")


def _fix_diff(fix: dict) -> str | None:
    """The fix as a unified diff against their lines: one hunk per line (the first, then ``more``)."""
    hunks = []
    for f in [fix, *(fix.get("more") or [])]:
        if not isinstance(f, dict) or f.get("old") is None:
            continue
        line = f.get("line") if isinstance(f.get("line"), int) else "?"
        body = "".join(f"-{x}\n" for x in str(f["old"]).split("\n"))
        if f.get("new") is not None:
            body += "".join(f"+{x}\n" for x in str(f["new"]).split("\n"))
        hunks.append(f"@@ {line} @@\n{body}")
    return "".join(hunks) or None


def bug(found, code: str) -> None:
    """The bug by name, what it does (to the heatmaps too), the fix as a diff against their own code, and the
    Bug zoo's page of it when it is one of the zoo's."""
    if not isinstance(found, dict) or not found.get("id"):
        return
    bid = str(found["id"])
    st.subheader(t("ck_bug", name=_name(str(found.get("name", "")), f"bz_{bid}_title", fallback=bid)))
    effect = next((k for k in (str(found.get("effect", "")), f"bz_{bid}_explain") if k in i18n.CATALOG), None)
    if effect:
        st.markdown(message(effect, found.get("fmt")))
    fix = found.get("fix")
    diff = _fix_diff(fix) if isinstance(fix, dict) else None
    if diff:
        line = fix.get("line")
        st.caption(t("ck_fix", line=line if isinstance(line, int) else "?"))
        st.code(diff, language="diff")
    if found.get("zoo") or bid in _zoo_ids():
        st.page_link("pages/bugs.py", label=t("ck_in_zoo"), icon="🐛", query_params={"bz_bug": bid})


def _zoo_ids() -> tuple[str, ...]:
    from mha.lessons.bugs import BUG_NAMES

    return BUG_NAMES


def _check_text(c: dict) -> str:
    cid = str(c.get("id", ""))
    key = c.get("key") or next((k for k in (f"dg_check_{cid}", f"check_{cid}", cid) if k in i18n.CATALOG), cid)
    return message(key, c.get("fmt"))


def checks(items: list, skipped: list) -> None:
    """The checks that need no reference weights: each holds or fails on their code alone; a check that could
    not run says why."""
    if not items and not skipped:
        return
    st.subheader(t("ck_checks"))
    st.caption(t("ck_checks_help"))
    lines = [f"- {'✅ ' + t('ck_passed') if c.get('passed') else '❌ ' + t('ck_failed_check')}: {_check_text(c)}"
             for c in items if isinstance(c, dict)]
    for c in skipped:
        if isinstance(c, dict):
            name = _name(f"ck_check_{c.get('id')}", fallback=str(c.get("id")))
            lines.append(f"- ➖ {t('ck_skipped')}: {name} ({message(c.get('reason'), c.get('fmt'))})")
    st.markdown("\n".join(lines))


def crash(info: dict, code: str) -> None:
    """Their code raised: where (their line), the shapes that met, and what the course's code does there."""
    st.warning(t("ck_crash"), icon="💥")
    if info.get("key"):
        st.markdown(message(info["key"], info.get("fmt")))
    shown = excerpt(code, info.get("line"))
    if shown:
        st.caption(t("ck_at_line_only", line=info["line"]))
        st.code(shown, language="text")
    if info.get("error") or info.get("text"):
        st.code(f"{str(info.get('error', ''))[:80]}: {str(info.get('text', ''))[:300]}".strip(": "), language="text")
    if info.get("shapes"):
        st.markdown(t("ck_crash_shapes", shapes=escape_markdown(_shape(info["shapes"]), 200, code=True)))
    if info.get("ours"):
        st.caption(t("ck_crash_ours"))
        st.code(str(info["ours"]), language="python")


# -------------------------------------------------------------------------------------------------- the link


def page_link(code: str, label: str, container=None) -> None:
    """A link to this page with ``code`` in the editor (another page's way in: the Bug zoo's bug as code)."""
    (container or st).page_link("pages/check.py", label=label, icon="🩺", query_params={LINK: code_link.encode(code)})


def link_section() -> None:
    """The teacher's link: the sidebar's link box carries the code; here, how much of a link it takes."""
    with st.expander(t("ck_link_title"), icon="🔗"):
        st.markdown(t("ck_link_help"))
        note = st.session_state.get("_ck_link_note")
        value = st.session_state.get(LINK) or ""
        if note:
            st.warning(message(*note))
        elif not value:
            st.caption(t("ck_link_starter"))
        else:
            st.caption(t("ck_link_size", n=len(value), max=code_link.MAX_LINK_CHARS))
        link = st.session_state.get("_share_link")
        if link:
            st.code(link, language="text", wrap_lines=True)


@frame.page
def page() -> None:
    """A learner's class checked against the course's module on the sidebar's sentence."""
    st.title(f"🩺 {t('ck_title')}")
    st.markdown(t("ck_intro"))
    asked = st.session_state.pop("_ck_asked", False)  # the Check button's click, this run only (check_button)
    if not enabled():
        st.info(t("ck_off"), icon="🔒")
        st.stop()
    warm()
    view = current_view()
    if view is None:
        st.stop()
    s = settings()
    if view.is_cross:
        st.caption(t("ck_cross"))
    if s.source != "random" or uploaded_weights():
        st.caption(t("ck_source"))

    link_holder()  # before the editor: a link's code goes into it
    example_buttons()
    upload()
    code = editor()
    request = request_for(view, s)
    check_button(code, request, asked)
    answer_area(code, request)  # right under the editor: a refusal, else the verdict and what follows
    numbered(code)
    link_section()
