"""Comments we wrote in code shown to learners (prefix ``code_``): ``mha.core.i18n.code_comments`` puts the page's
language after each ``# `` and in a one-line docstring. The course's own code is quoted verbatim and keeps its
comments."""
STRINGS = {
    "code_may_attend": {"en": "True = may attend", "ko": "True = 볼 수 있음"},
    "code_converted_blocked": {"en": "converted: True = blocked", "ko": "변환됨: True = 차단"},
    "code_attention_axes": {"en": "attention over the last two axes, (T, head_dim): weights (B, H, Tq, Tk)",
                            "ko": "마지막 두 축 (T, head_dim)에 대한 어텐션: weights (B, H, Tq, Tk)"},
    # Check your code's starter (mha.check.examples.STARTER)
    "code_starter_doc": {"en": "Change any step below, then press Check.",
                         "ko": "아래 단계 중 아무것이나 바꾼 뒤 검사를 누르세요."},
    "code_mask_one": {"en": "mask: 1 = may attend", "ko": "마스크: 1 = 볼 수 있음"},
    "code_rows_sum": {"en": "each row sums to 1 over the keys", "ko": "각 행은 키들에 걸쳐 합이 1"},
}
