"""The app in AppTest: open a page as a direct link does (``open_page``), and read what it drew (Plotly specs,
canvas payloads, tables, the URL parameters bound to its widgets)."""
from __future__ import annotations

import base64
import json
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import numpy as np
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 90  # import torch alone takes ~3 s, AppTest's default timeout is 3 s

# Folded sections whose charts are built and sent only while open (#16.3), by page: their URL parameters (a link
# opens them, as a learner's click does). Tests that read those charts open them with ``all_open(page)``.
FOLDED = {
    "pages/playground.py": ("show_cell", "show_neuron"),  # the enlarged head's (LOOKS: "look=head")
    "pages/explain.py": ("ex_show_embed", "ex_show_linear", "ex_show_split_heads", "ex_show_qk", "ex_show_scale",
                         "ex_show_mask", "ex_show_softmax", "ex_show_weighted_sum", "ex_show_combine_heads",
                         "ex_show_output_linear", "ex_show_cell"),
}


# Pages that show one of several closer looks at a time (``look=``), by the URL parameters of each, the one with the
# folds first: the Playground's look below the grid (the head view by default; the enlarged head, whose folds FOLDED
# names; the outputs). "Look", not "view": a View is the numbers (mha.weights.view).
LOOKS = {"pages/playground.py": ({"look": "head"}, {"look": "outputs"})}


def all_open(page: str) -> dict[str, str]:
    """URL parameters that open every folded section of ``page`` (none for a page without any), in the look that
    has them (``LOOKS``)."""
    return {**LOOKS.get(page, ({},))[0], **{key: "true" for key in FOLDED.get(page, ())}}


def every_look(page: str) -> list[dict[str, str]]:
    """URL parameters that together bring out every chart of ``page``: ``all_open(page)``, then each other look."""
    return [all_open(page), *LOOKS.get(page, ({},))[1:]]


def open_page(page: str | None = None, /, params: dict | None = None, *, context: dict | None = None,
              state: dict | None = None, then: dict | None = None, app: str | Path = APP,
              timeout: float = TIMEOUT, **more) -> AppTest:  # page positional-only: a link may have a "page"
    """A new session opening ``page`` (e.g. "pages/playground.py"; None or the home page's file = home) by a link
    with these URL parameters (a list value repeats the parameter), as a browser's direct link does: the one way
    tests and bench/ open a page in AppTest.

    The page is chosen before the first run, like a browser opening /playground?...: the sidebar controls are
    seeded from the parameters on that run (switching pages afterwards would start from a run at the defaults).
    ``context``: the browser's (default: an English browser at the page's URL on localhost:8501). ``state``:
    session state set before the first run (e.g. uploaded weights). Link parameters with any name (a fuzzer's:
    "context", "params", ...) go in ``params``; ``**more`` adds the usual ones.

    ``then``: controls set after the first run through session state (widget key: value), every folded section
    of the page opened with them (their charts are sent only then: ``FOLDED``, in their ``LOOKS``), and the page run
    again; it must run
    without an exception. ``d_model`` goes first, through its selectbox: the num_heads selector offers only its
    divisors. For what a link cannot seed: another page's widgets, values a link is not bound to.
    ``app``: another script (bench/'s baseline apps); ``timeout``: AppTest's per-run timeout in seconds.
    """
    params = {**(params or {}), **more}
    from mha.app.pages import PAGES, url_path

    home = page is None or page == PAGES[0][0]
    at = AppTest.from_file(str(app), default_timeout=timeout)
    at.context = {"locale": "en-US", "url": "http://localhost:8501/" + ("" if home else url_path(page))} \
        if context is None else context
    for k, v in (state or {}).items():
        at.session_state[k] = v
    for k, v in params.items():
        at.query_params[k] = v
    if not home:
        at.switch_page(page)
    at.run()
    if then is not None:
        values = dict(then)
        if "d_model" in values:
            at.selectbox(key="d_model").set_value(values.pop("d_model")).run()
        look = LOOKS.get(page, ({},))[0]  # the look whose folds FOLDED names (the Playground's enlarged head)
        for key, value in {**look, **dict.fromkeys(FOLDED.get(page, ()), True), **values}.items():
            at.session_state[key] = value
        at.run()
        assert not at.exception, f"{page} with {then}: {at.exception[0].value}"
    return at


def decode(arr):
    """A Plotly array from a chart spec as numpy: plain lists, or {"dtype", "bdata"[, "shape"]} base64."""
    if isinstance(arr, dict) and "bdata" in arr:
        out = np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"]))
        if "shape" in arr:
            shape = arr["shape"]
            out = out.reshape([int(n) for n in str(shape).split(",")] if isinstance(shape, str) else shape)
        return out
    return np.asarray(arr)


def chart_specs(at: AppTest) -> dict:
    """{position on the page: parsed Plotly spec} for every chart drawn."""
    return {n: json.loads(el.proto.spec) for n, el in enumerate(at.get("plotly_chart"))}


def charts_by_key(at: AppTest) -> dict:
    """{widget key given to st.plotly_chart: parsed Plotly spec}."""
    return {el.proto.id.split("-", 2)[-1]: json.loads(el.proto.spec) for el in at.get("plotly_chart")}


def canvas_charts(at: AppTest) -> dict:
    """{key: payload} of every heatmap drawn on a canvas in the page (``mha.app.components.heatmap_view``: the
    Playground's all-heads grid and enlarged head); ``mha.charts.heatmap_data.unpack`` gives their numbers."""
    return {el.proto.id.split("-", 2)[-1]: json.loads(el.proto.json) for el in at.get("bidi_component")
            if el.proto.component_name == "mha_heatmaps"}


def component_names(at: AppTest) -> set[str]:
    """The names of the in-page components drawn (``mha_heatmaps``, ``mha_head_view``, ``mha_share_link``, ...)."""
    return {el.proto.component_name for el in at.get("bidi_component")}


def canvas_values(payload: dict) -> np.ndarray:
    """The exact numbers of a canvas payload, (H, Tq, Tk) float64."""
    from mha.charts.heatmap_data import unpack

    return unpack(payload)["values"].astype(float)


def canvas_as_spec(payload: dict) -> dict:
    """A canvas payload in the shape of a Plotly heatmap spec (one heatmap trace per head, one colour axis whose
    colour bar title is the bar's lines joined by <br>), for tests that check every weights chart of a page alike."""
    title = "<br>".join(payload["bar"]["title"])
    return {"data": [{"type": "heatmap", "z": z.tolist()} for z in canvas_values(payload)],
            "layout": {"coloraxis": {"cmin": payload["lo"], "cmax": payload["hi"],
                                     "colorbar": {"title": {"text": title}}}}}


def heatmaps(spec: dict, name: str | None = None) -> list[np.ndarray]:
    """The z matrices of the heatmap traces in a spec (the mask overlays, named "masked", are left out)."""
    return [decode(tr["z"]).astype(float) for tr in spec["data"]
            if tr.get("type") == "heatmap" and tr.get("name") != "masked" and (name is None or tr.get("name") == name)]


def all_numbers_finite(spec: dict) -> bool:
    """No NaN or infinity in any numeric array of any trace."""
    for tr in spec["data"]:
        for field in ("z", "x", "y"):
            v = tr.get(field)
            if isinstance(v, dict) and "bdata" in v:
                if not np.isfinite(decode(v).astype(float)).all():
                    return False
            elif isinstance(v, list) and v and all(isinstance(e, (int, float)) or e is None for e in np.ravel(v)):
                if any(e is None for e in np.ravel(v)) or not np.isfinite(np.asarray(v, dtype=float)).all():
                    return False
    return True


def nonfinite_in(spec: dict) -> list[str]:
    """Where a chart spec holds a NaN or an infinity: every trace field, nested or not (z, x, y, customdata, text,
    marker colours, ...) and every number of the layout. base64 arrays are decoded; in a plain list of numbers a
    None counts as NaN too (Plotly's JSON encoder writes NaN as null there). Empty list = all finite."""
    found: list[str] = []

    def walk(v, path: str, in_data: bool) -> None:
        if isinstance(v, dict):
            if "bdata" in v and "dtype" in v:
                arr = decode(v)
                if arr.dtype.kind in "fc" and not np.isfinite(arr).all():
                    found.append(path)
                return
            for k, sub in v.items():
                walk(sub, f"{path}.{k}", in_data)
        elif isinstance(v, list):
            numbers = [e for e in v if isinstance(e, (int, float)) and not isinstance(e, bool)]
            if in_data and numbers and any(e is None for e in v):
                found.append(path)
            elif any(isinstance(e, float) and not np.isfinite(e) for e in numbers):
                found.append(path)
            for n, e in enumerate(v):
                if isinstance(e, (dict, list)):
                    walk(e, f"{path}[{n}]", in_data)
        elif isinstance(v, float) and not np.isfinite(v):
            found.append(path)

    for n, trace in enumerate(spec.get("data", [])):
        walk(trace, f"data[{n}]", True)
    walk(spec.get("layout", {}), "layout", False)
    return found


def bound_url_keys(at: AppTest) -> list[str]:
    """The URL parameters of the view the last run drew: the keys of its widgets bound to the URL."""
    from mha.app import internals  # AppTest has no public API for it: the one module of internals reads it

    return internals.bound_params(at)


def table(at: AppTest, key: str):
    """The pandas data of the table drawn with ``mha.app.widgets.table(..., key)`` (or an ``st.table`` in a
    container keyed ``key``), found by that key."""
    def find(node):
        for child in getattr(node, "children", {}).values():
            if getattr(child, "key", None) == key and getattr(child, "type", None) == "flex_container":
                frames = [c for c in child.children.values() if getattr(c, "type", None) in ("dataframe", "table")]
                assert len(frames) == 1, f"container {key!r} holds {len(frames)} tables"
                return frames[0].value
            found = find(child)
            if found is not None:
                return found
        return None

    found = find(page_root(at))
    assert found is not None, f"no table with key {key!r} on the page"
    return found


def link_params(at: AppTest, *, lists: bool = False) -> dict:
    """The URL parameters of the view's link as the link box gives it (after the page has drawn its controls once):
    {name: first value}; ``lists``: {name: every value}, blank ones too (as ``parse_qs`` gives them)."""
    query = urlsplit(at.session_state["_share_link"]).query
    if lists:
        return parse_qs(query, keep_blank_values=True)
    return {k: v[0] for k, v in parse_qs(query).items()}


def sidebar_texts(at: AppTest) -> str:
    """The sidebar's words, one element a line: its captions, errors, warnings, infos and markdown."""
    return "\n".join(str(e.value) for kind in ("caption", "error", "warning", "info", "markdown")
                     for e in at.sidebar.get(kind))


def page_root(at: AppTest):
    """The whole page the last run drew, sidebar and main area, as one node with ``children`` (for tree walkers)."""
    return SimpleNamespace(children={"sidebar": at.sidebar, "main": at.main})
