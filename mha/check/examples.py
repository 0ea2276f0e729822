"""Code a learner can load into the Check your code editor with one click: a starter, the course's class, the
second seed's class as written, the course's bare ``scaled_dot_product_attention``, and each Bug zoo bug
(``mha.lessons.bugs``) written as a full learner class: the course's class with that one step wrong.

Pure text, no torch: the page shows it and sends it to the sandboxed worker (``mha.check.worker``), never runs it.
tests/unit/test_check_examples.py checks that the course's and the seed's code are the material's, verbatim, and that
every bug example differs from the course's class by the bug's own lines.
"""
from __future__ import annotations

from dataclasses import dataclass

from mha.core.i18n import LANGS, code_comments
from mha.lessons import bugs

IMPORTS = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

# The course's class (../shared/seeds/000_*: PyTorch로 배우는 Transformer 모델), verbatim: tests/course_mha.py
# holds the same class, and the test compares the two.
COURSE_CLASS = '''class MultiHeadAttention(nn.Module):

    def __init__(self, d_model, num_heads):
        super().__init__()

        assert d_model % num_heads == 0, "d_model must be divisible by num_heads."

        self.num_heads = num_heads
        self.d_model = d_model
        self.head_dim = d_model // num_heads

        self.query_linear = nn.Linear(d_model, d_model, bias=False)
        self.key_linear = nn.Linear(d_model, d_model, bias=False)
        self.value_linear = nn.Linear(d_model, d_model, bias=False)

        self.output_linear = nn.Linear(d_model, d_model)

    def split_heads(self, x, batch_size):

        seq_length = x.size(1)
        x = x.reshape(batch_size, seq_length, self.num_heads, self.head_dim)
        return x.permute(0, 2, 1, 3)


    def compute_attention(self, query, key, value, mask=None):

        scores = torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)

        if mask is not None:
            scores = scores.masked_fill(mask == 0, float('-inf'))

        attention_weights = F.softmax(scores, dim=-1)
        return torch.matmul(attention_weights, value)


    def combine_heads(self, x, batch_size):

        x = x.permute(0, 2, 1, 3).contiguous()
        return x.view(batch_size, -1, self.d_model)

    def forward(self, query, key, value, mask=None):
        batch_size = query.size(0)

        query = self.split_heads(self.query_linear(query), batch_size)
        key = self.split_heads(self.key_linear(key), batch_size)
        value = self.split_heads(self.value_linear(value), batch_size)

        attention_weights = self.compute_attention(query, key, value, mask)


        output = self.combine_heads(attention_weights, batch_size)

        return self.output_linear(output)
'''

# The second seed's code (../shared/seeds/002_*: a learner's study note), verbatim: its scaled dot-product attention
# and its MultiHeadAttention, which calls it. Its Linear layers take head_dim features but get d_model ones.
SEED_TWO_FUNCTION = '''def scaled_dot_product_attention(Q, K, V):
    d_k = Q.size(-1)  # Key의 차원 수
    scores = torch.matmul(Q, K.transpose(-2, -1)) / torch.sqrt(torch.tensor(d_k, dtype=torch.float32))  # 유사도 계산 및 스케일링
    attn_weights = F.softmax(scores, dim=-1)  # Softmax를 통한 가중치 계산
    output = torch.matmul(attn_weights, V)  # 가중합을 통한 최종 출력 계산
    return output, attn_weights
'''

SEED_TWO_CLASS = '''class MultiHeadAttention(nn.Module):
    def __init__(self, embed_size, heads):
        super(MultiHeadAttention, self).__init__()
        self.embed_size = embed_size
        self.heads = heads
        self.head_dim = embed_size // heads

        assert (
            self.head_dim * heads == embed_size
        ), "Embedding size needs to be divisible by heads"

        self.values = nn.Linear(self.head_dim, self.head_dim, bias=False)
        self.keys = nn.Linear(self.head_dim, self.head_dim, bias=False)
        self.queries = nn.Linear(self.head_dim, self.head_dim, bias=False)
        self.fc_out = nn.Linear(heads * self.head_dim, embed_size)

    def forward(self, values, keys, query, mask=None):
        N = query.shape[0]
        value_len, key_len, query_len = values.shape[1], keys.shape[1], query.shape[1]

        # Linear transformations
        values = self.values(values).view(N, value_len, self.heads, self.head_dim)
        keys = self.keys(keys).view(N, key_len, self.heads, self.head_dim)
        queries = self.queries(query).view(N, query_len, self.heads, self.head_dim)

        # Scaled dot-product attention
        out, _ = scaled_dot_product_attention(queries, keys, values)

        out = out.view(N, query_len, self.heads * self.head_dim)
        out = self.fc_out(out)
        return out
'''

# What the editor holds on a first visit: the course's names and steps, short, each step where a learner would
# change it. Correct: Check says "equal" until the learner changes something.
STARTER = "import math\n\n" + IMPORTS + '''

class MultiHeadAttention(nn.Module):
    """Change any step below, then press Check."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.query_linear = nn.Linear(d_model, d_model, bias=False)
        self.key_linear = nn.Linear(d_model, d_model, bias=False)
        self.value_linear = nn.Linear(d_model, d_model, bias=False)
        self.output_linear = nn.Linear(d_model, d_model)

    def split_heads(self, x):
        B, T, d_model = x.shape
        x = x.reshape(B, T, self.num_heads, self.head_dim)  # (B, T, H, head_dim)
        return x.transpose(1, 2)  # (B, H, T, head_dim)

    def forward(self, query, key, value, mask=None):
        q = self.split_heads(self.query_linear(query))  # (B, H, Tq, head_dim)
        k = self.split_heads(self.key_linear(key))  # (B, H, Tk, head_dim)
        v = self.split_heads(self.value_linear(value))  # (B, H, Tk, head_dim)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)  # (B, H, Tq, Tk)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))  # mask: 1 = may attend
        weights = F.softmax(scores, dim=-1)  # each row sums to 1 over the keys
        z = weights @ v  # (B, H, Tq, head_dim)
        B, H, Tq, head_dim = z.shape
        z = z.transpose(1, 2).reshape(B, Tq, H * head_dim)  # (B, Tq, d_model)
        return self.output_linear(z)
'''



def starter(lang: str = "en") -> str:
    """The starter with its docstring and comments in ``lang`` (mha/strings/code.py); the code is the same."""
    return code_comments(STARTER, lang)


STARTERS = frozenset(starter(lang) for lang in LANGS)  # an untouched starter, in any language: no code in the link

COURSE = IMPORTS + "\n" + COURSE_CLASS
SEED_TWO = IMPORTS + "\n" + SEED_TWO_FUNCTION + "\n\n" + SEED_TWO_CLASS
SDPA = IMPORTS + "\n" + SEED_TWO_FUNCTION


# Each Bug zoo bug as the course's class with that step wrong: (the course's lines, the bug's lines). The seed's
# class is its own example (SEED_TWO).
BUG_EDITS: dict[str, tuple[str, str]] = {
    "split_heads_no_transpose": (
        "        return x.permute(0, 2, 1, 3)\n",
        "        return x.reshape(batch_size, self.num_heads, seq_length, self.head_dim)\n"),
    "softmax_over_queries": (
        "        attention_weights = F.softmax(scores, dim=-1)\n",
        "        attention_weights = F.softmax(scores, dim=-2)\n"),
    "flipped_mask_polarity": (
        "            scores = scores.masked_fill(mask == 0, float('-inf'))\n",
        "            scores = scores.masked_fill(mask == 1, float('-inf'))\n"),
    "mask_after_softmax": (
        "        if mask is not None:\n"
        "            scores = scores.masked_fill(mask == 0, float('-inf'))\n"
        "\n"
        "        attention_weights = F.softmax(scores, dim=-1)\n",
        "        attention_weights = F.softmax(scores, dim=-1)\n"
        "\n"
        "        if mask is not None:\n"
        "            attention_weights = attention_weights.masked_fill(mask == 0, 0)\n"),
    "no_scaling": (
        "        scores = torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)\n",
        "        scores = torch.matmul(query, key.transpose(-2, -1))\n"),
    "combine_heads_no_permute": (
        "        x = x.permute(0, 2, 1, 3).contiguous()\n",
        "        x = x.contiguous()\n"),
}


def bug_code(name: str) -> str:
    """The Bug zoo bug ``name`` as a learner would write it: the course's code with the bug's lines."""
    if name == bugs.SEED_TWO:
        return SEED_TWO
    right, wrong = BUG_EDITS[name]
    if COURSE.count(right) != 1:
        raise ValueError(f"bug {name!r}: its lines appear {COURSE.count(right)} times in the course's code, not once")
    return COURSE.replace(right, wrong)


@dataclass(frozen=True)
class Example:
    id: str  # the button's key and the tests' name: "starter", "course", "seed_two", "sdpa", "bug_<zoo id>"
    title_key: str  # its name on the button (mha/strings/check.py)
    code: str
    bug: str | None = None  # the Bug zoo id it shows, if it is one


EXAMPLES: tuple[Example, ...] = (
    Example("starter", "ck_ex_starter", STARTER),
    Example("course", "ck_ex_course", COURSE),
    Example("seed_two", "ck_ex_seed_two", SEED_TWO, bug=bugs.SEED_TWO),
    Example("sdpa", "ck_ex_sdpa", SDPA),
    *(Example(f"bug_{b.name}", f"bz_{b.name}_title", bug_code(b.name), bug=b.name)
      for b in bugs.BUGS if b.name != bugs.SEED_TWO),
)
EXAMPLE_IDS = tuple(e.id for e in EXAMPLES)


def get_example(example_id: str) -> Example:
    for e in EXAMPLES:
        if e.id == example_id:
            return e
    raise KeyError(f"no example {example_id!r}; there are {list(EXAMPLE_IDS)}")


# ------------------------------------------------------------------------------------------------------- diagnosis
# More learner code for the diagnosis (mha/check/diagnose.py) and its tests (tests/unit/test_check_diagnose.py): the
# other named bugs, each as the course's class with one step wrong, and correct classes written other ways, which
# must compare equal. The page may offer them as "load a bug" buttons too.

# Named bugs beyond the zoo's: {id: (the course's lines, the bug's lines)}; the id is the diagnosis's bug id plus,
# where a bug has several forms, a suffix.
MORE_BUG_EDITS: dict[str, tuple[str, str]] = {
    "scale_by_d_model": (
        "        scores = torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)\n",
        "        scores = torch.matmul(query, key.transpose(-2, -1)) / (self.d_model ** 0.5)\n"),
    "no_output_projection": (
        "        return self.output_linear(output)\n",
        "        return output\n"),
    "softmax_wrong_axis": (  # dim=1 of (B, H, Tq, Tk): over the heads
        "        attention_weights = F.softmax(scores, dim=-1)\n",
        "        attention_weights = F.softmax(scores, dim=1)\n"),
    "softmax_wrong_axis_no_dim": (  # no dim: PyTorch picks dim=1 for 4-D input, the heads
        "        attention_weights = F.softmax(scores, dim=-1)\n",
        "        attention_weights = F.softmax(scores)\n"),
    "softmax_over_queries_method": (  # the tensor method, the queries axis counted from the front
        "        attention_weights = F.softmax(scores, dim=-1)\n",
        "        attention_weights = scores.softmax(2)\n"),
    "flipped_mask_polarity_ne": (
        "            scores = scores.masked_fill(mask == 0, float('-inf'))\n",
        "            scores = scores.masked_fill(mask != 0, float('-inf'))\n"),
    "mask_ignored": (  # forward takes the mask and passes it on; nothing applies it
        "        if mask is not None:\n"
        "            scores = scores.masked_fill(mask == 0, float('-inf'))\n",
        ""),
    "flipped_mask_polarity_large_negative": (
        "            scores = scores.masked_fill(mask == 0, float('-inf'))\n",
        "            scores = scores.masked_fill(mask == 1, -1e9)\n"),
}


def more_bug_code(name: str) -> str:
    """A named bug of MORE_BUG_EDITS as a learner would write it: the course's code with the bug's lines."""
    right, wrong = MORE_BUG_EDITS[name]
    if COURSE.count(right) != 1:
        raise ValueError(f"bug {name!r}: its lines appear {COURSE.count(right)} times in the course's code, not once")
    return COURSE.replace(right, wrong)


# The second seed's class once made to run: its Linear layers take d_model features (the fix of its crash). It
# then attends over the heads axis: (N, T, heads, head_dim) goes into attention with no transpose.
SEED_TWO_RUNS = SEED_TWO.replace("nn.Linear(self.head_dim, self.head_dim, bias=False)",
                                 "nn.Linear(embed_size, embed_size, bias=False)")

# Correct classes written differently from the course: each must compare equal.
VARIANT_RENAMED = IMPORTS + '''

class SelfAttention(nn.Module):
    def __init__(self, embed_dim, n_heads):
        super().__init__()
        self.h = n_heads
        self.d_k = embed_dim // n_heads
        self.to_v = nn.Linear(embed_dim, embed_dim)  # with biases: the diagnosis zeroes them
        self.to_q = nn.Linear(embed_dim, embed_dim)
        self.to_k = nn.Linear(embed_dim, embed_dim)
        self.proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, q, k, v, attn_mask=None):
        B, T, C = q.shape
        v = self.to_v(v).view(B, -1, self.h, self.d_k).transpose(1, 2)
        k = self.to_k(k).view(B, -1, self.h, self.d_k).transpose(1, 2)
        q = self.to_q(q).view(B, T, self.h, self.d_k).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (self.d_k ** 0.5))
        if attn_mask is not None:
            att = att.masked_fill(attn_mask == 0, -1e9)
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)
'''

VARIANT_EINSUM = IMPORTS + "import math\n" + '''

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.wq = nn.Linear(d_model, d_model, bias=False)
        self.wk = nn.Linear(d_model, d_model, bias=False)
        self.wv = nn.Linear(d_model, d_model, bias=False)
        self.wo = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        B, T, D = query.shape
        q = self.wq(query).reshape(B, T, self.num_heads, self.head_dim)
        k = self.wk(key).reshape(B, -1, self.num_heads, self.head_dim)
        v = self.wv(value).reshape(B, -1, self.num_heads, self.head_dim)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        z = torch.einsum("bhqk,bkhd->bqhd", weights, v)
        return self.wo(z.reshape(B, T, D))
'''

VARIANT_BMM = IMPORTS + '''

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.query_linear = nn.Linear(d_model, d_model, bias=False)
        self.key_linear = nn.Linear(d_model, d_model, bias=False)
        self.value_linear = nn.Linear(d_model, d_model, bias=False)
        self.output_linear = nn.Linear(d_model, d_model)

    def heads(self, x):
        B, T, D = x.shape
        x = x.view(B, T, self.num_heads, self.head_dim).permute(0, 2, 1, 3)
        return x.reshape(B * self.num_heads, T, self.head_dim)  # (B*H, T, head_dim)

    def forward(self, query, key, value, mask=None):
        B, T, D = query.shape
        q = self.heads(self.query_linear(query)) / self.head_dim ** 0.5  # scale q, as mha does
        k = self.heads(self.key_linear(key))
        v = self.heads(self.value_linear(value))
        scores = torch.bmm(q, k.transpose(1, 2))  # (B*H, Tq, Tk)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        z = torch.bmm(weights, v).view(B, self.num_heads, T, self.head_dim)
        z = z.permute(0, 2, 1, 3).reshape(B, T, D)
        return self.output_linear(z)
'''

VARIANT_SDPA = IMPORTS + '''

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.query_linear = nn.Linear(d_model, d_model, bias=False)
        self.key_linear = nn.Linear(d_model, d_model, bias=False)
        self.value_linear = nn.Linear(d_model, d_model, bias=False)
        self.output_linear = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        B, T, D = query.shape
        q = self.query_linear(query).view(B, T, self.num_heads, -1).transpose(1, 2)
        k = self.key_linear(key).view(B, -1, self.num_heads, D // self.num_heads).transpose(1, 2)
        v = self.value_linear(value).view(B, -1, self.num_heads, D // self.num_heads).transpose(1, 2)
        z = F.scaled_dot_product_attention(q, k, v, attn_mask=None if mask is None else mask.bool())
        return self.output_linear(z.transpose(1, 2).reshape(B, T, D))
'''

VARIANT_FUSED = IMPORTS + '''

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)  # one fused projection: q | k | v
        self.out = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        B, T, D = query.shape
        q, k, v = self.qkv(query).chunk(3, dim=-1)  # self-attention: one input
        q = q.view(B, T, self.num_heads, self.head_dim).transpose(1, 2)
        k = k.view(B, T, self.num_heads, self.head_dim).transpose(1, 2)
        v = v.view(B, T, self.num_heads, self.head_dim).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / self.head_dim ** 0.5
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        z = scores.softmax(dim=-1) @ v
        return self.out(z.transpose(1, 2).reshape(B, T, D))
'''

# The course's bare function with a mask, and the same with its softmax over the queries.
SDPA_MASKED = IMPORTS + '''

def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / d_k ** 0.5
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float('-inf'))
    attn_weights = F.softmax(scores, dim=-1)
    return torch.matmul(attn_weights, V), attn_weights
'''
SDPA_OVER_QUERIES = SDPA_MASKED.replace("F.softmax(scores, dim=-1)", "F.softmax(scores, dim=-2)")

VARIANTS: dict[str, str] = {"renamed": VARIANT_RENAMED, "einsum": VARIANT_EINSUM, "bmm": VARIANT_BMM,
                            "sdpa": VARIANT_SDPA, "fused": VARIANT_FUSED}
