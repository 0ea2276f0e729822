"""The diagnosis of Check your code (mha/check/diagnose.py): a learner's attention beside ours, step by step.

Learner code goes through the real sandbox (mha.check.sandbox.compile_learner), in this process: the diagnosis is
what the worker runs on the namespace. Every known bug, pasted as code, is named at its step and its one-line fix,
applied to the learner's own code, makes it equal to ours; correct classes written other ways compare equal; the
checks that need no reference weights pass for the course and fail for the bugs that break them; a crash is
explained; hostile output and messages become plain data. Always num_heads > 1 (one head hides transpose bugs),
except where the second seed's one-head behaviour is the point.
"""
from __future__ import annotations

import json
import math
import os

import pytest
import torch

from mha.check import examples as ex
from mha.check.bugs_known import BUG_STEPS
from mha.check.diagnose import STEPS, diagnose
from mha.check.sandbox import compile_learner
from mha.check.trace import MAX_TEXT
from mha.core import i18n
from mha.core.inputs import token_inputs
from mha.core.tokens import tokenize
from mha.lessons import bugs as zoo

SENTENCE = "the cat sat on the mat because it was warm"


def request(d_model=16, num_heads=4, mask=False, seed=0, text=SENTENCE) -> dict:
    """What the page sends: mha's usual embedding of the sentence, the sizes, a causal mask or none."""
    tokens = list(tokenize(text).tokens)
    x = token_inputs(tokens, d_model, seed)
    t = len(tokens)
    return {"tokens": tokens, "x": [x.tolist()], "d_model": d_model, "num_heads": num_heads,
            "mask": torch.ones(t, t).tril().int().tolist() if mask else None, "seed": seed}


def run(code: str, **kw) -> dict:
    result = diagnose(compile_learner(code), request(**kw))
    json.dumps(result, allow_nan=False)  # plain data, strict JSON: no tensors, no NaN or inf
    assert result.get("message") is None or result["message"]["key"] != "check_diagnosis_error", result["message"]
    return result


def apply_fix(code: str, fix: dict) -> str:
    """Their code with the fix's lines replaced (the fix and the ones riding along in ``more``)."""
    lines = code.split("\n")
    for f in [fix, *fix.get("more", [])]:
        if f["line"] is None:
            continue
        assert lines[f["line"] - 1] == f["old"], (f, lines[f["line"] - 1])  # the fix quotes their own line
        assert f["new"] is not None, f
        lines[f["line"] - 1] = f["new"]
    return "\n".join(lines)


def keys_in(result: dict) -> list[tuple[str, dict]]:
    """Every catalog key the result asks the page to show, with its fmt."""
    out = []
    if result.get("message"):
        out.append((result["message"]["key"], result["message"]["fmt"]))
    bug = result.get("bug")
    if bug:
        out += [(bug["name"], bug["fmt"]), (bug["effect"], bug["fmt"])]
    out += [(c["key"], c["fmt"]) for c in result.get("checks", [])]
    out += [(c["reason"], {}) for c in result.get("checks_skipped", [])]
    if result.get("crash"):
        out.append((result["crash"]["key"], result["crash"]["fmt"]))
    return out


def assert_messages_exist(result: dict) -> None:
    for key, fmt in keys_in(result):
        assert key in i18n.CATALOG, key
        for lang in i18n.LANGS:
            i18n.text(key, lang, **fmt)  # every placeholder filled


# --- every known bug, pasted as code, named at its step; the fix makes it equal ---------------------------------------

ZOO = [b.name for b in zoo.BUGS if b.name != zoo.SEED_TWO]
MORE = {name: name for name in BUG_STEPS} | {
    "softmax_wrong_axis_no_dim": "softmax_wrong_axis", "softmax_over_queries_method": "softmax_over_queries",
    "flipped_mask_polarity_ne": "flipped_mask_polarity",
    "flipped_mask_polarity_large_negative": "flipped_mask_polarity"}


@pytest.mark.parametrize("mask", [True, False])
@pytest.mark.parametrize("name", ZOO)
def test_every_zoo_bug_is_named_at_its_step_and_its_fix_makes_it_equal(name, mask):
    code = ex.bug_code(name)
    result = run(code, mask=mask)
    assert result["status"] == "differs", result["status"]
    assert result["bug"]["id"] == name
    assert result["first_step"] == BUG_STEPS[name] == result["bug"]["step"]
    assert result["bug"]["zoo"] and result["bug"]["name"] == f"bz_{name}_title"
    if zoo.get_bug(name).needs_mask and not mask:
        assert result["mask_demo"]  # no mask chosen: shown with a causal one, where the bug shows
    assert result["max_diff"] > 1e-3
    assert_messages_exist(result)
    fixed = run(apply_fix(code, result["bug"]["fix"]), mask=mask)
    assert fixed["status"] == "equal", (fixed["first_step"], fixed.get("bug"))
    assert fixed["max_diff"] < 1e-4


@pytest.mark.parametrize("form", sorted(ex.MORE_BUG_EDITS))
def test_the_other_named_bugs_are_named_at_their_step_and_fixed(form):
    name = MORE[form]
    code = ex.more_bug_code(form)
    result = run(code, mask=True)
    assert result["status"] == "differs"
    assert result["bug"]["id"] == name and result["bug"]["zoo"] == (name in zoo.BUG_NAMES)
    assert result["first_step"] == BUG_STEPS[name]
    assert_messages_exist(result)
    fixed = run(apply_fix(code, result["bug"]["fix"]), mask=True)
    assert fixed["status"] == "equal", (fixed["first_step"], fixed.get("bug"))


def test_the_first_wrong_line_is_marked_in_the_trace():
    code = ex.bug_code("no_scaling")
    result = run(code)
    wrong = [row for row in result["trace"] if row["wrong"]]
    assert len(wrong) == 1
    line = code.split("\n")[wrong[0]["line"] - 1]
    assert "torch.matmul(query, key.transpose(-2, -1))" in line
    assert wrong[0]["op"] == "matmul" and wrong[0]["out"] == [1, 4, 10, 10]  # (B, H, Tq, Tk)


def test_the_first_wrong_step_shows_their_tensor_beside_ours():
    result = run(ex.bug_code("softmax_over_queries"), mask=True)
    step = next(s for s in result["steps"] if s["id"] == "softmax")
    ours, theirs = torch.tensor(step["ours"]), torch.tensor(step["theirs"])
    assert ours.shape == theirs.shape == (10, 10)  # one head, queries x keys
    assert torch.allclose(ours.sum(-1), torch.ones(10), atol=1e-5)  # ours: rows sum to 1
    assert torch.allclose(theirs.sum(-2), torch.ones(10), atol=1e-5)  # theirs: columns do
    assert math.isclose(step["max_diff"], (ours - theirs).abs().max().item(), rel_tol=1e-3, abs_tol=1e-5) or (
        step["max_diff"] >= (ours - theirs).abs().max().item() - 1e-5)  # the head shown is at most the worst
    earlier = [s for s in result["steps"] if STEPS.index(s["id"]) < STEPS.index("softmax")]
    assert all(s["equal"] for s in earlier if s["equal"] is not None)


def test_a_blocked_score_is_none_in_the_matrices():
    result = run(ex.bug_code("flipped_mask_polarity"), mask=True)
    step = next(s for s in result["steps"] if s["id"] == "mask")
    ours, theirs = step["ours"], step["theirs"]
    assert ours[0][1] is None and ours[0][0] is not None  # causal: query 1 may not see key 2
    assert theirs[0][0] is None and theirs[0][1] is not None  # flipped: the other way round


# --- the second seed -------------------------------------------------------------------------------------------------

def test_the_second_seeds_class_as_written_gets_its_shape_error_explained():
    code = ex.SEED_TWO
    result = run(code, num_heads=4)
    assert result["status"] == "crash"
    crash = result["crash"]
    line = code.split("\n")[crash["line"] - 1]
    assert "values = self.values(values)" in line
    assert crash["shapes"] == [[1, 10, 16], [4, 4]]  # d_model features met a Linear of head_dim inputs
    assert "mat1 and mat2" in crash["message"] and crash["step"] == "projections"
    assert crash["key"] == "check_crash_projections" and "query_linear" in crash["ours"]
    assert result["bug"]["id"] == zoo.SEED_TWO and result["bug"]["zoo"]
    fix = result["bug"]["fix"]
    assert "nn.Linear(self.head_dim, self.head_dim" in fix["old"]
    assert "nn.Linear(embed_size, embed_size" in fix["new"]  # in the seed's own words
    assert len(fix["more"]) == 2  # keys and queries too
    assert_messages_exist(result)


def test_the_second_seeds_class_made_to_run_attends_over_heads_and_its_fix_makes_it_equal():
    step_one = run(ex.SEED_TWO, num_heads=4)
    runs = apply_fix(ex.SEED_TWO, step_one["bug"]["fix"])
    assert runs == ex.SEED_TWO_RUNS
    result = run(runs, num_heads=4)
    assert result["status"] == "differs"
    assert result["bug"]["id"] == "attention_over_heads" and result["first_step"] == "split"
    scores = next(s for s in result["steps"] if s["id"] == "scores")
    assert scores["theirs_shape"] == [1, 10, 4, 4]  # (N, T, heads, heads): heads attend to heads
    split = next(s for s in result["steps"] if s["id"] == "split")
    assert split["theirs_shape"] == [1, 10, 4, 4] and split["equal"] is False  # (N, T, heads, head_dim)
    assert [s["id"] for s in result["steps"] if s["equal"] is False][0] == "split"
    assert not next(c for c in result["checks"] if c["id"] == "rows_sum_to_one")["passed"]
    fixed = run(apply_fix(runs, result["bug"]["fix"]), num_heads=4)
    assert fixed["status"] == "equal", (fixed["first_step"], fixed.get("bug"))


def test_the_second_seeds_class_with_one_head_runs_and_attends_over_heads():
    result = run(ex.SEED_TWO, d_model=16, num_heads=1)  # Linear(head_dim = d_model): it runs as written
    assert result["status"] == "differs"
    assert result["bug"]["id"] == "attention_over_heads"


# --- equal: the course, ours, and correct code written other ways ---------------------------------------------------

@pytest.mark.parametrize("mask", [True, False])
@pytest.mark.parametrize("example", ["course", "starter"])
def test_the_courses_class_and_the_starter_are_equal(example, mask):
    result = run(ex.get_example(example).code, mask=mask)
    assert result["status"] == "equal" and result["first_step"] is None and result["bug"] is None
    assert result["max_diff"] < 1e-4
    assert all(s["equal"] for s in result["steps"] if s["equal"] is not None)
    assert {c["id"] for c in result["checks"] if c["passed"]} == {
        "rows_sum_to_one", "permutation", "causal_no_future", "heads_own_slice", "score_spread"}
    assert_messages_exist(result)


def test_the_courses_file_is_equal():
    with open("tests/course_mha.py", encoding="utf-8") as f:
        code = f.read()
    assert run(code, mask=True)["status"] == "equal"


def test_our_module_is_equal():
    """Ours, as a learner class (trusted code, run in-process; its forward compiled under the learner's name)."""
    code = ("import mha.core.attention\n"
            "class MultiHeadAttention(mha.core.attention.MultiHeadAttention):\n"
            "    def forward(self, query, key, value, mask=None):\n"
            "        return super().forward(query, key, value, mask)\n")
    namespace: dict = {}
    exec(compile(code, "<learner>", "exec"), namespace)  # noqa: S102 - our own code
    for mask in (True, False):
        result = diagnose(namespace, request(mask=mask, num_heads=2))
        assert result["status"] == "equal", result.get("first_step")


@pytest.mark.parametrize("mask", [True, False])
@pytest.mark.parametrize("variant", sorted(ex.VARIANTS))
def test_correct_code_written_other_ways_compares_equal(variant, mask):
    """Renamed Linears (with biases), einsum, torch.bmm, F.scaled_dot_product_attention, one fused Linear."""
    result = run(ex.VARIANTS[variant], mask=mask, d_model=24, num_heads=3)
    assert result["status"] == "equal", (result["first_step"], result.get("bug"), result.get("message"))
    assert result["max_diff"] < 1e-4
    compared = [s for s in result["steps"] if s["equal"] is not None]
    assert {"projections", "weighted_sum", "output"} <= {s["id"] for s in compared}  # really compared
    assert all(s["equal"] for s in compared if s["id"] in ("projections", "weighted_sum", "output"))


def test_a_bug_in_a_fused_class_is_still_found():
    code = ex.VARIANT_FUSED.replace("scores.softmax(dim=-1)", "scores.softmax(dim=-2)")
    result = run(code, mask=True)
    assert result["bug"]["id"] == "softmax_over_queries" and result["first_step"] == "softmax"


def test_a_bug_in_a_bmm_class_is_still_found():
    code = ex.VARIANT_BMM.replace("/ self.head_dim ** 0.5  # scale q, as mha does", "")
    result = run(code)
    assert result["bug"]["id"] == "no_scaling" and result["first_step"] == "scale"


# --- the bare function ---------------------------------------------------------------------------------------------

def test_the_courses_bare_function_is_equal():
    for code, mask in ((ex.SDPA, False), (ex.SDPA_MASKED, True), (ex.SDPA_MASKED, False)):
        result = run(code, mask=mask)
        assert result["kind"] == "function" and result["status"] == "equal", result["first_step"]


def test_a_function_without_a_mask_is_compared_without_one():
    result = run(ex.SDPA, mask=True)
    assert result["status"] == "equal"
    assert result["message"] == {"key": "check_no_mask_argument", "fmt": {"name": "scaled_dot_product_attention"}}


def test_a_bug_in_the_bare_function_is_named():
    result = run(ex.SDPA_OVER_QUERIES, mask=True)
    assert result["kind"] == "function" and result["bug"]["id"] == "softmax_over_queries"
    assert "dim=-1" in result["bug"]["fix"]["new"]


# --- checks that need no reference weights ---------------------------------------------------------------------------

@pytest.mark.parametrize("code, failing", [
    (ex.bug_code("softmax_over_queries"), {"rows_sum_to_one", "causal_no_future"}),
    (ex.bug_code("split_heads_no_transpose"), {"permutation", "heads_own_slice"}),
    (ex.bug_code("flipped_mask_polarity"), {"causal_no_future"}),
    (ex.bug_code("no_scaling"), {"score_spread"}),
    (ex.more_bug_code("scale_by_d_model"), {"score_spread"}),
    (ex.more_bug_code("softmax_wrong_axis"), {"rows_sum_to_one", "heads_own_slice"}),
])
def test_each_check_fails_for_a_bug_that_breaks_it(code, failing):
    result = run(code)
    failed = {c["id"] for c in result["checks"] if not c["passed"]}
    assert failing <= failed, failed


@pytest.mark.parametrize("code", [ex.COURSE, ex.bug_code("flipped_mask_polarity")], ids=["course", "bug"])
def test_the_causal_check_names_the_first_changed_token_by_its_index_from_0(code):
    """Token positions count from 0 everywhere (the pickers' "3: on", q_3): the check changes the tokens from
    index T // 2 on and says that index, in words that do not count from 1."""
    [c] = [c for c in run(code)["checks"] if c["id"] == "causal_no_future"]
    t = len(tokenize(SENTENCE).tokens)
    assert c["fmt"]["position"] == t // 2
    for lang, word in (("en", f"token {t // 2} on"), ("ko", f"토큰 {t // 2}부터")):
        assert word in i18n.text(c["key"], lang, **c["fmt"])


def test_the_checks_run_when_the_weights_cannot_be_matched():
    code = ex.IMPORTS + '''
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.q = nn.Linear(d_model, d_model)  # keys and values are not projected: another design

    def forward(self, query, key, value, mask=None):
        B, T, D = query.shape
        q = self.q(query).view(B, T, self.num_heads, -1).transpose(1, 2)
        k = key.view(B, T, self.num_heads, -1).transpose(1, 2)
        v = value.view(B, T, self.num_heads, -1).transpose(1, 2)
        s = q @ k.transpose(-2, -1) / (D // self.num_heads) ** 0.5
        if mask is not None:
            s = s.masked_fill(mask == 0, float("-inf"))
        return (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D)
'''
    result = run(code)
    assert result["status"] == "unsupported" and result["message"]["key"] == "check_weights_unmatched"
    passed = {c["id"]: c["passed"] for c in result["checks"]}
    assert passed["rows_sum_to_one"] and passed["permutation"] and passed["causal_no_future"]
    assert passed["score_spread"]
    assert_messages_exist(result)


# --- what is not accepted, hostile output ---------------------------------------------------------------------------

def _class(body: str, init="d_model, num_heads", fwd="query, key, value, mask=None") -> str:
    return ex.IMPORTS + f'''
class MultiHeadAttention(nn.Module):
    def __init__(self, {init}):
        super().__init__()
        self.lin = nn.Linear(16, 16)

    def forward(self, {fwd}):
{body}
'''


@pytest.mark.parametrize("code, key", [
    ("x = 1\n", "check_unsupported_none"),
    (_class("        return query", init="d_model"), "check_unsupported_init"),
    (_class("        return query", fwd="query, key"), "check_unsupported_forward"),
    (ex.IMPORTS + "def attention(a, b):\n    return a\n", "check_unsupported_function"),
])
def test_anything_else_is_unsupported_with_what_was_expected(code, key):
    result = run(code)
    assert result["status"] == "unsupported" and result["message"]["key"] == key
    assert_messages_exist(result)


@pytest.mark.parametrize("body, key", [
    ("        return 'not a tensor'", "check_bad_output_type"),
    ("        return None", "check_bad_output_type"),
    ("        return [query[:, :2], query]", "check_bad_output_shape"),
    ("        return self.lin(query)[:, :2]", "check_bad_output_shape"),
    ("        return torch.zeros(1, 10, 16, dtype=torch.long)", "check_bad_output_type"),
])
def test_output_that_is_not_a_tensor_of_the_right_shape_is_bad_output(body, key):
    result = run(_class(body))
    assert result["status"] == "bad_output" and result["message"]["key"] == key
    assert_messages_exist(result)


def test_nan_output_that_no_bug_explains_is_bad_output():
    code = ex.COURSE.replace("return self.output_linear(output)", "return self.output_linear(output) * float('nan')")
    result = run(code)
    assert result["status"] == "bad_output" and result["message"]["key"] == "check_output_nan"


def test_a_hostile_exception_message_becomes_short_plain_text():
    code = _class("        raise ValueError('<img src=x onerror=alert(1)>\\x1b[31m' * 500)")
    result = run(code)
    assert result["status"] == "crash"
    message = result["crash"]["message"]
    assert len(message) <= MAX_TEXT + 1 and "\x1b" not in message
    assert "raise ValueError" in code.split("\n")[result["crash"]["line"] - 1]  # the line, in their code


def test_an_exception_whose_message_cannot_be_read_is_still_a_crash():
    """(Trusted test code: the sandbox refuses dunder methods, so a learner cannot write this.)"""
    code = ("import torch.nn as nn\n"
            "class Evil(Exception):\n"
            "    def __str__(self):\n"
            "        raise RuntimeError('no')\n"
            "class MultiHeadAttention(nn.Module):\n"
            "    def __init__(self, d_model, num_heads):\n"
            "        super().__init__()\n"
            "    def forward(self, query, key, value, mask=None):\n"
            "        raise Evil()\n")
    namespace: dict = {}
    exec(compile(code, "<learner>", "exec"), namespace)  # noqa: S102 - our own code
    result = diagnose(namespace, request())
    assert result["status"] == "crash" and result["crash"]["line"] == 9
    assert result["crash"]["message"].startswith("Evil")


def test_a_long_loop_of_torch_calls_keeps_the_trace_short():
    result = run(_class("        x = query\n        for i in range(5000):\n            x = x + 0\n        return x"))
    assert len(result["trace"]) <= 201
    assert result["trace"][-1].get("skipped", 0) > 4000


def test_their_code_cannot_change_our_inputs():
    code = ex.COURSE.replace("        batch_size = query.size(0)\n",
                             "        batch_size = query.size(0)\n        query.mul_(2)\n        query.div_(2)\n"
                             "        key.add_(100)\n", 1)
    result = run(code)
    # key is the same tensor as query (self-attention): their writes change their own run, never ours
    assert result["status"] == "differs"
    assert run(ex.COURSE)["status"] == "equal"


def test_a_malformed_request_is_a_message():
    assert diagnose({}, {"x": "no"})["message"]["key"] == "check_bad_request"
    bad = request()
    bad["num_heads"] = 3  # does not divide 16
    assert diagnose(compile_learner(ex.COURSE), bad)["message"]["key"] == "check_bad_request"


def test_a_mask_the_softmax_never_sees_is_named_without_a_fix_there():
    """The second seed's class, fixed: its forward takes a mask, its attention function does not."""
    runs = run(ex.SEED_TWO_RUNS)
    fixed = apply_fix(ex.SEED_TWO_RUNS, runs["bug"]["fix"])
    assert run(fixed)["status"] == "equal"  # no mask chosen, none read: nothing wrong
    result = run(fixed, mask=True)
    assert result["bug"]["id"] == "mask_ignored" and result["first_step"] == "mask"
    assert result["bug"]["fix"] is None  # the function with the softmax has no mask to apply


PER_HEAD = ex.IMPORTS + '''
class MultiHeadAttention(nn.Module):
    """One small Linear per head for q, k and v, one attention per head in a loop."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        head_dim = d_model // num_heads
        self.q = nn.ModuleList([nn.Linear(d_model, head_dim, bias=False) for _ in range(num_heads)])
        self.k = nn.ModuleList([nn.Linear(d_model, head_dim, bias=False) for _ in range(num_heads)])
        self.v = nn.ModuleList([nn.Linear(d_model, head_dim, bias=False) for _ in range(num_heads)])
        self.o = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        heads = []
        for q_lin, k_lin, v_lin in zip(self.q, self.k, self.v):
            q, k, v = q_lin(query), k_lin(key), v_lin(value)
            s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
            if mask is not None:
                s = s.masked_fill(mask == 0, float("-inf"))
            heads.append(s.softmax(-1) @ v)
        return self.o(torch.cat(heads, dim=-1))
'''


@pytest.mark.parametrize("mask", [True, False])
def test_one_linear_per_head_is_compared_equal(mask):
    result = run(PER_HEAD, mask=mask)
    assert result["status"] == "equal", (result["first_step"], result.get("bug"), result.get("message"))
    assert next(s for s in result["steps"] if s["id"] == "projections")["equal"]


def test_a_mask_the_code_never_reads_is_pointed_out_when_no_mask_is_chosen():
    result = run(ex.more_bug_code("mask_ignored"))
    assert result["status"] == "equal"  # true on this input: no mask chosen, none read
    assert result["message"]["key"] == "check_mask_unread"
    assert_messages_exist(result)


def test_one_token_hides_the_bugs_and_says_so():
    result = run(ex.bug_code("softmax_over_queries"), text="cat")
    assert result["status"] == "equal" and result["message"]["key"] == "check_one_token"


@pytest.mark.parametrize("make", ["torch.empty(1, 10, 16, device='meta')", "torch.zeros(1, 10, 16).to_sparse()",
                                  "torch.zeros(1, 10, 16, dtype=torch.complex64)"])
def test_a_tensor_without_plain_numbers_is_bad_output(make):
    """(Trusted test code: the sandbox does not let a learner reach these.)"""
    code = ("import torch\nimport torch.nn as nn\n"
            "class MultiHeadAttention(nn.Module):\n"
            "    def __init__(self, d_model, num_heads):\n"
            "        super().__init__()\n"
            "    def forward(self, query, key, value, mask=None):\n"
            f"        return {make}\n")
    namespace: dict = {}
    exec(compile(code, "<learner>", "exec"), namespace)  # noqa: S102 - our own code
    result = diagnose(namespace, request())
    assert result["status"] == "bad_output" and result["message"]["key"] == "check_bad_output_type"


# More ways to write each step, right and wrong: (the course's line, the learner's lines, the bug or None).
SOFTMAX_LINE = "        attention_weights = F.softmax(scores, dim=-1)\n"
MASK_LINE = "            scores = scores.masked_fill(mask == 0, float('-inf'))\n"
SCALE_LINE = "        scores = torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)\n"
FORMS = {
    "softmax_by_hand": (SOFTMAX_LINE, "        e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)\n"
                                      "        attention_weights = e / e.sum(dim=-1, keepdim=True)\n", None),
    "softmax_by_hand_over_queries": (SOFTMAX_LINE, "        e = torch.exp(scores)\n"
                                                   "        attention_weights = e / e.sum(dim=-2, keepdim=True)\n",
                                     "softmax_over_queries"),
    "softmax_over_batch": (SOFTMAX_LINE, "        attention_weights = F.softmax(scores, dim=0)\n",
                           "softmax_wrong_axis"),
    "where": (MASK_LINE, "            scores = torch.where(mask == 1, scores, float('-inf'))\n", None),
    "where_inverted": (MASK_LINE, "            scores = torch.where(mask == 0, scores, float('-inf'))\n",
                       "flipped_mask_polarity"),
    "additive": (MASK_LINE, "            scores = scores + (1 - mask.float()) * -1e9\n", None),
    "additive_inverted": (MASK_LINE, "            scores = scores + mask.float() * -1e9\n", "flipped_mask_polarity"),
    "bool": (MASK_LINE, "            scores = scores.masked_fill(~mask, float('-inf'))\n", None),
    "bool_inverted": (MASK_LINE, "            scores = scores.masked_fill(mask, float('-inf'))\n",
                      "flipped_mask_polarity"),
    "sqrt_d_model_math": (SCALE_LINE, "        scores = torch.matmul(query, key.transpose(-2, -1)) / "
                                      "math.sqrt(self.d_model)\n", "scale_by_d_model"),
    "sqrt_d_model_next_line": (SCALE_LINE, "        scores = torch.matmul(query, key.transpose(-2, -1))\n"
                                           "        scores = scores / self.d_model ** 0.5\n", "scale_by_d_model"),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_step_written_other_ways_is_compared_and_its_bug_named_and_fixed(form):
    right, written, bug = FORMS[form]
    code = "import math\n" + ex.COURSE
    assert code.count(right) == 1
    code = code.replace(right, written)
    result = run(code, mask=True)
    if bug is None:
        assert result["status"] == "equal", (result["first_step"], result.get("bug"))
        return
    assert result["bug"]["id"] == bug and result["first_step"] == BUG_STEPS[bug]
    assert run(apply_fix(code, result["bug"]["fix"]), mask=True)["status"] == "equal"


@pytest.mark.parametrize("signature, call", [
    ("query, key, value, mask", "self.inner(query, key, value, mask)"),  # a mask without a default
    ("query, key, value, key_padding_mask=None, attn_mask=None", "self.inner(query, key, value, attn_mask)"),
    ("query, key, value, *, mask=None", "self.inner(query, key, value, mask)"),  # keyword only
])
def test_the_mask_reaches_the_forward_whatever_its_signature(signature, call):
    code = ex.COURSE.replace("    def forward(self, query, key, value, mask=None):",
                             f"    def forward(self, {signature}):\n        return {call}\n\n"
                             "    def inner(self, query, key, value, mask=None):")
    for mask in (True, False):
        assert run(code, mask=mask)["status"] == "equal"
    assert run(code.replace("masked_fill(mask == 0", "masked_fill(mask == 1"), mask=True)["bug"]["id"] == (
        "flipped_mask_polarity")


def test_a_function_whose_mask_has_no_default_is_called_with_none():
    code = ex.SDPA_MASKED.replace("V, mask=None)", "V, mask)")
    assert run(code)["status"] == "equal" and run(code, mask=True)["status"] == "equal"


# --- properties: any size, any sentence, any seed ---------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PROPERTY = settings(max_examples=int(os.environ.get("MHA_DIAGNOSE_EXAMPLES", 12)), deadline=None,
                    derandomize=not os.environ.get("MHA_DIAGNOSE_EXAMPLES"), database=None,
                    suppress_health_check=[HealthCheck.too_slow])
WORDS = st.lists(st.sampled_from(["the", "cat", "sat", "on", "a", "mat", "나는", "학교", "🙂", "it"]),
                 min_size=2, max_size=12)


@PROPERTY
@given(words=WORDS, num_heads=st.sampled_from([2, 3, 4]), head_dim=st.sampled_from([2, 4, 8]),
       seed=st.integers(0, 10_000), mask=st.booleans(), bug=st.sampled_from([None, *ZOO, *sorted(ex.MORE_BUG_EDITS)]))
def test_any_size_the_course_is_equal_and_a_bug_is_named(words, num_heads, head_dim, seed, mask, bug):
    code = ex.COURSE if bug is None else ex.bug_code(bug) if bug in ZOO else ex.more_bug_code(bug)
    result = run(code, d_model=num_heads * head_dim, num_heads=num_heads, mask=mask, seed=seed,
                 text=" ".join(words))
    if bug is None:
        assert result["status"] == "equal" and result["max_diff"] < 1e-4
    elif bug == "mask_ignored" and not mask:
        assert result["status"] == "equal"  # no mask chosen, none read: nothing is wrong on this input
    else:
        assert result["bug"] is not None and result["bug"]["id"] == MORE.get(bug, bug), result["first_step"]
        assert result["first_step"] == BUG_STEPS[MORE.get(bug, bug)]


@PROPERTY
@given(words=WORDS, num_heads=st.sampled_from([2, 3, 4]), head_dim=st.sampled_from([2, 4, 8]),
       seed=st.integers(0, 10_000), mask=st.booleans(), variant=st.sampled_from(sorted(ex.VARIANTS) + ["per_head"]))
def test_any_size_correct_code_written_other_ways_is_equal(words, num_heads, head_dim, seed, mask, variant):
    code = PER_HEAD if variant == "per_head" else ex.VARIANTS[variant]
    result = run(code, d_model=num_heads * head_dim, num_heads=num_heads, mask=mask, seed=seed,
                 text=" ".join(words))
    assert result["status"] == "equal", (result["first_step"], result.get("bug"), result.get("message"))


# Raw parameters instead of nn.Linear: x @ W (W is (in, out)) and an output bias added by hand.
RAW = ex.IMPORTS + '''
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.h = num_heads
        self.W_q = nn.Parameter(torch.randn(d_model, d_model) / d_model ** 0.5)
        self.W_k = nn.Parameter(torch.randn(d_model, d_model) / d_model ** 0.5)
        self.W_v = nn.Parameter(torch.randn(d_model, d_model) / d_model ** 0.5)
        self.W_o = nn.Parameter(torch.randn(d_model, d_model) / d_model ** 0.5)
        self.b_o = nn.Parameter(torch.randn(d_model))

    def forward(self, query, key, value, mask=None):
        B, T, D = query.shape
        q = (query @ self.W_q).view(B, T, self.h, -1).transpose(1, 2)
        k = (key @ self.W_k).view(B, T, self.h, -1).transpose(1, 2)
        v = (value @ self.W_v).view(B, T, self.h, -1).transpose(1, 2)
        s = q @ k.transpose(-2, -1) / (D // self.h) ** 0.5
        if mask is not None:
            s = s.masked_fill(mask == 0, float("-inf"))
        z = (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D)
        return z @ self.W_o + self.b_o
'''


@pytest.mark.parametrize("mask", [True, False])
def test_raw_parameters_are_compared_equal(mask):
    result = run(RAW, mask=mask)
    assert result["status"] == "equal", (result["first_step"], result.get("message"))
    assert all(s["equal"] for s in result["steps"])  # every step seen, the output bias found and given ours


def test_a_self_attention_forward_of_one_tensor_is_accepted():
    fused = ex.VARIANT_FUSED.replace("def forward(self, query, key, value, mask=None):",
                                     "def forward(self, query, mask=None):")
    course = ex.COURSE.replace("    def forward(self, query, key, value, mask=None):\n",
                               "    def forward(self, x, mask=None):\n        query = key = value = x\n")
    for mask in (True, False):
        assert run(fused, mask=mask)["status"] == "equal"
        assert run(course, mask=mask)["status"] == "equal"  # three Linears on one input: told apart by call order
    buggy = run(course.replace("F.softmax(scores, dim=-1)", "F.softmax(scores, dim=-2)"))
    assert buggy["bug"]["id"] == "softmax_over_queries"


def test_a_step_written_another_way_is_not_shown_as_wrong():
    """bmm with the scale folded into q: their scores are already scaled, ours are not yet; a later step agrees."""
    result = run(ex.VARIANT_BMM.replace("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)"))
    assert result["first_step"] == "softmax"
    scores = next(s for s in result["steps"] if s["id"] == "scores")
    assert scores["written_differently"] and scores["equal"] is None and scores["max_diff"] > 1e-3
    assert [s["id"] for s in result["steps"] if s["equal"] is False][0] == "softmax"
