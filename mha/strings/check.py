"""Strings of the Check your code page (issue #25).

Blocks: the page (prefix ``ck_``, owned by the page); ``# sandbox refusals`` (mha/check/sandbox.py and worker.py:
the ``key`` of a ``Refused`` or a limit, e.g. ``check_timeout``); ``# diagnosis`` (mha/check/diagnose.py: step
names, bug names, checks, messages). A key comes with its ``fmt`` dict; the page calls ``t(key, **fmt)`` and escapes
every learner-supplied value in ``fmt`` first. Korean: no particle right after a placeholder (no helper chooses it
yet), e.g. "`{name}`: 허용되지 않는 이름입니다".
"""
STRINGS = {
    # ------------------------------------------------------------------------------------------------ the page
    "nav_check": {"en": "Check your code", "ko": "내 코드 검사"},
    "home_check": {
        "en": "Paste your own MultiHeadAttention: the app runs it on your sentence beside ours, finds the first "
              "step that differs and names the bug.",
        "ko": "직접 짠 MultiHeadAttention을 붙여 넣으면, 앱이 여러분의 문장에서 우리 모듈과 나란히 실행해 처음 "
              "달라지는 단계를 찾고 버그의 이름을 알려 줍니다.",
    },

    # ---------------------------------------------------------------------------------------- sandbox refusals

    # ----------------------------------------------------------------------------------------------- diagnosis
}
