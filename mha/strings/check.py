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
              "설정으로, 같은 파라미터를 쓰는 강의 모듈과 나란히 실행해 처음 달라지는 단계, forward가 만든 모양, "
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
    "ck_upload": {"en": "Or upload a .py file", "ko": "또는 .py 파일 업로드"},
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
                 "ko": "검사는 텍스트에 대한 자기어텐션으로 실행합니다. 키/값 텍스트는 이 페이지에서 쓰지 않습니다."},
    "ck_source": {"en": "The check compares on the seeded random parameters, not on the sidebar's other weights.",
                  "ko": "검사는 사이드바에서 고른 다른 가중치가 아니라 시드로 만든 무작위 파라미터로 비교합니다."},
    "ck_off": {"en": "Checking learner code is turned off on this server (its host set MHA_CHECK=off).",
               "ko": "이 서버에서는 코드 검사가 꺼져 있습니다(운영자가 MHA_CHECK=off로 설정)."},
    "ck_failed": {"en": "The checker could not answer this time. Press Check to try again.",
                  "ko": "이번에는 검사기가 답하지 못했습니다. 검사를 눌러 다시 시도해 주세요."},
    "ck_unknown_message": {"en": "The checker answered, but this page cannot show its answer ({key}).",
                           "ko": "검사기가 답했지만 이 페이지가 그 답을 보여 줄 수 없습니다({key})."},
    "ck_at_line": {"en": "Line {line}, column {col} of your code:", "ko": "내 코드의 {line}번째 줄, {col}번째 칸:"},
    "ck_at_line_only": {"en": "Line {line} of your code:", "ko": "내 코드의 {line}번째 줄:"},
    "ck_equal": {"en": "Equal to the course's module on the same parameters: the largest difference is {max_diff}.",
                 "ko": "같은 파라미터에서 강의 모듈과 같습니다. 가장 큰 차이: {max_diff}"},
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
    "ck_in_zoo": {"en": "See this bug in the Bug zoo", "ko": "버그 동물원에서 이 버그 보기"},
    "ck_skipped": {"en": "not run", "ko": "실행 안 함"},
    "ck_check_rows_sum_to_one": {"en": "rows of the weights sum to 1", "ko": "가중치의 각 행의 합이 1"},
    "ck_check_permutation": {"en": "tokens permuted, outputs permuted", "ko": "토큰을 섞으면 출력도 똑같이 섞임"},
    "ck_check_causal_no_future": {"en": "a causal mask lets nothing flow from the future",
                                  "ko": "인과 마스크에서는 뒤의 토큰이 앞에 영향을 주지 않음"},
    "ck_check_heads_own_slice": {"en": "each head uses only its own slice of the features",
                                 "ko": "각 헤드는 자기 몫의 특성만 씀"},
    "ck_check_score_spread": {"en": "the scores' spread stays near 1 as head_dim grows",
                              "ko": "head_dim이 커져도 점수의 퍼짐이 1 근처에 머묾"},
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
        "ko": "`{name}`: 밑줄 두 개로 시작하는 이름은 쓸 수 없습니다(`def __init__`과 `super().__init__()`만 "
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
    "check_syntax_forbidden": {"en": "`{what}` is not allowed here.", "ko": "`{what}`: 여기서는 쓸 수 없는 "
                                                                            "문법입니다."},
    "check_decorator": {"en": "Decorators (`@…`) are not allowed here.", "ko": "데코레이터(`@…`)는 여기서 쓸 수 "
                                                                               "없습니다."},
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
        "ko": "`{name}`: 상속할 수 없는 클래스입니다. nn.Module(또는 nn의 층), 직접 만든 클래스, 예외 클래스만 "
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
        "en": "Your code computed longer than one check may ({seconds} s of CPU time): an endless loop?",
        "ko": "코드가 검사 한 번에 허용된 계산 시간(CPU {seconds}초)보다 오래 실행되었습니다. 끝나지 않는 "
              "반복문인가요?",
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
    # Written by mha/check/diagnose.py and mha/check/bugs_known.py. Bugs: a zoo bug's name is its Bug zoo title
    # (bz_<id>_title); check_bug_<id> names the others; check_bug_<id>_explain says what each does to the heatmaps.
    "check_bug_attention_over_heads": {"en": "Attention over the heads axis instead of the tokens",
                                       "ko": "토큰이 아니라 헤드 축에 대한 어텐션"},
    "check_bug_scale_by_d_model": {"en": "Scores divided by √d_model instead of √head_dim",
                                   "ko": "점수를 √head_dim이 아니라 √d_model로 나눔"},
    "check_bug_mask_ignored": {"en": "The mask is never applied", "ko": "마스크를 적용하지 않음"},
    "check_bug_softmax_wrong_axis": {"en": "Softmax over the wrong axis (not the keys)",
                                     "ko": "키가 아닌 다른 축에 대한 softmax"},
    "check_bug_no_output_projection": {"en": "No output projection (output_linear never applied)",
                                       "ko": "출력 투영 없음 (`output_linear`를 적용하지 않음)"},
    "check_bug_seed_two_as_written_explain": {
        "en": "Its `nn.Linear` layers take head_dim = {head_dim} features, but each token brings d_model = {d_model}: "
              "the first projection stops with a shape error whenever num_heads > 1, so no heatmap can be drawn. "
              "With `nn.Linear(d_model, d_model)` it runs, and then attends over the heads axis (see that bug).",
        "ko": "`nn.Linear` 층은 `head_dim` = {head_dim}개의 특성을 받는데, 각 토큰은 `d_model` = {d_model}개를 "
              "가져옵니다. "
              "그래서 `num_heads` > 1이면 첫 투영에서 모양 오류로 멈추고 히트맵을 그릴 수 없습니다. "
              "`nn.Linear(d_model, d_model)`로 바꾸면 실행되지만, 이번에는 헤드 축에 대해 어텐션합니다(그 버그 참고).",
    },
    "check_bug_attention_over_heads_explain": {
        "en": "The views give (batch, tokens, heads, head_dim) and attention runs on the last two axes, so each "
              "token's "
              "{heads} heads attend to each other: the weights are {heads} × {heads} per token instead of "
              "{tokens} × {tokens} per head, and no token ever looks at another. Transpose to (batch, heads, tokens, "
              "head_dim) after each view, and back before combining.",
        "ko": "`view`의 결과가 (배치, 토큰, 헤드, `head_dim`)이고 어텐션은 마지막 두 축에서 계산되므로, 한 토큰의 "
              "헤드 {heads}개가 서로를 봅니다. 가중치가 헤드마다 {tokens} × {tokens}이(가) 아니라 토큰마다 "
              "{heads} × {heads}(이)고, 어떤 토큰도 다른 토큰을 보지 않습니다. 각 `view` 뒤에 (배치, 헤드, 토큰, "
              "`head_dim`)으로 transpose하고, 합치기 전에 되돌리세요.",
    },
    "check_bug_split_heads_no_transpose_explain": {
        "en": "Each head gets a block of consecutive numbers that mixes several tokens' features: the weights map of "
              "a head shows rows that belong to other tokens, and every head's map changes when one token changes. "
              "With one head you would not see it.",
        "ko": "각 헤드가 여러 토큰의 특성이 섞인 연속된 숫자 덩어리를 받습니다. 한 헤드의 가중치 지도의 행이 다른 "
              "토큰의 것이 되고, 토큰 하나만 바뀌어도 모든 헤드의 지도가 바뀝니다. 헤드가 하나면 보이지 않습니다.",
    },
    "check_bug_no_scaling_explain": {
        "en": "The scores are √head_dim = √{head_dim} times too large: the weights map is sharper than ours (nearly "
              "one "
              "bright cell per row), and it gets sharper still as head_dim grows, until softmax saturates.",
        "ko": "점수가 √`head_dim` = √{head_dim}배만큼 너무 큽니다. 가중치 지도가 우리 것보다 날카롭고(행마다 거의 "
              "밝은 칸 하나), `head_dim`이 커질수록 더 날카로워져 softmax가 포화됩니다.",
    },
    "check_bug_scale_by_d_model_explain": {
        "en": "Dividing by √d_model = √{d_model} instead of √head_dim = √{head_dim} makes the scores √{heads} times "
              "too small: the weights map is flatter than ours (rows closer to uniform), more so with more heads.",
        "ko": "√`head_dim` = √{head_dim} 대신 √`d_model` = √{d_model}(으)로 나누면 점수가 √{heads}배 작아집니다. "
              "가중치 지도가 우리 것보다 평평하고(행이 고르게 퍼짐), 헤드가 많을수록 더 그렇습니다.",
    },
    "check_bug_flipped_mask_polarity_explain": {
        "en": "The mask blocks the keys it should allow and allows the ones it should block: with a causal mask the "
              "weights map lights up above the diagonal (the future) and is dark on and below it; a row with every "
              "key blocked gives NaN.",
        "ko": "마스크가 허용해야 할 키를 막고 막아야 할 키를 허용합니다. 인과 마스크라면 가중치 지도가 대각선 "
              "위(미래)에서 "
              "밝고 대각선과 그 아래는 어둡습니다. 모든 키가 막힌 행은 NaN이 됩니다.",
    },
    "check_bug_mask_after_softmax_explain": {
        "en": "Softmax runs over every key and the blocked ones are zeroed afterwards: the blocked cells are dark as "
              "they should be, but the rows no longer sum to 1, so the allowed keys get less than their share.",
        "ko": "softmax를 모든 키에 대해 계산한 뒤 막힌 키를 0으로 만듭니다. 막힌 칸은 제대로 어둡지만 행의 합이 더는 "
              "1이 아니어서, 허용된 키가 제 몫보다 적게 받습니다.",
    },
    "check_bug_mask_ignored_explain": {
        "en": "Your code takes a mask but never applies it: the weights map has weight on the blocked cells too "
              "(with a causal mask: above the diagonal, the future).",
        "ko": "코드가 마스크를 받지만 적용하지 않습니다. 가중치 지도에서 막힌 칸에도 가중치가 있습니다(인과 "
              "마스크라면 대각선 위, 곧 미래).",
    },
    "check_bug_softmax_over_queries_explain": {
        "en": "Each column of the weights map sums to 1 instead of each row: the keys share out the queries. A row "
              "no longer says where that token looks, and with a causal mask the future leaks into the past.",
        "ko": "가중치 지도의 각 행이 아니라 각 열의 합이 1입니다. 키가 쿼리를 나눠 가지는 셈입니다. 행이 더는 그 "
              "토큰이 "
              "어디를 보는지 말해 주지 않고, 인과 마스크에서는 미래가 과거로 새어 듭니다.",
    },
    "check_bug_softmax_wrong_axis_explain": {
        "en": "Softmax runs over the heads (dim=1, or no dim on 4-D scores) instead of the keys: for each query and "
              "key the {heads} heads share out 1, so a row of one head's map does not sum to 1 and heads compete "
              "instead of each attending on its own.",
        "ko": "softmax를 키가 아니라 헤드에 대해 계산합니다(`dim=1`, 또는 4차원 점수에 `dim` 없이). 쿼리와 키마다 헤드 "
              "{heads}개가 1을 나눠 가지므로, 한 헤드 지도의 행 합이 1이 아니고 헤드들이 각자 보지 않고 서로 "
              "경쟁합니다.",
    },
    "check_bug_combine_heads_no_permute_explain": {
        "en": "The weights are right, the output is not: viewing (batch, heads, tokens, head_dim) as (batch, tokens, "
              "d_model) without moving the heads back stitches each token's output from other tokens' head "
              "outputs. The output heatmap's rows belong to the wrong tokens. With one head you would not see it.",
        "ko": "가중치는 맞고 출력이 틀립니다. (배치, 헤드, 토큰, `head_dim`)을 헤드를 되돌리지 않고 (배치, 토큰, "
              "`d_model`)로 보면, 각 토큰의 출력이 다른 토큰들의 헤드 출력으로 꿰매집니다. 출력 히트맵의 행이 "
              "엉뚱한 토큰의 것입니다. 헤드가 하나면 보이지 않습니다.",
    },
    "check_bug_no_output_projection_explain": {
        "en": "Everything up to combining the heads matches ours; the last step is missing, so the output heatmap "
              "shows the heads side by side instead of their mix through `output_linear`.",
        "ko": "헤드를 합치는 단계까지는 우리 것과 같고 마지막 단계가 빠졌습니다. 그래서 출력 히트맵이 "
              "`output_linear`로 섞인 결과가 아니라 헤드들을 나란히 붙인 것을 보여 줍니다.",
    },
    # checks that need no reference weights (check_<id>_pass / _fail)
    "check_rows_sum_to_one_pass": {"en": "Each row of your weights sums to 1 over the keys (off by at most {worst}).",
                                   "ko": "가중치의 각 행은 키에 대해 합이 1입니다(차이 최대 {worst})."},
    "check_rows_sum_to_one_fail": {
        "en": "Rows of your weights do not sum to 1 over the keys (off by up to {worst}): softmax must run over the "
              "keys' axis, `dim=-1`, after the mask.",
        "ko": "가중치의 행 합이 키에 대해 1이 아닙니다(차이 최대 {worst}). softmax는 마스크를 적용한 뒤 키의 축, "
              "`dim=-1`에 대해 계산해야 합니다.",
    },
    "check_rows_sum_to_one_axis": {
        "en": "Your weights' last axis has {axis_len} entries but there are {keys} keys: the softmax does not run "
              "over the tokens.",
        "ko": "가중치의 마지막 축에는 {axis_len}개가 있는데 키는 {keys}개입니다. softmax가 토큰에 대해 계산되지 "
              "않습니다.",
    },
    "check_permutation_pass": {
        "en": "Shuffling the tokens shuffles your outputs the same way (without a mask, as attention should).",
        "ko": "토큰 순서를 섞으면 출력도 똑같이 섞입니다(마스크가 없을 때 어텐션이 그래야 하듯이).",
    },
    "check_permutation_fail": {
        "en": "Shuffling the tokens does not just shuffle your outputs (off by {max_diff}): positions mix somewhere "
              "(a reshape without its transpose?).",
        "ko": "토큰 순서를 섞었더니 출력이 단순히 섞이지 않았습니다(차이 {max_diff}). 어딘가에서 위치가 섞입니다 "
              "(transpose 없는 `reshape`?).",
    },
    "check_causal_no_future_pass": {
        "en": "With a causal mask, changing tokens from token {position} on leaves every earlier output as it was.",
        "ko": "인과 마스크에서 토큰 {position}부터 뒤의 토큰을 바꿔도 그 앞의 출력은 그대로입니다.",
    },
    "check_causal_no_future_fail": {
        "en": "With a causal mask, changing tokens from token {position} on changes earlier outputs (by "
              "{max_diff}): the future leaks into the past.",
        "ko": "인과 마스크에서 토큰 {position}부터 뒤의 토큰을 바꾸면 그 앞의 출력이 바뀝니다(차이 {max_diff}). 미래가 "
              "과거로 새어 듭니다.",
    },
    "check_heads_own_slice_pass": {
        "en": "Changing the query features of head 0 only changes head 0: each head uses its own slice.",
        "ko": "헤드 0의 쿼리 특성만 바꾸면 헤드 0만 바뀝니다. 각 헤드가 자기 몫의 특성만 씁니다.",
    },
    "check_heads_own_slice_fail": {
        "en": "Changing the query features of head 0 changes other heads too (by {max_diff}): heads share features "
              "they should not.",
        "ko": "헤드 0의 쿼리 특성을 바꾸면 다른 헤드도 바뀝니다(차이 {max_diff}). 헤드들이 나누지 말아야 할 특성을 "
              "나눠 씁니다.",
    },
    "check_heads_own_slice_layout": {
        "en": "No tensor with one slice per head ({heads} heads) was found in your code's weights or head outputs.",
        "ko": "코드의 가중치나 헤드 출력에서 헤드마다 하나씩(헤드 {heads}개) 나뉜 텐서를 찾지 못했습니다.",
    },
    "check_score_spread_pass": {
        "en": "The scores' spread stays near 1 as head_dim grows: {spread_small} at head_dim {head_dim_small}, "
              "{spread_large} at head_dim {head_dim_large}.",
        "ko": "`head_dim`이 커져도 점수의 퍼짐이 1 근처에 머뭅니다: `head_dim` {head_dim_small}에서 {spread_small}, "
              "{head_dim_large}에서 {spread_large}.",
    },
    "check_score_spread_fail": {
        "en": "The scores' spread does not stay near 1 as head_dim grows: {spread_small} at head_dim "
              "{head_dim_small}, {spread_large} at head_dim {head_dim_large}. Divide by √head_dim.",
        "ko": "`head_dim`이 커지면 점수의 퍼짐이 1 근처에 머물지 않습니다: `head_dim` {head_dim_small}에서 "
              "{spread_small}, {head_dim_large}에서 {spread_large}. √`head_dim`으로 나누세요.",
    },
    "check_skip_crash": {"en": "Not run: your code stops with an error there.",
                         "ko": "실행하지 않음: 그 경우 코드가 오류로 멈춥니다."},
    "check_skip_no_weights": {"en": "Not run: your code's attention weights cannot be seen (no softmax call).",
                              "ko": "실행하지 않음: 코드의 어텐션 가중치를 볼 수 없습니다(softmax 호출 없음)."},
    "check_skip_one_token": {"en": "Not run: it needs at least 2 tokens.",
                             "ko": "실행하지 않음: 토큰이 2개 이상 필요합니다."},
    "check_skip_no_mask_argument": {"en": "Not run: your code takes no mask.",
                                    "ko": "실행하지 않음: 코드가 마스크를 받지 않습니다."},
    "check_skip_one_head": {"en": "Not run: it needs at least 2 heads.", "ko": "실행하지 않음: 헤드가 2개 이상 "
                                                                               "필요합니다."},
    "check_skip_no_projection": {"en": "Not run: no query projection was found in your code.",
                                 "ko": "실행하지 않음: 코드에서 쿼리 투영을 찾지 못했습니다."},
    # what the diagnosis says about the code as a whole
    "check_unsupported_none": {
        "en": "Nothing to check: define a class `MultiHeadAttention(nn.Module)` taking `(d_model, num_heads)` with "
              "`forward(query, key, value, mask=None)`, or a function `scaled_dot_product_attention(Q, K, V, "
              "mask=None)`. Found: {found}",
        "ko": "검사할 것이 없습니다. `(d_model, num_heads)`를 받고 `forward(query, key, value, mask=None)`가 있는 "
              "`MultiHeadAttention(nn.Module)` 클래스나, `scaled_dot_product_attention(Q, K, V, mask=None)` 함수를 "
              "정의하세요. 찾은 것: {found}",
    },
    "check_unsupported_init": {
        "en": "`{name}` takes ({params}); expected `(d_model, num_heads)` or `(embed_size, heads)`.",
        "ko": "`{name}`의 인자는 ({params})입니다. `(d_model, num_heads)`나 `(embed_size, heads)`를 받아야 합니다.",
    },
    "check_unsupported_forward": {
        "en": "`{name}.forward` takes ({params}); expected `(query, key, value, mask=None)` or "
              "`(values, keys, query, mask=None)`.",
        "ko": "`{name}.forward`의 인자는 ({params})입니다. `(query, key, value, mask=None)`나 "
              "`(values, keys, query, mask=None)`를 받아야 합니다.",
    },
    "check_unsupported_function": {
        "en": "`{name}` takes ({params}); expected `scaled_dot_product_attention(Q, K, V)` or `(Q, K, V, mask)`.",
        "ko": "`{name}`의 인자는 ({params})입니다. `scaled_dot_product_attention(Q, K, V)`나 `(Q, K, V, mask)`를 "
              "받아야 합니다.",
    },
    "check_weights_unmatched": {
        "en": "Your projections could not be matched with ours ({found}), so no step is compared on the same weights; "
              "the checks below still ran. Each of query, key and value needs an `nn.Linear(d_model, d_model)` "
              "(or one fused `nn.Linear(d_model, 3 * d_model)`).",
        "ko": "투영을 우리 것과 짝지을 수 없어({found}) 같은 가중치로 단계를 비교하지 못했습니다. 아래 검사는 "
              "실행했습니다. 쿼리, 키, 값마다 `nn.Linear(d_model, d_model)`(또는 하나로 합친 "
              "`nn.Linear(d_model, 3 * d_model)`)가 필요합니다.",
    },
    "check_bad_output_type": {
        "en": "Your forward returned `{type}`, not a float tensor of shape {expected}.",
        "ko": "`forward`가 모양 {expected}의 실수 텐서가 아니라 `{type}`를(을) 돌려주었습니다.",
    },
    "check_bad_output_shape": {
        "en": "Your output has shape {shape}; expected {expected} (batch, tokens, d_model).",
        "ko": "출력의 모양이 {shape}입니다. {expected} (배치, 토큰, `d_model`)이어야 합니다.",
    },
    "check_output_nan": {"en": "Your output contains NaN or infinite values.",
                         "ko": "출력에 NaN이나 무한대 값이 있습니다."},
    "check_no_mask_argument": {
        "en": "`{name}` takes no mask, so it was compared with ours without the mask.",
        "ko": "`{name}`는(은) 마스크를 받지 않아서 마스크 없이 우리 것과 비교했습니다.",
    },
    "check_mask_demo": {
        "en": "Without a mask your code equals ours; with a causal mask it does not, so it is shown with one.",
        "ko": "마스크가 없으면 코드가 우리 것과 같지만 인과 마스크에서는 다릅니다. 그래서 인과 마스크로 보여 줍니다.",
    },
    "check_mask_unread": {
        "en": "Your code takes a mask but never uses it: with no mask chosen that changes nothing. Choose a causal "
              "mask in the sidebar to see what it does.",
        "ko": "코드가 마스크를 받지만 쓰지 않습니다. 마스크를 고르지 않았으니 지금은 달라지는 것이 없습니다. "
              "사이드바에서 "
              "인과 마스크를 골라 어떻게 되는지 보세요.",
    },
    "check_one_token": {
        "en": "With one token there is one key and every attention weight is 1, so most bugs cannot show: type a "
              "longer sentence.",
        "ko": "토큰이 하나면 키도 하나이고 모든 어텐션 가중치가 1이라서 대부분의 버그가 드러나지 않습니다. 더 긴 "
              "문장을 "
              "입력하세요.",
    },
    "check_bad_request": {"en": "The check could not start: {detail}", "ko": "검사를 시작할 수 없습니다: {detail}"},
    "check_diagnosis_error": {"en": "The comparison failed on this code (a bug on our side): {detail}",
                              "ko": "이 코드에서 비교가 실패했습니다(저희 쪽 버그입니다): {detail}"},
    # a crash, by the step it happened at: what the course's code does there
    "check_crash_init": {"en": "Building your class failed. The course's constructor only makes four "
                                "`nn.Linear(d_model, d_model)` layers (d_model = {d_model}).",
                         "ko": "클래스를 만드는 데 실패했습니다. 강의의 생성자는 `nn.Linear(d_model, d_model)` 층 "
                               "네 개만 만듭니다(`d_model` = {d_model})."},
    "check_crash_projections": {
        "en": "It stopped at the projections, where {theirs} met. The course's code feeds each token's d_model = "
              "{d_model} features to `nn.Linear(d_model, d_model)`: {x} in, {x} out.",
        "ko": "투영 단계에서 멈췄습니다. 그곳에서 {theirs}가(이) 만났습니다. 강의 코드는 각 토큰의 `d_model` = "
              "{d_model}개 특성을 `nn.Linear(d_model, d_model)`에 넣습니다: {x}가(이) 들어가고 {x}가(이) 나옵니다.",
    },
    "check_crash_split": {
        "en": "It stopped splitting into heads, at {theirs}. The course's code reshapes {x} into (1, tokens, "
              "{num_heads}, {head_dim}), then permutes the heads in front of the tokens.",
        "ko": "헤드로 나누다가 {theirs}에서 멈췄습니다. 강의 코드는 {x}를(을) (1, 토큰, {num_heads}, {head_dim}) "
              "모양으로 "
              "`reshape`한 뒤 헤드를 토큰 앞으로 `permute`합니다.",
    },
    "check_crash_scores": {
        "en": "It stopped computing the scores, at {theirs}. The course's code multiplies q (1, {num_heads}, "
              "{tokens}, {head_dim}) by kᵀ (1, {num_heads}, {head_dim}, {tokens}).",
        "ko": "점수를 계산하다가 {theirs}에서 멈췄습니다. 강의 코드는 q (1, {num_heads}, {tokens}, {head_dim})에 "
              "kᵀ (1, {num_heads}, {head_dim}, {tokens}) 행렬을 곱합니다.",
    },
    "check_crash_scale": {"en": "It stopped scaling the scores, at {theirs}. The course's code divides them by "
                                 "√head_dim = √{head_dim}.",
                          "ko": "점수를 스케일하다가 {theirs}에서 멈췄습니다. 강의 코드는 점수를 √`head_dim` = "
                                "√{head_dim}(으)로 나눕니다."},
    "check_crash_mask": {"en": "It stopped applying the mask, at {theirs}. The course's code fills the blocked "
                                "scores (mask == 0) with -inf; the mask broadcasts over batch and heads.",
                         "ko": "마스크를 적용하다가 {theirs}에서 멈췄습니다. 강의 코드는 막힌 점수(`mask == 0`)를 "
                               "-∞로 채웁니다. 마스크는 배치와 헤드에 브로드캐스트됩니다."},
    "check_crash_softmax": {"en": "It stopped at the softmax, at {theirs}. The course's code takes softmax over the "
                                   "last axis, the keys.",
                            "ko": "softmax에서 {theirs}에 멈췄습니다. 강의 코드는 마지막 축, 곧 키에 대해 softmax를 "
                                  "계산합니다."},
    "check_crash_weighted_sum": {
        "en": "It stopped at the weighted sum, at {theirs}. The course's code multiplies the weights (1, "
              "{num_heads}, {tokens}, {tokens}) by v (1, {num_heads}, {tokens}, {head_dim}).",
        "ko": "가중합에서 {theirs}에 멈췄습니다. 강의 코드는 가중치 (1, {num_heads}, {tokens}, {tokens})에 v (1, "
              "{num_heads}, {tokens}, {head_dim}) 행렬을 곱합니다.",
    },
    "check_crash_combine": {
        "en": "It stopped combining the heads, at {theirs}. The course's code permutes (1, {num_heads}, {tokens}, "
              "{head_dim}) back to (1, {tokens}, {num_heads}, {head_dim}), makes it contiguous and views it as {x}.",
        "ko": "헤드를 합치다가 {theirs}에서 멈췄습니다. 강의 코드는 (1, {num_heads}, {tokens}, {head_dim}) 모양을 "
              "(1, {tokens}, {num_heads}, {head_dim}) 모양으로 되돌리고 `contiguous()` 뒤 {x}(으)로 `view`합니다.",
    },
    "check_crash_output": {"en": "It stopped at the output projection, at {theirs}. The course's code applies "
                                  "`nn.Linear(d_model, d_model)` to {x}.",
                           "ko": "출력 투영에서 {theirs}에 멈췄습니다. 강의 코드는 {x}에 "
                                 "`nn.Linear(d_model, d_model)`을 적용합니다."},
}
