"""The Masks page's pieces (Streamlit layer): the mask kind picker, the custom mask editor (a table of checkboxes
and the same mask as URL-bound text), the mask / masked scores / weights charts, a query with nothing to attend to,
the two boolean conventions and the live check against PyTorch. ``page`` (which ``pages/masks.py`` calls) calls them
in order.

Masks and masked attention come from ``mha.weights.batch``, the comparison with torch from ``mha.weights.torch_check``.
"""
from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import streamlit as st
import torch

from mha.app import frame
from mha.app.compute import cached, cached_figure
from mha.app.state import Settings, current_view, session_weights, settings
from mha.app.widgets import chart_words, head_picker, lang, named_choice, t, table, token_picker, weights_scale
from mha.charts import figures
from mha.core.i18n import code_comments
from mha.core.markup import escape_markdown
from mha.core.masks import to_torch_attn_mask
from mha.weights import torch_check as tc
from mha.weights.batch import (
    CUSTOM_STARTS,
    MAX_CUSTOM,
    PAD,
    MaskTextError,
    apply_cell_edits,
    apply_mask,
    block_row,
    custom_start,
    decode_mask,
    encode_mask,
    mask_kinds,
    sentence_mask,
)
from mha.weights.view import View


def check(view, allowed, convert=True) -> tc.TorchCheck:
    """The live check of this sentence and mask against PyTorch, cached (keyed on the view's spec, the mask's bytes
    and the weights' sha256)."""
    return cached(tc.check_sentence, view, np.asarray(allowed, dtype=bool), convert=convert,
                  weights=session_weights(view.spec.d_model))


def names(labels) -> list[str]:
    """Table headers: position and token ("2 the"), unique even for repeated words (plain text, not for Plotly)."""
    return [f"{i} {lab}" for i, lab in enumerate(labels)]


CELLS, TABLE = "mk_cells", "_mk_custom_table"  # the mask as text (URL-bound); what the table showed on the last run


def _restart(tq: int, tk: int) -> None:
    """A start chosen (a callback: before any widget is drawn): the mask becomes that pattern."""
    st.session_state[CELLS] = encode_mask(custom_start(st.session_state["mk_custom_start"], tq, tk))


REFUSED = "_mk_cells_refused"  # a typed mask that could not be used: (text, error key, error args)


def _tidy(tq: int, tk: int) -> None:
    """A typed mask that fits is written back the way the link writes it (a dot between rows). One that does not is
    taken back out of the box (and so out of the link, which must show what the page shows): the last valid mask
    returns, and the page quotes what was typed with what is wrong, next to the box."""
    typed = st.session_state[CELLS]
    try:
        st.session_state[CELLS] = encode_mask(decode_mask(typed, tq, tk))
    except MaskTextError as err:
        shown = (st.session_state.get(TABLE) or {}).get("shown")
        if shown is not None and _fits(shown, tq, tk):
            st.session_state[CELLS] = shown
            st.session_state[REFUSED] = (typed, err.key, dict(err.fmt))


def _table_now(last: dict, crc: int, tq: int, tk: int, cols: list[str]) -> np.ndarray | None:
    """The mask the table shows now (the mask it started from plus the learner's clicks); None when the last run drew
    no table for these labels."""
    if last.get("crc") != crc or last.get("key") not in st.session_state:
        return None
    return apply_cell_edits(decode_mask(last["origin"], tq, tk), st.session_state[last["key"]].get("edited_rows"), cols)


def _clicked(crc: int, tq: int, tk: int, cols: list[str]) -> None:
    """A click in the table (a callback, so the link is right on this very run): the text follows the table."""
    table = _table_now(st.session_state.get(TABLE) or {}, crc, tq, tk, cols)
    if table is not None:
        st.session_state[CELLS] = encode_mask(table)


def custom_mask(tq: int, tk: int, q_labels, k_labels) -> np.ndarray | None:
    """The learner's mask, or None (with a message) when too big: a table of checkboxes and the same mask as text
    (URL-bound, so the link carries it; it can be typed or pasted too). The text is the truth; the table keeps its
    widget while it agrees with the text, and starts afresh from the text when the text changed some other way."""
    st.markdown(f"**{t('mk_custom_title')}**")
    if max(tq, tk) > MAX_CUSTOM:
        st.session_state.pop(TABLE, None)
        st.warning(t("mk_custom_too_big", max=MAX_CUSTOM, tq=tq, tk=tk))
        return None
    # Not in the link: the text below holds the whole mask. Choosing a start resets the mask to it.
    start = st.segmented_control(t("mk_custom_start"), CUSTOM_STARTS, default="all", key="mk_custom_start",
                                 required=True, format_func=lambda s: t(f"mk_start_{s}"), on_change=_restart,
                                 args=(tq, tk))
    cols, rows = names(k_labels), names(q_labels)
    crc = zlib.crc32(" ".join(cols + rows).encode())  # another sentence: another table
    pattern = encode_mask(custom_start(start, tq, tk))
    default = encode_mask(np.ones((tq, tk), dtype=bool))  # what a link without the parameter means
    last = st.session_state.get(TABLE) or {}
    table = _table_now(last, crc, tq, tk, cols)
    dropped = False
    if CELLS in st.session_state:  # widgets may still be given values here, before they are drawn
        if table is not None and encode_mask(table) != last["shown"]:
            st.session_state[CELLS] = encode_mask(table)  # clicked since the last run (AppTest sets edits directly)
        elif last.get("crc") != crc and not _fits(st.session_state[CELLS], tq, tk):  # another sentence since
            dropped = st.session_state[CELLS] != last.get("pattern")  # a mask the learner made, not a start pattern
            st.session_state[CELLS] = pattern
    st.caption(t("mk_custom_help"))
    box = st.container()  # the table goes above the text, but is drawn after it: it shows what the text says
    text = st.text_input(t("mk_cells"), value=default, key=CELLS, bind="query-params", on_change=_tidy, args=(tq, tk),
                         help=t("mk_cells_help", example=encode_mask(custom_start("causal", 3, 3))))
    refused = st.session_state.pop(REFUSED, None)
    if refused is not None:  # typed, refused, and the box already back on the last valid mask (see _tidy)
        typed, key, args = refused
        args = {**args, **({"char": escape_markdown(args["char"], code=True)} if "char" in args else {})}
        st.error(f"{escape_markdown(typed[:60], code=True) if typed.strip() else '(empty)'}: {t(key, **args)} "
                 f"{t('mk_cells_expected', tq=tq, tk=tk)} {t('mk_cells_kept')}")
    try:
        mask = decode_mask(text, tq, tk)
    except MaskTextError as err:
        mask = table if table is not None else custom_start(start, tq, tk)
        args = {**err.fmt, **({"char": escape_markdown(err.fmt["char"], code=True)} if "char" in err.fmt else {})}
        st.error(f"{t(err.key, **args)} {t('mk_cells_expected', tq=tq, tk=tk)} "
                 f"{t('mk_cells_start' if table is None else 'mk_cells_kept')}")
    if dropped:
        st.info(t("mk_cells_dropped", tq=tq, tk=tk))
    if table is not None and (table == mask).all():
        key, origin = last["key"], last["origin"]
    else:
        origin = encode_mask(mask)
        key = f"mk_custom_{crc}_{zlib.crc32(origin.encode())}"
    with box:
        st.data_editor(pd.DataFrame(decode_mask(origin, tq, tk), columns=cols, index=rows), key=key,
                       column_config={c: st.column_config.CheckboxColumn(c, width="small") for c in cols},
                       on_change=_clicked, args=(crc, tq, tk, cols))
    st.session_state[TABLE] = {"crc": crc, "key": key, "origin": origin, "shown": encode_mask(mask), "pattern": pattern}
    return mask


def _fits(text: str, tq: int, tk: int) -> bool:
    try:
        decode_mask(text, tq, tk)
        return True
    except MaskTextError:
        return False


# a third of the page's main column: 302 px measured in Chromium at a 1400 px window (wide layout, gaps taken off).
# Wider, and Plotly draws the figure into the column with its margins kept, so the cells come out ~17 x 24 px.
THIRD_PX = 300


def sidebar_kind(s: Settings) -> str:
    """The mask the sidebar's switches give every page (``Settings.causal`` is already off in cross-attention)."""
    return {(True, True): "causal_padding", (True, False): "causal", (False, True): "padding",
            (False, False): "none"}[(s.causal, s.padding)]


def kind_picker(view: View, s: Settings) -> str:
    """Which mask the page shows: none, causal, padding, both (self-attention only for causal) or the learner's.

    One source of truth: the page opens on the sidebar's mask and follows the sidebar's switches until the learner
    picks another one here, and it says which of the two it shows."""
    kinds = mask_kinds(view.is_cross)
    default_kind = sidebar_kind(s)
    before = st.session_state.get("_mk_sidebar_kind")
    st.session_state["_mk_sidebar_kind"] = default_kind
    if before not in (None, default_kind) and st.session_state.get("mk_kind") == before:
        st.session_state["mk_kind"] = default_kind  # the page showed the sidebar's mask: it goes on doing so
    if st.session_state.get("mk_kind", default_kind) not in kinds:  # a causal mask chosen before kv_text was typed
        st.session_state["mk_kind"] = default_kind
    # the URL keeps the ids (causal, padding, ...) in every language; the buttons show the names
    kind = named_choice(t("mk_kind"), kinds, "mk_kind", {k: t(f"mk_name_{k}") for k in kinds}, default=default_kind,
                        help=t("mk_kind_help", pad=PAD))
    st.caption(" · ".join(f"{'**' if k == kind else ''}{t('mk_opt_' + k, pad=PAD)}{'**' if k == kind else ''}"
                          for k in kinds))
    if view.is_cross:
        st.caption(t("mk_kind_cross"))
    if kind == default_kind:
        st.caption("🔗 " + t("mk_kind_same", mask=t(f"mk_mask_{default_kind}"), more=t("ctl_more")))
    else:
        st.info(t("mk_kind_own", kind=t(f"mk_name_{kind}"), mask=t(f"mk_mask_{default_kind}")), icon="🎭")
    if kind.endswith("padding") and not view.key_is_pad.any():
        st.info(t("mk_no_padding", pad=PAD))
    return kind


# The three charts sit side by side in a third of the page each only while their cells still hold a "−∞" or "✓"
# and a gap (MIN_TEXT_CELL px); otherwise one under another at full size. (A token limit was not enough: 5 tokens
# with a colour bar left 16 px cells, "−∞−∞−∞−∞" running together, #27.4; 43 keys in 300 px were 4 px strips.)
MIN_TEXT_CELL = 22
SIDE_BY_SIDE_TOKENS = 12  # the bug zoo's token maps (pages/bugs.py) still go by length


def side_by_side(view: View) -> bool:
    """Whether the three charts fit side by side (the scores and weights charts, with their colour bars, decide)."""
    x, y = figures.axis_labels(view.key_labels or view.labels), figures.axis_labels(view.labels)
    return figures.square_geometry(x, y, max_width=THIRD_PX).cell >= MIN_TEXT_CELL


def charts(view: View, allowed: np.ndarray, masked, head: int) -> None:
    """The mask, the masked scores and the weights of one head: side by side, or one under another when long."""
    top = weights_scale(masked.weights[head]).top  # the page's one weights chart (figures.weights_top)
    side = side_by_side(view)
    c1, c2, c3 = st.columns(3) if side else (st.container(), st.container(), st.container())
    width = THIRD_PX if side else None
    with c1:
        st.subheader(t("mk_mask_title"))
        st.caption(t("mk_mask_help", n_blocked=int((~allowed).sum()), n_cells=allowed.size))
        # Cached figures (compute.cached_figure): a warm visit skips Plotly's figure building (~0.9 s for the three).
        st.plotly_chart(cached_figure(figures.mask_heatmap, allowed, view.labels, view.key_labels, width_px=width,
                                      words=chart_words()),
                        key="mk_mask_chart", width="content")
    with c2:
        st.subheader(t("mk_scores_title"))
        st.caption(t("mk_scores_help"))
        st.plotly_chart(cached_figure(figures.masked_scores_heatmap, masked.scores[head], allowed, view.labels,
                                      view.key_labels, width_px=width, words=chart_words()), key="mk_scores_chart",
                        width="content")
    with c3:
        st.subheader(t("mk_weights_title"))
        st.caption(t("mk_weights_help"))
        st.plotly_chart(cached_figure(figures.head_heatmap, masked.weights[head], view.labels, view.key_labels,
                                      kind="weights", allowed=allowed, head=head, clickable=False, width_px=width,
                                      zmax=top, words=chart_words()),
                        key="mk_weights_chart", width="content")


def fully_masked_row(view: View, allowed: np.ndarray, masked, head: int, s: Settings) -> None:
    """A query with nothing to attend to: our module gives 0 weights and a finite output, torch NaN."""
    st.subheader(t("mk_full_title"))
    demo = allowed
    if not masked.fully_masked.any():
        st.markdown(t("mk_full_demo"))
        row = token_picker(t("mk_full_row"), "mk_full_row", view.labels)
        demo = block_row(allowed, row)
    rows = np.flatnonzero(~demo.any(axis=1))
    st.markdown(t("mk_full_explain", rows=", ".join(f"{i} ({escape_markdown(view.labels[i])})" for i in rows)))
    report = tc.row_report(check(view, demo), batch=0, head=head, row=int(rows[0]))
    table(pd.DataFrame({t("mk_full_col_key"): view.key_labels, t("mk_full_col_ours"): report.ours,
                        t("mk_full_col_torch"): report.torch}), "mk_full_table", hide_index=True)
    st.caption(t("mk_full_outputs", ours_finite=t("mk_yes" if report.ours_finite else "mk_no"),
                 torch_nan=report.torch_nan, d_model=s.d_model, version=torch.__version__,
                 sdpa=t(f"mk_sdpa_{report.sdpa}")))


def polarity(view: View, allowed: np.ndarray) -> None:
    """The two boolean conventions (ours: True = may attend; nn.MultiheadAttention's: True = blocked)."""
    st.subheader(t("mk_polarity_title"))
    st.markdown(t("mk_polarity_explain"))
    p1, p2 = st.columns(2)
    p1.caption(t("mk_polarity_ours"))
    table(pd.DataFrame(allowed, columns=names(view.key_labels), index=names(view.labels)), "mk_pol_ours", container=p1)
    p2.caption(t("mk_polarity_torch"))
    table(pd.DataFrame(to_torch_attn_mask(torch.tensor(allowed)).numpy(), columns=names(view.key_labels),
                       index=names(view.labels)), "mk_pol_torch", container=p2)
    forgot = check(view, allowed, convert=False)
    nan_rows = int(forgot.torch_nan_rows.sum())
    if forgot.compared_rows == 0:
        st.markdown(t("mk_polarity_forgot_all", n=nan_rows))
    else:
        st.markdown(t("mk_polarity_forgot", err=forgot.output_error,
                      nan=t("mk_polarity_forgot_nan", n=nan_rows) if nan_rows else ""))
    st.code(code_comments("F.scaled_dot_product_attention(q, k, v, attn_mask=mask)           # True = may attend\n"
                          "nn.MultiheadAttention(...)(x, x, x, attn_mask=to_torch_attn_mask(mask))  "
                          "# converted: True = blocked", lang()), language="python")


def live_check(view: View, allowed: np.ndarray, kind: str, s: Settings) -> None:
    """The whole batch and this page's sentence and mask, against PyTorch."""
    st.subheader(t("mk_check_title"))
    st.markdown(t("mk_check_intro", tol=tc.TOLERANCE))
    sidebar_mask = sidebar_kind(s)
    cross = t("mk_cross_suffix") if view.is_cross else ""
    batch = cached(tc.check_spec, s.spec(), weights=session_weights(s.d_model))
    if kind == sidebar_mask:  # one mask, one check: the whole batch holds this page's sentence with this mask
        checks = [(t("mk_check_same", b=view.batch_size, mask=t(f"mk_mask_{sidebar_mask}")) + cross, batch)]
    else:  # this page's own mask first, then the one every other page uses
        checks = [(t("mk_check_page", s=view.sentence, kind=t(f"mk_name_{kind}")), check(view, allowed)),
                  (t("mk_check_batch", b=view.batch_size, mask=t(f"mk_mask_{sidebar_mask}")) + cross, batch)]
    for label, result in checks:
        with st.container(border=True):
            st.markdown(f"**{label}** — {t('mk_check_pass') if result.passed else t('mk_check_fail')}")
            st.caption(t("mk_check_errors", out=result.output_error, w=result.weights_error, sdpa=result.sdpa_error))
            if result.torch_nan_rows.any():
                st.caption(t("mk_check_nan", n=int(result.torch_nan_rows.sum())))


@frame.page
def page() -> None:
    """The mask, the masked scores and the weights; a query with nothing to attend to; two conventions; the check."""
    st.title(t("mk_title"))
    view = current_view()
    if view is None:
        st.stop()
    s = settings()
    H, Tq, Tk = view.weights.shape
    st.markdown(t("mk_intro"))
    kind = kind_picker(view, s)
    head = head_picker("mk_head", H)
    if kind != "custom":
        st.session_state.pop(TABLE, None)  # the table is gone with this run: a later one starts from the text
    allowed = custom_mask(Tq, Tk, view.labels, view.key_labels) if kind == "custom" else None
    if allowed is None:
        allowed = sentence_mask("none" if kind == "custom" else kind, Tq, Tk, view.key_is_pad)
    masked = apply_mask(view.q, view.k, view.v, allowed)

    charts(view, allowed, masked, head)
    fully_masked_row(view, allowed, masked, head, s)
    polarity(view, allowed)
    live_check(view, allowed, kind, s)
