"""Exports: the view as JSON / .npz, one matrix as CSV, and the weights as a .pt the course's class loads unchanged."""
import csv
import dataclasses
import io
import json

import numpy as np
import pytest
import torch
from course_mha import MultiHeadAttention as CourseMHA  # the course's class, copied verbatim from the seed

from mha.core.inputs import token_inputs
from mha.core.tokens import tokenize
from mha.weights import export
from mha.weights.view import ViewSpec, build_model, run_view

SPEC = ViewSpec(text="오렌지 is my favorite fruit, the fruit", d_model=16, num_heads=4, causal=True, seed=3)


@pytest.fixture(scope="module")
def view():
    return run_view(SPEC)


def _ndarray_fields(view):
    return [f.name for f in dataclasses.fields(view) if isinstance(getattr(view, f.name), np.ndarray)]


def test_json_holds_settings_tokens_and_every_intermediate(view):
    doc = json.loads(export.view_json(view, {"lang": "ko"}).decode("utf-8"))
    # "weights" are the arrays
    assert doc["format"] == export.FORMAT and doc["parameters"] == "seed" and "weights" not in doc
    assert doc["tokens"] == list(view.tokens) and "오렌지" in doc["tokens"]
    assert doc["settings"]["lang"] == "ko" and doc["settings"]["causal"] is True
    # every array the View has, whatever fields it grows, with its values and shape
    assert set(doc["arrays"]) == set(_ndarray_fields(view)) >= {"x", "q", "k", "v", "scores", "allowed", "weights",
                                                                "head_outputs", "concat", "output"}
    for name in _ndarray_fields(view):
        got = np.asarray(doc["arrays"][name], dtype=getattr(view, name).dtype)
        assert list(got.shape) == doc["shapes"][name]
        np.testing.assert_array_equal(got, getattr(view, name))  # float32 -> JSON -> float32 is exact
    assert isinstance(doc["arrays"]["allowed"][0][0][1], bool)  # the mask stays true/false


def test_json_settings_reproduce_the_view(view):
    doc = json.loads(export.view_json(view))
    fields = {f.name for f in dataclasses.fields(ViewSpec)}
    again = run_view(ViewSpec(**{k: v for k, v in doc["settings"].items() if k in fields}))
    np.testing.assert_array_equal(again.weights, np.asarray(doc["arrays"]["weights"], dtype=np.float32))


def test_json_never_writes_nan(view):
    broken = dataclasses.replace(view, scores=np.full_like(view.scores, np.nan))
    text = export.view_json(broken).decode("utf-8")
    assert "NaN" not in text
    assert json.loads(text)["arrays"]["scores"][0][0][0] is None


def test_npz_loads_without_pickle(view):
    data = np.load(io.BytesIO(export.view_npz(view, {"lang": "en"})), allow_pickle=False)
    meta = json.loads(str(data["meta"]))
    assert meta["settings"]["d_model"] == 16
    assert list(data["tokens"]) == list(view.tokens)
    for name in _ndarray_fields(view):
        np.testing.assert_array_equal(data[name], getattr(view, name))


def _read_csv(data: bytes):
    assert data.startswith("\ufeff".encode("utf-8"))  # BOM: spreadsheet programs then read UTF-8 (Hangul)
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def test_matrix_csv_has_labels_and_exact_values(view):
    rows = _read_csv(export.matrix_csv(view.weights[1], view.labels, view.labels, corner="weights"))
    assert rows[0][0] == "weights"
    assert rows[0][1:] == [f"{j}: {lab}" for j, lab in enumerate(view.labels)]
    assert [r[0] for r in rows[1:]] == [f"{i}: {lab}" for i, lab in enumerate(view.labels)]
    assert len(set(rows[0][1:])) == len(view.labels)  # the repeated "fruit" stays two columns
    got = np.array([[float(c) for c in r[1:]] for r in rows[1:]], dtype=np.float32)
    np.testing.assert_array_equal(got, view.weights[1])


def test_matrix_csv_cannot_smuggle_a_formula():
    rows = _read_csv(export.matrix_csv(np.eye(2), ["a", "b"], ["x", "y"], corner="=HYPERLINK(\"http://x\")"))
    assert rows[0][0].startswith("'=")


def test_matrix_csv_refuses_mismatched_labels(view):
    with pytest.raises(ValueError, match="pick one head"):
        export.matrix_csv(view.weights, view.labels, view.labels)
    with pytest.raises(ValueError, match="must match"):
        export.matrix_csv(view.weights[0], view.labels[:-1], view.labels)


@pytest.mark.parametrize("d_model,num_heads,seed", [(16, 4, 0), (24, 3, 7), (64, 8, 1)])
def test_weights_load_into_the_course_class_unchanged(d_model, num_heads, seed):
    ours = build_model(d_model, num_heads, seed)
    data = export.state_dict_bytes(ours)
    course = CourseMHA(d_model, num_heads)
    sd = torch.load(io.BytesIO(data), weights_only=True)
    course.load_state_dict(sd, strict=True)
    x = token_inputs(tokenize("the cat saw the dog").tokens, d_model, seed).unsqueeze(0)  # (1, T, d_model)
    mask = torch.tril(torch.ones(5, 5, dtype=torch.bool))  # causal, True = may attend (the course's convention)
    with torch.no_grad():
        for m in (None, mask):
            torch.testing.assert_close(course(x, x, x, m), ours(x, x, x, m), rtol=1e-6, atol=1e-6)


def test_weights_download_does_not_share_the_cached_module():
    ours = build_model(16, 4, 0)
    before = ours.query_linear.weight.clone()
    sd = torch.load(io.BytesIO(export.state_dict_bytes(ours)), weights_only=True)
    sd["query_linear.weight"].add_(1.0)  # a downloader changing their copy ...
    torch.testing.assert_close(ours.query_linear.weight, before)  # ... never touches the module shared by all


def test_an_uploaded_file_name_is_quoted_by_the_one_escaping_helper():
    # file names go through mha.core.markup.escape_markdown like every visitor text (tests/app/test_security.py renders
    # it)
    from mha.core.markup import escape_markdown

    assert escape_markdown("내_가중치.pt", 60, code=True) == "`내_가중치.pt`"
    quoted = escape_markdown("<img src=x onerror=alert(1)>[x](javascript:1)*.pt", 60, code=True)
    assert quoted.startswith("`") and quoted.endswith("`") and quoted.count("`") == 2  # one code span
