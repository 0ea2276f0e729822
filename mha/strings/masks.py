"""Strings of the batch / cross-attention controls (shared sidebar) and of the Masks page (prefix mk_)."""
STRINGS = {
    # --- shared controls: batch, padding, cross-attention -------------------------------------------------------
    "ctl_text_batch_help": {
        "en": "Several sentences, one per line, run together as one batch; shorter ones are padded with {pad}.",
        "ko": "한 줄에 한 문장씩 여러 문장을 쓰면 하나의 배치로 함께 실행됩니다. 짧은 문장은 {pad}(으)로 채웁니다.",
    },
    "ctl_sentence": {"en": "Sentence of the batch", "ko": "배치에서 볼 문장"},
    "ctl_sentence_help": {
        "en": "The text has {n} lines, run together as one batch (B = {n}). Pick the one to show: 0 is the first "
              "line. Shorter sentences are padded with {pad} to the longest.",
        "ko": "텍스트가 {n}줄이라 하나의 배치(B = {n})로 함께 실행됩니다. 볼 문장을 고르세요(0이 첫 줄). "
              "짧은 문장은 가장 긴 문장 길이까지 {pad}(으)로 채웁니다.",
    },
    "ctl_sentence_shown": {
        "en": "Showing “{preview}”: {n} tokens + {n_pad} × {pad}.",
        "ko": "“{preview}” 표시 중: 토큰 {n}개 + {pad} {n_pad}개.",
    },
    "ctl_kv_text": {"en": "Keys/values text (cross-attention, optional)", "ko": "키/값 텍스트 (교차 어텐션, 선택)"},
    "ctl_kv_text_placeholder": {
        "en": "Empty: self-attention (keys and values from the sentence)",
        "ko": "비워 두면 자기어텐션 (키와 값도 위 문장에서)",
    },
    "ctl_kv_text_help": {
        "en": "Cross-attention: the queries come from the sentence, the keys and values from this text — the "
              "course class's forward(query, key, value), as a decoder attends to an encoded source sentence. "
              "One line for every sentence, or one line per sentence.",
        "ko": "교차 어텐션: 쿼리는 위 문장에서, 키와 값은 이 텍스트에서 옵니다. 강의 클래스의 "
              "forward(query, key, value)이며, 디코더가 인코딩된 원문을 바라보는 방식입니다. "
              "모든 문장에 쓸 한 줄, 또는 문장마다 한 줄씩 쓰세요.",
    },
    "ctl_causal_cross_kept": {
        "en": "Causal mask: not applied in cross-attention (query i and key i are tokens of two different texts, so "
              "“only earlier keys” means nothing). The switch stays on and applies again when the keys/values "
              "text is cleared.",
        "ko": "인과 마스크: 교차 어텐션에서는 적용하지 않습니다(쿼리 i와 키 i가 서로 다른 텍스트의 토큰이라 "
              "“앞쪽 키만”이라는 말이 의미가 없습니다). 스위치는 켜진 채로 남아, 키/값 텍스트를 비우면 다시 "
              "적용됩니다.",
    },
    "ctl_causal_cross": {
        "en": "Causal mask is off in cross-attention: query i and key i are tokens of two different texts, so "
              "“only earlier keys” means nothing. Clear the keys/values text to use it.",
        "ko": "교차 어텐션에서는 인과 마스크를 쓰지 않습니다. 쿼리 i와 키 i가 서로 다른 텍스트의 토큰이라 "
              "“앞쪽 키만”이라는 말이 의미가 없습니다. 쓰려면 키/값 텍스트를 비우세요.",
    },
    "ctl_padding": {"en": "Padding mask", "ko": "패딩 마스크"},
    "ctl_padding_help": {
        "en": "Block the {pad} keys that fill shorter sentences up to the longest one (a key-padding mask). "
              "Off: the pads get attention like real words.",
        "ko": "짧은 문장을 가장 긴 문장 길이까지 채운 {pad} 키를 차단합니다(키 패딩 마스크). "
              "끄면 패딩도 진짜 단어처럼 어텐션을 받습니다.",
    },
    "note_sentences_cut": {
        "en": "{n_sentences} lines; only the first {max_sentences} are used as the batch.",
        "ko": "{n_sentences}줄이라 앞의 {max_sentences}줄만 배치로 사용합니다.",
    },
    "note_causal_cross": {
        "en": "The causal mask is not applied: it needs self-attention, and the keys come from another text.",
        "ko": "인과 마스크는 적용하지 않았습니다. 자기어텐션에서만 의미가 있는데 키가 다른 텍스트에서 옵니다.",
    },
    "note_sentence_clamped": {
        "en": "There is no sentence {asked} (the batch has {n_sentences}); showing sentence {used}.",
        "ko": "{asked}번 문장은 없습니다(배치에 {n_sentences}개). {used}번 문장을 보여 줍니다.",
    },
    "err_kv_lines": {
        "en": "The keys/values text has {n_kv} lines but the sentence box has {n_text}: give one line (used for "
              "every sentence) or one line per sentence.",
        "ko": "키/값 텍스트는 {n_kv}줄인데 문장 칸은 {n_text}줄입니다. 모든 문장에 쓸 한 줄, 또는 문장마다 "
              "한 줄씩 쓰세요.",
    },
    "err_kv_empty": {
        "en": "The keys/values text has nothing visible: type a few words, or clear it for self-attention.",
        "ko": "키/값 텍스트에 보이는 글자가 없습니다. 몇 단어를 입력하거나, 자기어텐션을 쓰려면 비우세요.",
    },
    "page_needs_kv_text": {
        "en": "Fix the keys/values text in the sidebar (see the message there) to see attention.",
        "ko": "사이드바의 키/값 텍스트를 고치면(그곳의 안내 참고) 어텐션을 볼 수 있습니다.",
    },
    # --- Masks page -------------------------------------------------------------------------------------------------
    "nav_masks": {"en": "Masks", "ko": "마스크"},
    "home_masks": {
        "en": "Causal, padding and your own masks; a query with nothing to attend to; True = may attend vs "
              "True = blocked; a live check against PyTorch.",
        "ko": "인과·패딩·직접 만든 마스크, 어텐션할 곳이 없는 쿼리, True = 허용 대 True = 차단, "
              "PyTorch와의 실시간 비교.",
    },
    "mk_title": {"en": "Masks: who may attend to whom", "ko": "마스크: 누가 누구를 볼 수 있나"},
    "mk_intro": {
        "en": "A mask decides, for every query (row) and key (column), whether attention may flow. The course's "
              "convention: **True / 1 = may attend**, False / 0 = blocked. Blocked scores become −∞ before "
              "softmax, so their weights are exactly 0 and the allowed keys share the whole 1.",
        "ko": "마스크는 모든 쿼리(행)와 키(열) 쌍마다 어텐션이 흐를 수 있는지를 정합니다. 강의의 규칙: "
              "**True / 1 = 어텐션 허용**, False / 0 = 차단. 차단된 점수는 softmax 전에 −∞가 되므로 가중치가 "
              "정확히 0이 되고, 허용된 키들이 1 전체를 나눠 가집니다.",
    },
    "mk_kind": {"en": "Mask", "ko": "마스크"},
    "mk_kind_help": {
        "en": "none: every query sees every key · causal: itself and earlier keys · padding: no {pad} key · "
              "causal + padding: both · custom: tick the cells yourself.",
        "ko": "없음: 모든 키를 봄 · 인과: 자신과 앞쪽 키만 · 패딩: {pad} 키 제외 · 인과 + 패딩: 둘 다 · "
              "직접: 칸을 직접 선택.",
    },
    # the options keep their language-independent ids (they go into links); this legend says what each one is
    "mk_name_none": {"en": "none", "ko": "없음"},
    "mk_name_causal": {"en": "causal", "ko": "인과"},
    "mk_name_padding": {"en": "padding", "ko": "패딩"},
    "mk_name_causal_padding": {"en": "causal + padding", "ko": "인과 + 패딩"},
    "mk_name_custom": {"en": "custom", "ko": "직접"},
    "mk_opt_none": {"en": "no mask: every query sees every key", "ko": "마스크 없음: 모든 키를 봄"},
    "mk_opt_causal": {"en": "causal: itself and earlier keys", "ko": "인과: 자신과 앞쪽 키만"},
    "mk_opt_padding": {"en": "padding: no {pad} key", "ko": "패딩: {pad} 키 제외"},
    "mk_opt_causal_padding": {"en": "causal + padding: both", "ko": "인과 + 패딩: 둘 다"},
    "mk_opt_custom": {"en": "custom: tick the cells yourself", "ko": "직접: 칸을 직접 선택"},
    "mk_kind_cross": {
        "en": "Cross-attention (keys from another text): causal masks need self-attention and are not offered.",
        "ko": "교차 어텐션(키가 다른 텍스트에서 옴)에서는 인과 마스크를 쓸 수 없어 목록에서 뺐습니다.",
    },
    "mk_no_padding": {
        "en": "This sentence has no {pad}, so the padding mask allows everything. Write a longer sentence on "
              "another line (one sentence per line) and pick this one to see padding blocked.",
        "ko": "이 문장에는 {pad}이(가) 없어 패딩 마스크가 모두 허용합니다. 다른 줄에 더 긴 문장을 쓰고(한 줄에 "
              "한 문장) 이 문장을 고르면 패딩이 차단되는 것을 볼 수 있습니다.",
    },
    "mk_head": {"en": "Head", "ko": "헤드"},
    "mk_mask_title": {"en": "1 · The mask", "ko": "1 · 마스크"},
    "mk_mask_help": {
        "en": "Green ✓ = may attend (True), grey ✗ = blocked (False). {n_blocked} of {n_cells} cells blocked.",
        "ko": "초록 ✓ = 허용(True), 회색 ✗ = 차단(False). {n_cells}칸 중 {n_blocked}칸 차단.",
    },
    "mk_scores_title": {"en": "2 · Masked scores", "ko": "2 · 마스크된 점수"},
    "mk_scores_help": {
        "en": "QKᵀ/√head_dim with blocked cells set to −∞: grey and marked −∞ (no colour can show minus "
              "infinity). Hover a blocked cell to see the score it hides.",
        "ko": "QKᵀ/√head_dim에서 차단된 칸을 −∞로 바꾼 것: 회색에 −∞ 표시(음의 무한대는 색으로 나타낼 수 "
              "없습니다). 차단된 칸에 마우스를 올리면 가려진 점수가 보입니다.",
    },
    "mk_weights_title": {"en": "3 · Weights", "ko": "3 · 가중치"},
    "mk_weights_help": {
        "en": "softmax of each row over the allowed keys only: blocked cells are exactly 0 (grey), and each row "
              "with an allowed key sums to 1.",
        "ko": "각 행을 허용된 키에 대해서만 softmax: 차단된 칸은 정확히 0(회색)이고, 허용된 키가 있는 행의 "
              "합은 1입니다.",
    },
    "mk_custom_title": {"en": "Your mask", "ko": "직접 만드는 마스크"},
    "mk_custom_help": {
        "en": "Tick = may attend. Untick a cell to block it; untick a whole row to see a query with nothing to "
              "attend to. Rows are queries, columns keys.",
        "ko": "체크 = 허용. 체크를 풀면 차단됩니다. 한 행 전체를 풀면 어텐션할 곳이 없는 쿼리가 됩니다. "
              "행은 쿼리, 열은 키입니다.",
    },
    "mk_custom_start": {"en": "Start from", "ko": "시작 모양"},
    "mk_start_all": {"en": "everything allowed", "ko": "모두 허용"},
    "mk_start_causal": {"en": "causal", "ko": "인과(causal)"},
    "mk_start_row": {"en": "query 0 fully blocked", "ko": "쿼리 0 전부 차단"},
    "mk_custom_too_big": {
        "en": "The custom mask can be edited up to {max} × {max} cells; this sentence has {tq} queries × {tk} "
              "keys. Shorten it to edit the mask.",
        "ko": "직접 만드는 마스크는 {max} × {max}칸까지 편집할 수 있습니다. 이 문장은 쿼리 {tq}개 × 키 {tk}개입니다. "
              "문장을 줄이면 편집할 수 있습니다.",
    },
    "mk_cells": {"en": "Mask as text", "ko": "텍스트로 쓴 마스크"},
    "mk_cells_help": {
        "en": "The same mask as the table, in the link too: one row of digits per query (top to bottom), one digit "
              "per key, 1 = may attend, 0 = blocked, a dot between rows ({example} is the causal mask of 3 "
              "tokens; a space, comma, slash or semicolon also separates rows). Type or paste a mask here and the "
              "table follows; tick a cell and this text follows.",
        "ko": "표와 같은 마스크이며 링크에도 들어갑니다. 쿼리마다(위에서 아래로) 숫자 한 줄, 키마다 숫자 하나: "
              "1 = 허용, 0 = 차단, 줄 사이에는 점({example}은(는) 토큰 3개의 인과 마스크. 공백, 쉼표, 빗금, 세미콜론도 "
              "줄을 나눕니다). 여기에 마스크를 입력하거나 "
              "붙여 넣으면 표가 따라오고, 표의 칸을 바꾸면 이 텍스트가 따라옵니다.",
    },
    "mk_cells_expected": {
        "en": "Expected: {tq} rows (queries) of {tk} digits (keys), 1 = may attend, 0 = blocked, a dot between rows.",
        "ko": "필요한 모양: 숫자 {tk}개(키)짜리 줄 {tq}개(쿼리), 1 = 허용, 0 = 차단, 줄 사이에는 점.",
    },
    "mk_cells_kept": {"en": "The table keeps the last valid mask.", "ko": "표는 마지막으로 올바르던 마스크를 "
                                                                          "유지합니다."},
    "mk_cells_start": {"en": "The table shows the start pattern.", "ko": "표는 시작 모양을 보여 줍니다."},
    "mk_cells_err_empty": {"en": "The mask text is empty.", "ko": "마스크 텍스트가 비어 있습니다."},
    "mk_cells_err_long": {
        "en": "The mask text has {n} characters, more than {max}.",
        "ko": "마스크 텍스트가 {n}자로, {max}자보다 깁니다.",
    },
    "mk_cells_err_char": {
        "en": "Character {pos}, {char}, is not 0, 1 or a dot.",
        "ko": "{pos}번째 문자({char})는 0, 1, 점이 아닙니다.",
    },
    "mk_cells_err_rows": {
        "en": "The mask text has {rows:plural:row|rows}, but this sentence has {tq} queries.",
        "ko": "마스크 텍스트는 {rows}줄인데 이 문장의 쿼리는 {tq}개입니다.",
    },
    "mk_cells_err_cols": {
        "en": "Row {row} has {n} digits, but this sentence has {tk} keys.",
        "ko": "{row}번 줄의 숫자는 {n}개인데 이 문장의 키는 {tk}개입니다.",
    },
    "mk_cells_dropped": {
        "en": "The sentence changed shape, so your mask no longer fits: the table starts again from the pattern above "
              "({tq} × {tk}).",
        "ko": "문장의 모양이 바뀌어 직접 만든 마스크가 더는 맞지 않습니다. 표는 위의 시작 모양({tq} × {tk})에서 "
              "다시 시작합니다.",
    },
    "mk_full_title": {"en": "A query with nothing to attend to", "ko": "어텐션할 곳이 없는 쿼리"},
    "mk_full_explain": {
        "en": "Every key of query {rows} is blocked. Softmax over a row of −∞ is 0 / 0 = NaN. This module "
              "gives such a row weights of exactly 0 and a head output of 0, so the token's output is just "
              "output_linear's bias. The course's code and torch's `nn.MultiheadAttention` give NaN there — "
              "and a NaN spreads into everything computed from it.",
        "ko": "쿼리 {rows}의 모든 키가 차단되었습니다. 전부 −∞인 행의 softmax는 0 / 0 = NaN입니다. 이 모듈은 "
              "그런 행의 가중치를 정확히 0, 헤드 출력을 0으로 두므로 그 토큰의 출력은 output_linear의 "
              "편향뿐입니다. 강의 코드와 torch의 `nn.MultiheadAttention`은 여기서 NaN을 내며, NaN은 그 뒤의 "
              "모든 계산으로 번집니다.",
    },
    "mk_full_demo": {
        "en": "No row of this mask is fully blocked, so here is the same mask with every key of one query "
              "blocked as well:",
        "ko": "이 마스크에는 전부 차단된 행이 없으니, 같은 마스크에서 쿼리 하나의 키를 모두 차단해 봅니다:",
    },
    "mk_full_row": {"en": "Block every key of query", "ko": "모든 키를 차단할 쿼리"},
    "mk_full_col_key": {"en": "key", "ko": "키"},
    "mk_full_col_ours": {"en": "ours: weight", "ko": "이 모듈: 가중치"},
    "mk_full_col_torch": {"en": "nn.MultiheadAttention: weight", "ko": "nn.MultiheadAttention: 가중치"},
    "mk_full_outputs": {
        "en": "Output of that token — ours: output_linear's bias, every number finite: {ours_finite} · "
              "nn.MultiheadAttention: {torch_nan} of {d_model} numbers NaN · F.scaled_dot_product_attention "
              "(torch {version}): head output {sdpa}.",
        "ko": "그 토큰의 출력 — 이 모듈: output_linear의 편향, 모든 값 유한: {ours_finite} · "
              "nn.MultiheadAttention: {d_model}개 중 {torch_nan}개 NaN · F.scaled_dot_product_attention "
              "(torch {version}): 헤드 출력 {sdpa}.",
    },
    "mk_sdpa_zero": {"en": "all 0, like ours", "ko": "모두 0 (이 모듈과 같음)"},
    "mk_sdpa_nan": {"en": "NaN", "ko": "NaN"},
    "mk_sdpa_other": {"en": "not 0", "ko": "0이 아님"},
    "mk_yes": {"en": "yes", "ko": "예"},
    "mk_no": {"en": "no", "ko": "아니요"},
    "mk_polarity_title": {"en": "Polarity: the same mask, two conventions", "ko": "극성: 같은 마스크, 두 가지 규칙"},
    "mk_polarity_explain": {
        "en": "The course (`masked_fill(mask == 0, -inf)`) and `F.scaled_dot_product_attention` read **True as "
              "may attend**. `nn.MultiheadAttention` reads **True as blocked**, for both `attn_mask` and "
              "`key_padding_mask`. The same cells, opposite booleans: convert in one place "
              "(`mha.core.masks.to_torch_attn_mask`).",
        "ko": "강의 코드(`masked_fill(mask == 0, -inf)`)와 `F.scaled_dot_product_attention`은 **True를 허용**으로 "
              "읽습니다. `nn.MultiheadAttention`은 `attn_mask`와 `key_padding_mask` 모두 **True를 차단**으로 "
              "읽습니다. 같은 칸, 반대 불리언: 한 곳(`mha.core.masks.to_torch_attn_mask`)에서 변환하세요.",
    },
    "mk_polarity_ours": {
        "en": "Course / F.scaled_dot_product_attention: True = may attend",
        "ko": "강의 / F.scaled_dot_product_attention: True = 허용",
    },
    "mk_polarity_torch": {
        "en": "nn.MultiheadAttention attn_mask: True = blocked",
        "ko": "nn.MultiheadAttention attn_mask: True = 차단",
    },
    "mk_polarity_forgot": {
        "en": "Hand the course's mask to nn.MultiheadAttention without converting it, and its output is off by "
              "up to **{err:.3f}** on the rows it still computes{nan}.",
        "ko": "강의의 마스크를 변환하지 않고 nn.MultiheadAttention에 넘기면, 계산되는 행에서 출력이 최대 "
              "**{err:.3f}** 어긋납니다{nan}.",
    },
    "mk_polarity_forgot_nan": {"en": ", and {n:plural:query row becomes|query rows become} NaN",
                               "ko": ". 또 쿼리 행 {n}개는 NaN이 됩니다"},
    "mk_polarity_forgot_all": {
        "en": "Hand this mask to nn.MultiheadAttention without converting it and it reads every allowed cell as "
              "blocked: all {n} query rows become NaN.",
        "ko": "이 마스크를 변환하지 않고 nn.MultiheadAttention에 넘기면 허용된 칸을 모두 차단으로 읽어, 쿼리 행 "
              "{n}개가 모두 NaN이 됩니다.",
    },
    "mk_check_title": {"en": "Check against PyTorch", "ko": "PyTorch와 비교"},
    "mk_check_intro": {
        "en": "Our module against torch's own attention, run now in float64: `nn.MultiheadAttention` with our "
              "weights copied in and the mask converted, and `F.scaled_dot_product_attention` on our q, k, v. "
              "Pass = every difference ≤ {tol:g} and NaN nowhere but in fully blocked rows.",
        "ko": "이 모듈을 torch 자체 어텐션과 지금 float64로 비교합니다: 가중치를 복사하고 마스크를 변환한 "
              "`nn.MultiheadAttention`, 그리고 우리의 q, k, v에 대한 `F.scaled_dot_product_attention`. "
              "통과 = 모든 차이 ≤ {tol:g}, 그리고 NaN은 전부 차단된 행에만.",
    },
    "mk_check_batch": {
        "en": "The sidebar's mask, used by every other page: the whole batch ({b:plural:sentence|sentences}), {mask}",
        "ko": "다른 모든 페이지가 쓰는 사이드바의 마스크: 배치 전체(문장 {b}개), {mask}",
    },
    "mk_check_same": {
        "en": "The whole batch ({b:plural:sentence|sentences}) with the sidebar's {mask}, the one shown above",
        "ko": "배치 전체(문장 {b}개), 위에 보이는 사이드바의 {mask}",
    },
    "mk_kind_same": {
        "en": "This is the sidebar's {mask}, the one every page uses: change it with the sidebar's switches (the "
              "causal mask; padding under “{more}”).",
        "ko": "사이드바의 {mask}입니다. 모든 페이지가 이 마스크를 씁니다. 사이드바의 스위치로 바꾸세요(인과 마스크, "
              "패딩은 “{more}” 안).",
    },
    "mk_kind_own": {
        "en": "Only on this page: the mask “{kind}”. The other pages use the sidebar's {mask}; the check at the "
              "bottom runs both.",
        "ko": "이 페이지에서만: 마스크 “{kind}”. 다른 페이지는 사이드바 설정({mask})으로 계산합니다. 맨 아래 검사는 "
              "둘 다 확인합니다.",
    },
    "mk_check_page": {"en": "This page's mask “{kind}”, sentence {s}", "ko": "이 페이지의 마스크 “{kind}”, {s}번 문장"},
    "mk_check_pass": {"en": "✅ Pass", "ko": "✅ 통과"},
    "mk_check_fail": {"en": "❌ Differs", "ko": "❌ 다름"},
    "mk_check_errors": {
        "en": "max |difference|: output vs nn.MultiheadAttention {out:.1e} · weights {w:.1e} · head outputs vs "
              "F.scaled_dot_product_attention {sdpa:.1e}",
        "ko": "최대 |차이|: 출력 대 nn.MultiheadAttention {out:.1e} · 가중치 {w:.1e} · 헤드 출력 대 "
              "F.scaled_dot_product_attention {sdpa:.1e}",
    },
    "mk_check_nan": {
        "en": "{n:plural:fully blocked query row|fully blocked query rows} left out: torch's nn.MultiheadAttention "
              "gives NaN there, ours weights "
              "of 0 (by design, see above).",
        "ko": "전부 차단된 쿼리 행 {n}개는 제외: torch의 nn.MultiheadAttention은 NaN, 이 모듈은 가중치 0"
              "(의도된 차이, 위 설명 참고).",
    },
    "mk_mask_none": {"en": "no mask", "ko": "마스크 없음"},
    "mk_mask_causal": {"en": "causal mask", "ko": "인과 마스크"},
    "mk_mask_padding": {"en": "padding mask", "ko": "패딩 마스크"},
    "mk_mask_causal_padding": {"en": "causal + padding masks", "ko": "인과 + 패딩 마스크"},
    "mk_cross_suffix": {"en": ", cross-attention", "ko": ", 교차 어텐션"},
}
