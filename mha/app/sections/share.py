"""The Share & export page (``page``, which pages/share.py calls): your own weights in first, then the current view as
JSON / .npz / a standalone HTML page / CSV, and the module's parameters as ``.pt``. The files are built by
``mha.weights.export`` and ``mha.app.share`` (links, uploads, CSV downloads)."""
from __future__ import annotations

import streamlit as st

from mha.app import frame, share
from mha.app.state import current_view, session_weights, settings
from mha.app.widgets import file_uploader, t
from mha.weights import export


@frame.page
def page() -> None:
    """The current view as JSON / .npz / CSV / HTML, the module's parameters as .pt, and your own in."""
    st.title(t("share_title"))
    st.caption(t("share_intro"))
    s = settings()

    # --- your own weights first: they decide what every export below contains
    st.subheader(t("share_upload_title"))
    st.markdown(t("share_upload_help", max_mb=export.MAX_WEIGHTS_BYTES / 10**6))
    file_uploader(t("share_upload"), share.UPLOAD_KEY, ["pt", "pth", "bin"], export.UPLOAD_WIDGET_MB,
                  limit_mb=export.MAX_WEIGHTS_BYTES // 10**6, on_change=share._on_upload)
    kind, message = st.session_state.get("_share_upload_message", (None, None))
    if kind:
        (st.error if kind == "error" else st.success)(message)
    if share.custom_weights():
        st.button(t("share_custom_off"), key="share_weights_off", on_click=share._clear_weights, icon="↩️")

    view = current_view()
    if view is None:
        st.stop()
    weights = session_weights(s.d_model)  # the parameters this view runs on
    parameters, stem = share.parameters_name(s, weights)  # seeded, uploaded, trained or a pretrained layer

    st.subheader(t("share_view_title"))
    st.caption(t("share_view_help"))
    c1, c2 = st.columns(2)
    # Deferred (callable) downloads: the file is built only when clicked, from plain values captured here.
    c1.download_button(t("share_json"), lambda: export.view_json(view, s.__dict__, parameters),
                       file_name=f"{stem}.json", mime="application/json", key="share_json", on_click="ignore", icon="⬇️")
    c2.download_button(t("share_npz"), lambda: export.view_npz(view, s.__dict__, parameters), file_name=f"{stem}.npz",
                       mime="application/octet-stream", key="share_npz", on_click="ignore", icon="⬇️")

    st.subheader(t("share_html_title"))
    st.caption(t("share_html_help"))
    st.download_button(t("share_html"), share.view_html(view, parameters), file_name=f"{stem}.html",
                       mime="text/html", key="share_html", on_click="ignore", icon="⬇️")

    st.subheader(t("share_csv_title"))
    matrices = share.matrix_choices(view)
    c1, c2 = st.columns(2)
    name = c1.selectbox(t("share_csv_matrix"), list(matrices), key="share_matrix", bind="query-params")
    mat, rows, cols, per_head = matrices[name]
    head = c2.selectbox(t("share_csv_head"), range(mat.shape[0]), key="share_head", bind="query-params",
                        disabled=not per_head) if per_head else None
    mat2d = mat[head] if per_head else mat
    st.caption(t("share_csv_shape", rows=mat2d.shape[0], cols=mat2d.shape[1], row_name=t(rows[0]), col_name=t(cols[0])))
    share.csv_download(mat2d, rows[1], cols[1], key="share_csv", corner=f"{name}",
                          file_name=f"{stem}_{name}" + (f"_head{head}" if per_head else "") + ".csv")
    st.caption(t("share_png"))

    st.subheader(t("share_weights_title"))
    st.markdown(t("share_weights_help"))
    bias = ", qkv_bias=True" if s.source == "pretrained" else ""  # a pretrained layer's Q/K/V biases
    st.code(f"model = MultiHeadAttention(d_model={s.d_model}, num_heads={s.num_heads}{bias})\n"
            f'model.load_state_dict(torch.load("{stem}.pt", weights_only=True))', language="python")
    if bias:
        st.caption(t("src_export_bias"))
    st.download_button(t("share_weights_download"), share.parameters_bytes_callable(s, weights), file_name=f"{stem}.pt",
                       mime="application/octet-stream", key="share_weights", on_click="ignore", icon="⬇️")
