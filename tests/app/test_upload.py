"""Uploading your own weights: only tensors are ever read, files are size-capped, names and shapes are checked
against d_model, and every refusal says what is wrong in both languages."""
import pickle

import numpy as np
import pytest
import torch
from course_mha import MultiHeadAttention as CourseMHA  # the course's class, copied verbatim from the seed
from harness.uploads import refused, saved, share_page, upload

from mha.core.i18n import text
from mha.weights import export
from mha.weights.export import MAX_ABS_WEIGHT, load_state_dict_bytes
from mha.weights.view import D_MODEL_CHOICES, ViewSpec, build_model, run_view


class _Payload:
    """Unpickling this would create a file: the 'attack' a .pt upload must never run."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.parametrize("wrap", ["torch_zip", "legacy_pickle", "inside_state_dict"])
def test_a_pickle_with_a_payload_is_refused_and_never_run(tmp_path, wrap):
    target = tmp_path / "pwned.txt"
    payload = _Payload(target)
    if wrap == "torch_zip":
        data = saved(payload)
    elif wrap == "legacy_pickle":  # torch's pre-zip format is a plain protocol-2 pickle stream
        data = pickle.dumps(payload, protocol=2)
    else:
        sd = build_model(16, 4, 0).state_dict()
        data = saved({**sd, "output_linear.bias": payload})
    err = refused(data, "share_err_unsafe")
    assert not target.exists()
    assert "state_dict" in str(err)  # says what to save instead


def test_a_modern_pickle_with_a_payload_is_refused_too(tmp_path):
    target = tmp_path / "pwned.txt"
    with pytest.raises(export.WeightsError) as info:
        export.load_state_dict_bytes(pickle.dumps(_Payload(target), protocol=5))
    assert info.value.key in ("share_err_unsafe", "share_err_not_torch")  # refused at its first opcode
    assert not target.exists()


def test_a_whole_pickled_module_is_refused():
    refused(saved(CourseMHA(16, 4)), "share_err_unsafe")


def test_wrong_shape_names_the_tensor_and_the_d_model_the_file_fits():
    data = saved(CourseMHA(32, 4).state_dict())
    err = refused(data, "share_err_shape", d_model=16, num_heads=4)
    assert "query_linear.weight" in str(err) and "32×32" in str(err) and "16×16" in str(err)
    assert "d_model=32" in str(err)  # how to fix it


def test_oversized_file_is_refused_before_unpickling(monkeypatch):
    def never(*a, **k):
        raise AssertionError("torch.load must not see an oversized file")

    monkeypatch.setattr(torch, "load", never)
    err = refused(b"\0" * (export.MAX_WEIGHTS_BYTES + 1), "share_err_too_big")
    assert "MB" in str(err)


def test_the_largest_real_state_dict_fits_under_the_cap():
    assert len(export.state_dict_bytes(CourseMHA(512, 8))) < export.MAX_WEIGHTS_BYTES


def test_other_names_list_what_is_expected():
    # the other seed's class (embed_size, heads): values / keys / queries / fc_out
    sd = {"values.weight": torch.zeros(4, 4), "keys.weight": torch.zeros(4, 4), "queries.weight": torch.zeros(4, 4),
          "fc_out.weight": torch.zeros(16, 16), "fc_out.bias": torch.zeros(16)}
    err = refused(saved(sd), "share_err_keys")
    assert "query_linear.weight" in str(err) and "fc_out.bias" in str(err)


@pytest.mark.parametrize("data,key", ids=["junk", "empty", "list", "tensor"], argvalues=[
    (b"not a torch file at all", "share_err_not_torch"),
    (b"", "share_err_empty"),
    (saved([torch.zeros(2)]), "share_err_not_dict"),
    (saved(torch.zeros(16, 16)), "share_err_not_dict"),
])
def test_files_that_are_not_a_state_dict(data, key):
    refused(data, key)


def test_truncated_file_is_not_torch():
    data = saved(CourseMHA(16, 4).state_dict())
    refused(data[: len(data) // 2], "share_err_not_torch")


def test_non_float_and_non_finite_values_are_refused():
    sd = CourseMHA(16, 4).state_dict()
    refused(saved({**sd, "key_linear.weight": torch.ones(16, 16, dtype=torch.int64)}), "share_err_dtype")
    bad = sd["value_linear.weight"].clone()
    bad[3, 5] = float("nan")
    err = refused(saved({**sd, "value_linear.weight": bad}), "share_err_not_finite")
    assert "value_linear.weight" in str(err)
    big = sd["output_linear.bias"].clone()
    big[0] = -3 * MAX_ABS_WEIGHT  # finite, but no trained model has it; it could overflow float32 downstream
    err = refused(saved({**sd, "output_linear.bias": big}), "share_err_too_large")
    assert "output_linear.bias" in str(err)


def test_the_largest_weights_allowed_keep_every_intermediate_finite():
    """At the limit, with the largest d_model and the longest text, the app's numbers stay finite."""
    from mha.weights.view import MAX_TOKENS

    d_model = max(D_MODEL_CHOICES)
    sd = {name: torch.full(t.shape, MAX_ABS_WEIGHT) for name, t in CourseMHA(d_model, 4).state_dict().items()}
    loaded = load_state_dict_bytes(saved(sd), d_model)
    view = run_view(ViewSpec(text=" ".join(f"w{i}" for i in range(MAX_TOKENS)), d_model=d_model, num_heads=4),
                    state_dict=loaded)
    for name in ("q", "k", "v", "scores", "weights", "head_outputs", "concat", "output"):
        assert np.isfinite(getattr(view, name)).all(), name


def test_a_huge_tensor_that_is_only_a_view_is_refused_by_shape_without_materialising_it():
    sd = CourseMHA(16, 4).state_dict()
    huge = torch.zeros(1).expand(100_000, 100_000)  # 10^10 elements on a storage of one: shape must stop it
    refused(saved({**sd, "query_linear.weight": huge}), "share_err_bad_d_model")
    refused(saved({**sd, "query_linear.weight": huge}), "share_err_shape", d_model=16)


def test_num_heads_must_divide_d_model():
    refused(saved(CourseMHA(16, 4).state_dict()), "share_err_heads", d_model=16, num_heads=3)


def test_d_model_comes_from_the_file_when_not_given():
    sd = export.load_state_dict_bytes(saved(CourseMHA(24, 3).state_dict()))
    assert export.infer_d_model(sd) == 24 and set(sd) == set(export.COURSE_KEYS)
    assert all(t.dtype == torch.float32 for t in sd.values())


@pytest.mark.parametrize("wrap", [lambda sd: sd, lambda sd: {"state_dict": sd},
                                  lambda sd: {"epoch": 3, "model_state_dict": sd},
                                  lambda sd: {f"module.{k}": v for k, v in sd.items()},
                                  lambda sd: {k: v.double() for k, v in sd.items()}])
def test_common_ways_of_saving_are_accepted(wrap):
    course = CourseMHA(16, 4)
    sd = export.load_state_dict_bytes(saved(wrap(course.state_dict())), d_model=16, num_heads=4)
    for k, v in course.state_dict().items():
        torch.testing.assert_close(sd[k], v.float())


def test_the_app_runs_on_uploaded_course_weights_and_matches_the_course_class():
    """A state_dict saved from the course's class drives the view: its output equals the course module's."""
    torch.manual_seed(11)
    course = CourseMHA(16, 4)  # the course's own (random) initialisation, not our seeded one
    sd = export.load_state_dict_bytes(saved(course.state_dict()), d_model=16, num_heads=4)
    spec = ViewSpec(text="Orange is my favorite fruit", d_model=16, num_heads=4, seed=0)
    mine = run_view(spec, state_dict=sd)
    seeded = run_view(spec)
    x = torch.from_numpy(mine.x).unsqueeze(0)  # (1, T, d_model): the same embeddings as the seeded view
    torch.testing.assert_close(x, torch.from_numpy(seeded.x).unsqueeze(0))
    with torch.no_grad():
        expected = course(x, x, x)[0].numpy()
    torch.testing.assert_close(torch.from_numpy(mine.output), torch.from_numpy(expected), rtol=1e-5, atol=1e-6)
    assert not torch.allclose(torch.from_numpy(mine.output), torch.from_numpy(seeded.output))


def test_every_error_key_has_a_string():
    for key in ("share_err_unsafe", "share_err_shape", "share_err_too_big", "share_err_keys", "share_err_not_torch"):
        assert text(key, "ko") != key


# ------------------------------------------------------------------------------------- through the app (AppTest)

def _chart_z(at, key: str) -> np.ndarray:
    from harness.apptest import charts_by_key, heatmaps

    return heatmaps(charts_by_key(at)[key])[0]


def _output_of(at) -> np.ndarray:
    from mha.app.state import CUSTOM_WEIGHTS_KEY

    w = at.session_state[CUSTOM_WEIGHTS_KEY] if CUSTOM_WEIGHTS_KEY in at.session_state else None
    s = at.session_state["_settings"]
    spec = ViewSpec(text=s.text, d_model=s.d_model, num_heads=s.num_heads, seed=s.seed)
    return run_view(spec, state_dict=w["state_dict"] if w else None).output


def test_uploading_course_weights_runs_the_app_on_them_for_this_session_only():
    torch.manual_seed(5)
    course = CourseMHA(32, 4)
    at = upload(share_page(lang="en"), "my <b>weights</b>.pt", saved(course.state_dict()))
    assert "d_model=32" in at.success[0].value  # the file's d_model was taken over ...
    assert at.session_state["d_model"] == 32  # ... and the control set to it
    assert "`my <b>weights</b>.pt`" in at.success[0].value  # the file name in a code span: shown, never markup
    notes = [i.value for i in at.info if "uploaded weights" in i.value]
    assert notes, "no note that custom weights are in use"
    # the playground's numbers are the course module's on the same inputs
    at.switch_page("pages/playground.py")
    at.run()
    at.session_state["look"] = "outputs"  # the output is one of the closer looks: its chart is sent once chosen
    at.run()  # AppTest runs a switched-to page without the frame first: the shared controls settle on the next run
    assert not at.exception
    assert any("uploaded weights" in i.value for i in at.info)  # the note is on every page
    shown = _chart_z(at, "output")  # the Final output heatmap as drawn
    x = torch.from_numpy(run_view(ViewSpec(d_model=32)).x).unsqueeze(0)  # (1, T, 32): the seeded embeddings
    with torch.no_grad():
        expected = course(x, x, x)[0].numpy()
    np.testing.assert_allclose(shown, expected, rtol=1e-4, atol=1e-5)
    assert not np.allclose(shown, run_view(ViewSpec(d_model=32)).output, atol=1e-3)
    # another visitor, at the same time, sees the seeded module and no note
    other = share_page(lang="en", d_model="32")
    assert not any("uploaded weights" in i.value for i in other.info)
    np.testing.assert_array_equal(_output_of(other), run_view(ViewSpec(d_model=32, num_heads=4)).output)


@pytest.mark.parametrize("case", ["payload", "shape", "oversized"])
def test_the_upload_control_refuses_bad_files_with_a_clear_message(tmp_path, case):
    target = tmp_path / "pwned.txt"
    data = {
        "payload": saved(_Payload(target)),
        "shape": saved({**CourseMHA(16, 4).state_dict(), "key_linear.weight": torch.zeros(16, 8)}),
        "oversized": b"\0" * (export.MAX_WEIGHTS_BYTES + 1),
    }[case]
    at = upload(share_page(lang="ko"), "weights.pt", data)
    assert not target.exists()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "이 파일은 사용하지 않았습니다" in errors[0]  # in the page's language
    assert {"payload": "텐서가 아닌", "shape": "16×8", "oversized": "MB"}[case] in errors[0]
    from mha.app.state import CUSTOM_WEIGHTS_KEY

    assert CUSTOM_WEIGHTS_KEY not in at.session_state  # nothing was kept
    assert not any("업로드한 가중치" in i.value for i in at.info)


def test_every_file_refused_for_its_size_gets_the_apps_message(tmp_path):
    """Widget, loader, server and the words agree (#23.7): the widget passes every file up to UPLOAD_WIDGET_MB (10**6
    bytes a MB; 2**20 on Windows), the server takes that much (maxUploadSize, MiB), and the loader's 9 MB is what
    the page and the drop zone say, so a 9.0-9.44 MB file is refused by the loader, with its message."""
    import tomllib
    from pathlib import Path

    config = tomllib.loads((Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml").read_text())
    assert export.UPLOAD_WIDGET_MB * 10**6 > export.MAX_WEIGHTS_BYTES
    assert config["server"]["maxUploadSize"] >= export.UPLOAD_WIDGET_MB  # both in the server's MiB
    at = share_page(lang="en")
    widget = at.file_uploader(key="share_upload")
    assert widget.proto.max_upload_size_mb == export.UPLOAD_WIDGET_MB
    styles = " ".join(el.proto.body for el in at.get("html"))
    assert "9MB per file" in styles and "10MB" not in styles
    assert text("share_upload_help", "en", max_mb=9.0).split("\n")[0][:40] in " ".join(m.value for m in at.markdown)
    err = refused(b"\0" * int(9.2 * 10**6), "share_err_too_big")
    assert "9.2 MB" in str(err) and "at most 9 MB" in str(err)


def test_a_refused_file_replaces_the_previous_files_message_and_weights():
    at = upload(share_page(lang="en"), "good.pt", saved(CourseMHA(32, 4).state_dict()))
    from mha.app.state import CUSTOM_WEIGHTS_KEY

    assert at.success and "good.pt" in at.success[0].value and CUSTOM_WEIGHTS_KEY in at.session_state
    at = upload(at, "big.pt", b"\0" * int(9.2 * 10**6))  # between the loader's 9 MB and the widget's 10
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "9.2 MB" in errors[0] and not at.success
    assert CUSTOM_WEIGHTS_KEY not in at.session_state  # the old file's weights are not silently kept
    assert not any("uploaded weights" in i.value for i in at.info)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_file_name_with_bidi_overrides_is_shown_as_typed_not_reordered(lang):
    """U+202E (right-to-left override) would show "evil\\u202egnp.pt" as "eviltp.png": the message and Streamlit's
    own file chip (restyled for that file, found by its raw name) show it with the override as a space."""
    raw = "evil\u202egnp\u2066.pt"
    at = upload(share_page(lang=lang), raw, saved(CourseMHA(16, 4).state_dict()))
    shown = at.success[0].value
    assert "`evil gnp .pt`" in shown and "\u202e" not in shown and "\u2066" not in shown
    styles = " ".join(el.proto.body for el in at.get("html"))
    assert '[title="evil\\202e gnp\\2066 .pt"]' in styles and 'content: "evil gnp .pt"' in styles
    assert "\u202e" not in styles


def test_chart_labels_drop_bidi_overrides():
    from mha.core.markup import escape_for_plotly

    assert escape_for_plotly("a\u202eb\u2067c<b>") == "abc&lt;b&gt;"
