"""Comments we wrote in code shown to learners (prefix ``code_``): ``mha.core.i18n.code_comments`` puts the page's
language after each ``# ``. The course's own code is quoted verbatim and keeps its comments."""
STRINGS = {
    "code_may_attend": {"en": "True = may attend", "ko": "True = 볼 수 있음"},
    "code_converted_blocked": {"en": "converted: True = blocked", "ko": "변환됨: True = 차단"},
    "code_attention_axes": {"en": "attention over the last two axes, (T, head_dim): weights (B, H, Tq, Tk)",
                            "ko": "마지막 두 축 (T, head_dim)에 대한 어텐션: weights (B, H, Tq, Tk)"},
}
