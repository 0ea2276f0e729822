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

    "ck_title": {"en": "Check your code", "ko": "내 코드 검사"},
    "ck_intro": {
        "en": "Paste your own MultiHeadAttention (or load one below) and press **Check**: it runs on the sentence "
              "and settings of the sidebar beside the course's module, on the same parameters, and you see the "
              "first step where the two differ, the shapes your forward made, and the bug by name when it is a "
              "known one. Your code runs in a separate, locked-down process, never in this server.",
        "ko": "직접 짠 MultiHeadAttention을 붙여 넣거나 아래에서 불러온 뒤 **검사**를 누르세요. 사이드바의 문장과 "
              "설정으로, 같은 매개변수를 쓰는 강의 모듈과 나란히 실행해 처음 달라지는 단계, forward가 만든 모양, "
              "그리고 알려진 버그라면 그 이름을 보여 줍니다. 여러분의 코드는 이 서버가 아니라 잠긴 별도 "
              "프로세스에서 실행됩니다.",
    },
    "ck_examples": {"en": "Load into the editor", "ko": "편집기로 불러오기"},
    "ck_ex_starter": {"en": "Starter", "ko": "시작 코드"},
    "ck_ex_course": {"en": "The course's class", "ko": "강의의 클래스"},
    "ck_ex_seed_two": {"en": "The study note's class, as written", "ko": "학습 노트의 클래스(원문 그대로)"},
    "ck_ex_sdpa": {"en": "A bare scaled_dot_product_attention", "ko": "scaled_dot_product_attention 함수만"},
    "ck_editor": {"en": "Your code", "ko": "내 코드"},
    "ck_editor_help": {
        "en": "A class MultiHeadAttention taking (d_model, num_heads) or (embed_size, heads), with forward(query, "
              "key, value, mask=None) or forward(values, keys, query, mask=None); or a function "
              "scaled_dot_product_attention(Q, K, V[, mask]) returning the output or (output, weights). Only torch, "
              "torch.nn, torch.nn.functional and math can be imported. At most {max} characters.",
        "ko": "(d_model, num_heads) 또는 (embed_size, heads)를 받는 MultiHeadAttention 클래스(forward(query, key, "
              "value, mask=None) 또는 forward(values, keys, query, mask=None)), 아니면 출력이나 (출력, 가중치)를 "
              "돌려주는 scaled_dot_product_attention(Q, K, V[, mask]) 함수. 불러올 수 있는 모듈은 torch, "
              "torch.nn, torch.nn.functional, math뿐입니다. 최대 {max}자.",
    },
    "ck_lines": {"en": "Your code with line numbers", "ko": "줄 번호와 함께 보는 내 코드"},
    "ck_upload": {"en": "Or upload a .py file", "ko": "또는 .py 파일 올리기"},
    "ck_upload_help": {"en": "At most {max_kb} KB of UTF-8 text; it replaces the code in the editor.",
                       "ko": "UTF-8 텍스트로 최대 {max_kb}KB. 편집기의 코드를 바꿔 넣습니다."},
    "ck_uploaded": {"en": "Loaded {name} into the editor.", "ko": "편집기에 불러온 파일: {name}"},
    "ck_upload_too_big": {"en": "The file is {n} bytes: at most {max} are read. Nothing was loaded.",
                          "ko": "파일 크기가 {n}바이트입니다. 최대 {max}바이트까지 읽습니다. 아무것도 불러오지 "
                                "않았습니다."},
    "ck_upload_not_text": {"en": "The file is not UTF-8 text (see byte {byte}). Nothing was loaded.",
                           "ko": "파일이 UTF-8 텍스트가 아닙니다({byte}번째 바이트). 아무것도 불러오지 않았습니다."},
    "ck_code_too_long": {"en": "The code is longer than {max} characters: shorten it.",
                         "ko": "코드가 {max}자보다 깁니다. 줄여 주세요."},
    "ck_run": {"en": "Check", "ko": "검사"},
    "ck_running": {"en": "Checking your code…", "ko": "코드를 검사하는 중…"},
    "ck_busy": {"en": "A check of yours is already running: its answer comes first (one check at a time).",
                "ko": "이미 검사가 하나 진행 중입니다. 그 결과가 먼저 나옵니다(한 번에 하나씩 검사합니다)."},
    "ck_stale": {"en": "The code or the settings changed since this check: press Check again for a new answer.",
                 "ko": "이 검사 뒤에 코드나 설정이 바뀌었습니다. 새 결과를 보려면 검사를 다시 누르세요."},
    "ck_on": {"en": "On {n:plural:token|tokens} · d_model {d_model} · {num_heads:plural:head|heads} · seed "
                    "{seed}{mask}.",
              "ko": "토큰 {n}개 · d_model {d_model} · 헤드 {num_heads}개 · 시드 {seed}{mask}에서 검사했습니다."},
    "ck_on_mask": {"en": " · with the mask", "ko": " · 마스크 적용"},
    "ck_cross": {"en": "The check runs self-attention on the text: the keys/values text is not used on this page.",
                 "ko": "검사는 텍스트에 대한 셀프 어텐션으로 실행합니다. 키/값 텍스트는 이 페이지에서 쓰지 않습니다."},
    "ck_source": {"en": "The check compares on the seeded random parameters, not on the sidebar's other weights.",
                  "ko": "검사는 사이드바에서 고른 다른 가중치가 아니라 시드로 만든 무작위 매개변수로 비교합니다."},
    "ck_off": {"en": "Checking learner code is turned off on this server (its host set MHA_CHECK=off).",
               "ko": "이 서버에서는 코드 검사가 꺼져 있습니다(운영자가 MHA_CHECK=off로 설정)."},
    "ck_unavailable": {"en": "The code checker is not installed on this server yet: nothing can be checked.",
                       "ko": "이 서버에는 아직 코드 검사기가 설치되어 있지 않아 검사할 수 없습니다."},
    "ck_failed": {"en": "The checker could not answer this time. Press Check to try again.",
                  "ko": "이번에는 검사기가 답하지 못했습니다. 검사를 눌러 다시 시도해 주세요."},
    "ck_unknown_message": {"en": "The checker answered, but this page cannot show its answer ({key}).",
                           "ko": "검사기가 답했지만 이 페이지가 그 답을 보여 줄 수 없습니다({key})."},
    "ck_at_line": {"en": "Line {line}, column {col} of your code:", "ko": "내 코드의 {line}번째 줄, {col}번째 칸:"},
    "ck_at_line_only": {"en": "Line {line} of your code:", "ko": "내 코드의 {line}번째 줄:"},
    "ck_equal": {"en": "Equal to the course's module on the same parameters: the largest difference is {max_diff}.",
                 "ko": "같은 매개변수에서 강의 모듈과 같습니다. 가장 큰 차이: {max_diff}"},
    "ck_differs": {"en": "Your code first differs from the course's module at the step **{step}** (largest "
                         "difference there: {max_diff}).",
                   "ko": "내 코드가 강의 모듈과 처음 달라지는 단계: **{step}** (그 단계의 가장 큰 차이: {max_diff})"},
    "ck_step_projections": {"en": "projections (query_linear, key_linear, value_linear)",
                            "ko": "투영 (query_linear, key_linear, value_linear)"},
    "ck_step_split": {"en": "split into heads (split_heads)", "ko": "헤드로 나누기 (split_heads)"},
    "ck_step_scores": {"en": "scores (QKᵀ)", "ko": "점수 (QKᵀ)"},
    "ck_step_scale": {"en": "scale (÷ √head_dim)", "ko": "스케일 (÷ √head_dim)"},
    "ck_step_mask": {"en": "mask", "ko": "마스크"},
    "ck_step_softmax": {"en": "softmax (attention weights)", "ko": "softmax (어텐션 가중치)"},
    "ck_step_weighted_sum": {"en": "weighted sum (weights @ V)", "ko": "가중합 (가중치 @ V)"},
    "ck_step_combine": {"en": "combine heads (combine_heads)", "ko": "헤드 합치기 (combine_heads)"},
    "ck_step_output": {"en": "output (output_linear)", "ko": "출력 (output_linear)"},
    "ck_steps": {"en": "Step by step", "ko": "단계별 비교"},
    "ck_col_step": {"en": "step", "ko": "단계"},
    "ck_col_diff": {"en": "largest difference", "ko": "가장 큰 차이"},
    "ck_not_found": {"en": "not found in your code", "ko": "내 코드에서 찾지 못함"},
    "ck_theirs": {"en": "Your code", "ko": "내 코드"},
    "ck_ours": {"en": "The course's module", "ko": "강의 모듈"},
    "ck_of_head": {"en": "Head {head}.", "ko": "헤드 {head}."},
    "ck_theirs_missing": {"en": "Your code made no tensor for this step.",
                          "ko": "내 코드는 이 단계의 텐서를 만들지 않았습니다."},
    "ck_shape_differs": {"en": "Your tensor has the shape {theirs}; the course's module's has {ours}.",
                         "ko": "내 텐서의 모양: {theirs}, 강의 모듈의 모양: {ours}"},
    "ck_trace": {"en": "Shape trace of your forward", "ko": "내 forward의 모양 추적"},
    "ck_trace_help": {"en": "One line per torch call your forward made: the line of your code, the operation, the "
                            "shapes that went in and came out. ▶ marks the first wrong one.",
                      "ko": "forward가 부른 torch 연산마다 한 줄: 내 코드의 줄 번호, 연산, 들어간 모양과 나온 "
                            "모양. ▶ 표시는 처음 틀린 줄입니다."},
    "ck_trace_empty": {"en": "Your forward made no torch call that could be traced.",
                       "ko": "forward에서 추적할 수 있는 torch 연산이 없었습니다."},
    "ck_bug": {"en": "The bug: {name}", "ko": "버그: {name}"},
    "ck_fix": {"en": "The fix, on line {line} of your code:", "ko": "고치는 방법 (내 코드의 {line}번째 줄):"},
    "ck_checks": {"en": "Checks that need no reference", "ko": "기준 없이 하는 검사"},
    "ck_checks_help": {"en": "Properties any correct attention has, whatever its design: they hold or fail on your "
                             "code alone.",
                       "ko": "설계와 상관없이 올바른 어텐션이라면 갖는 성질입니다. 내 코드만으로 성립하는지 "
                             "확인합니다."},
    "ck_passed": {"en": "holds", "ko": "성립"},
    "ck_failed_check": {"en": "fails", "ko": "실패"},
    "ck_crash": {"en": "Your code stopped with an error.", "ko": "내 코드가 오류로 멈췄습니다."},
    "ck_crash_shapes": {"en": "The shapes that met there: {shapes}", "ko": "그곳에서 만난 모양: {shapes}"},
    "ck_crash_ours": {"en": "What the course's code does at that step:", "ko": "강의 코드가 그 단계에서 하는 일:"},
    "ck_link_title": {"en": "Share as an exercise", "ko": "연습 문제로 공유하기"},
    "ck_link_help": {
        "en": "The link in the sidebar (🔗) opens this page with the code of the editor and the same sentence and "
              "settings: send it to a class, and everyone starts from the same class.",
        "ko": "사이드바의 링크(🔗)는 편집기의 코드와 같은 문장, 같은 설정으로 이 페이지를 엽니다. 수업에 보내면 "
              "모두 같은 클래스에서 시작합니다.",
    },
    "ck_link_size": {"en": "In the link, the code takes {n} of the {max} characters it may hold.",
                     "ko": "링크 안에서 코드가 차지하는 글자 수: {n} / 최대 {max}"},
    "ck_link_starter": {"en": "The editor holds the starter: the link opens with it without carrying any code.",
                        "ko": "편집기에 시작 코드가 있어, 링크는 코드를 담지 않고도 시작 코드로 열립니다."},
    "ck_link_too_long": {
        "en": "This code is too long to put in a link ({n} characters compressed, at most {max}): shorten it or "
              "share the .py file. The link opens with the starter.",
        "ko": "코드가 너무 길어 링크에 담을 수 없습니다(압축해서 {n}자, 최대 {max}자). 코드를 줄이거나 .py 파일을 "
              "공유하세요. 링크는 시작 코드로 열립니다.",
    },
    "ck_link_bad": {"en": "The code in this link could not be read (it was cut short or changed): the editor shows "
                          "the starter instead.",
                    "ko": "링크에 담긴 코드를 읽을 수 없습니다(잘렸거나 바뀌었습니다). 편집기에는 대신 시작 코드를 "
                          "보여 줍니다."},
    "bz_check_link": {"en": "Check this bug as code", "ko": "이 버그를 코드로 검사하기"},

    # ---------------------------------------------------------------------------------------- sandbox refusals
    # The key of a Refused (mha/check/sandbox.py) or a limit (mha/check/worker.py); fmt values are plain data.
    "check_syntax": {"en": "Syntax error: {message}", "ko": "문법 오류: {message}"},
    "check_too_long": {
        "en": "The code is too long to check: at most {max_chars} characters and {max_lines} lines.",
        "ko": "코드가 너무 길어 검사할 수 없습니다. 최대 {max_chars}자, {max_lines}줄까지 됩니다.",
    },
    "check_import_forbidden": {
        "en": "`{name}` cannot be imported here: only torch, torch.nn, torch.nn.functional and math can.",
        "ko": "`{name}`: 여기서는 가져올 수 없는 모듈입니다. torch, torch.nn, torch.nn.functional, math만 "
              "import할 수 있습니다.",
    },
    "check_import_name_forbidden": {
        "en": "`{name}` cannot be imported from {module}: the checker allows a fixed list of functions.",
        "ko": "`{name}`: {module}에서 가져올 수 없는 이름입니다. 검사기는 정해진 함수만 허용합니다.",
    },
    "check_dunder": {
        "en": "`{name}`: names that start with two underscores are not allowed (only `def __init__` and "
              "`super().__init__()`).",
        "ko": "`{name}`: 밑줄 두 개로 시작하는 이름은 쓸 수 없습니다(`def __init__`와 `super().__init__()`만 "
              "됩니다).",
    },
    "check_name_forbidden": {
        "en": "`{name}` is not available here: the checker runs only the parts of Python an attention module "
              "needs.",
        "ko": "`{name}`: 여기서는 쓸 수 없는 이름입니다. 검사기는 어텐션 모듈에 필요한 파이썬 기능만 실행합니다.",
    },
    "check_attr_forbidden": {
        "en": "`{owner}.{name}` is not allowed here: the checker allows a fixed list of torch functions and tensor "
              "methods.",
        "ko": "`{owner}.{name}`: 여기서는 쓸 수 없습니다. 검사기는 정해진 torch 함수와 텐서 메서드만 허용합니다.",
    },
    "check_attr_write": {
        "en": "`{owner}.{name} = …`: only attributes of your own classes' objects can be set, like "
              "`self.{name} = …`.",
        "ko": "`{owner}.{name} = …`: 속성은 직접 만든 클래스의 객체에만 넣을 수 있습니다(`self.{name} = …`처럼).",
    },
    "check_syntax_forbidden": {"en": "`{what}` is not allowed here.", "ko": "`{what}`: 여기서는 쓸 수 없는 문법입니다."},
    "check_decorator": {"en": "Decorators (`@…`) are not allowed here.", "ko": "데코레이터(`@…`)는 여기서 쓸 수 없습니다."},
    "check_class_keyword": {
        "en": "`class …({name}=…)`: class keywords such as a metaclass are not allowed here.",
        "ko": "`class …({name}=…)`: 메타클래스 같은 클래스 키워드는 여기서 쓸 수 없습니다.",
    },
    "check_bare_except": {
        "en": "A bare `except:` is not allowed: name the exception, e.g. `except ValueError:`.",
        "ko": "`except:`만 쓸 수는 없습니다. `except ValueError:`처럼 예외 이름을 적으세요.",
    },
    "check_base_forbidden": {
        "en": "A class can derive from nn.Module (or an nn layer), your own classes or an exception, not from "
              "`{name}`.",
        "ko": "`{name}`: 상속할 수 없는 클래스입니다. nn.Module(또는 nn 레이어), 직접 만든 클래스, 예외 클래스만 "
              "상속할 수 있습니다.",
    },
    "check_name_reserved": {
        "en": "`{name}` is part of nn.Module's own machinery: give your method or attribute another name.",
        "ko": "`{name}`: nn.Module이 내부에서 쓰는 이름입니다. 메서드나 속성에 다른 이름을 붙이세요.",
    },
    "check_raised": {"en": "Your code raised {error}: {message}", "ko": "코드에서 {error} 예외가 났습니다: {message}"},
    "check_recursion": {
        "en": "Your code calls itself too deeply (a recursion without end?).",
        "ko": "코드가 자기 자신을 너무 깊이 호출합니다(끝나지 않는 재귀인가요?).",
    },
    "check_memory": {
        "en": "Your code needed more memory than one check may use.",
        "ko": "코드가 검사 한 번에 쓸 수 있는 것보다 많은 메모리를 썼습니다.",
    },
    "check_timeout": {
        "en": "Your code ran longer than one check may ({seconds} s): an endless loop?",
        "ko": "코드가 검사 한 번에 허용된 시간({seconds}초)보다 오래 실행되었습니다. 끝나지 않는 반복문인가요?",
    },
    "check_worker_died": {
        "en": "The checker stopped while running your code and has been restarted. If this happens again, your "
              "code may crash Python.",
        "ko": "코드를 실행하던 검사기가 멈춰서 다시 시작했습니다. 또 그러면 코드가 파이썬을 멈추게 하는 것일 수 "
              "있습니다.",
    },
    "check_busy": {
        "en": "Every checker is busy with other visitors' code. Try again in a few seconds.",
        "ko": "모든 검사기가 다른 방문자의 코드를 실행 중입니다. 몇 초 뒤에 다시 해 보세요.",
    },
    "check_session_busy": {
        "en": "Your previous check is still running.",
        "ko": "앞서 시작한 검사가 아직 실행 중입니다.",
    },
    "check_off": {
        "en": "Checking code is switched off on this server.",
        "ko": "이 서버에서는 코드 검사가 꺼져 있습니다.",
    },
    "check_result_too_big": {
        "en": "The check's result was too large to show.",
        "ko": "검사 결과가 너무 커서 보여 줄 수 없습니다.",
    },
    "check_internal_error": {
        "en": "The checker failed on this code (a bug on our side): {error}",
        "ko": "검사기가 이 코드에서 실패했습니다(저희 쪽 버그입니다): {error}",
    },

    # ----------------------------------------------------------------------------------------------- diagnosis
}
