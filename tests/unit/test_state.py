"""One list of the settings (issue #24): the app's ``Settings`` is built on ``ViewSpec``'s fields, and the URL's
shared keys come from it, so the three cannot drift apart."""
from __future__ import annotations

import dataclasses

import pytest

from mha.app.state import SHARED_KEYS, Settings
from mha.weights.view import ViewSpec

APP_ONLY = {"lang": "en", "model_ok": True}  # what the app knows that the numbers do not depend on


def test_settings_has_every_field_of_the_view_spec_with_its_default_and_only_two_more():
    spec_fields = {f.name: f.default for f in dataclasses.fields(ViewSpec)}
    settings_fields = {f.name: f.default for f in dataclasses.fields(Settings)}
    assert len(spec_fields) >= 14
    assert {k: settings_fields[k] for k in spec_fields} == spec_fields
    assert {k: v for k, v in settings_fields.items() if k not in spec_fields} == APP_ONLY
    # the defaults are the view's own: a Settings of nothing but defaults gives the default view
    assert Settings().spec() == ViewSpec()


def test_the_shared_url_keys_are_the_settings_a_control_holds():
    assert SHARED_KEYS == tuple(f.name for f in dataclasses.fields(ViewSpec)) + ("lang",)
    assert len(set(SHARED_KEYS)) == len(SHARED_KEYS)


def test_the_exported_settings_name_every_field_once():
    """The Share page's JSON and .npz name the settings by ``Settings.__dict__``: every field, plain values."""
    s = Settings(text="a b", d_model=8, num_heads=2, seed=3, lang="ko", kv_text="c d")
    assert list(s.__dict__) == [f.name for f in dataclasses.fields(Settings)]
    assert s.__dict__["lang"] == "ko" and s.__dict__["seed"] == 3 and s.__dict__["kv_text"] == "c d"


CHANGED = dict(text="x y\nz", d_model=32, num_heads=8, causal=True, seed=7, positional=False, padding=False,
               kv_text="k v", sentence=1, task="next", train_steps=30, model="some/model", layer=2)


@pytest.mark.parametrize("source, applies", [
    ("random", {"text", "d_model", "num_heads", "causal", "seed", "positional", "padding", "kv_text", "sentence"}),
    ("trained", {"text", "d_model", "num_heads", "causal", "seed", "positional", "padding", "kv_text", "sentence",
                 "task", "train_steps"}),
    ("pretrained", {"text", "d_model", "num_heads", "causal", "sentence", "model", "layer"}),
])
def test_the_spec_keeps_what_applies_to_the_source_and_defaults_the_rest(source, applies):
    spec = Settings(**CHANGED, source=source, lang="ko", model_ok=False).spec()
    assert type(spec) is ViewSpec and spec.source == source
    default = ViewSpec()
    for f in dataclasses.fields(ViewSpec):
        if f.name == "source":
            continue
        expected = CHANGED[f.name] if f.name in applies else getattr(default, f.name)
        assert getattr(spec, f.name) == expected, f.name


def test_every_weight_source_says_what_it_ignores_and_an_unknown_one_is_random():
    from mha.app.state import IGNORED_BY_SOURCE
    from mha.weights.view import SOURCES

    assert set(IGNORED_BY_SOURCE) == set(SOURCES)
    names = {f.name for f in dataclasses.fields(ViewSpec)}
    assert all(ignored <= names - {"text", "d_model", "num_heads", "causal", "sentence", "source"}
               for ignored in IGNORED_BY_SOURCE.values())
    assert Settings(**CHANGED, source="nonsense").spec() == Settings(**CHANGED, source="random").spec()
