"""Strings of the Bug zoo page (prefix bz_)."""
STRINGS = {
    "nav_bugs": {"en": "Bug zoo", "ko": "버그 동물원"},
    "home_bugs": {
        "en": "Seven real bugs of hand-written attention beside the correct result, and the test that catches each; "
              "why one head hides the transpose bugs.",
        "ko": "직접 짠 어텐션에서 실제로 나오는 버그 일곱 가지를 올바른 결과와 나란히 보고, 각각을 잡아내는 "
              "테스트를 봅니다. 헤드가 하나면 transpose 버그가 왜 숨는지도 봅니다.",
    },
    "bz_title": {"en": "Bug zoo: attention bugs and the tests that catch them",
                 "ko": "버그 동물원: 어텐션 버그와 그것을 잡는 테스트"},
    "bz_intro": {
        "en": "Each bug is a small variant of the real module, kept apart from it, that gets one step "
              "wrong. It runs on your sentence with the real module's weights. Each is caught by a test in our "
              "suite: the bug fails it, the real module passes it. Bugs that need a mask or several heads to show "
              "are marked.",
        "ko": "각 버그는 실제 모듈과 따로 떼어 둔 작은 변형으로, 한 단계만 틀립니다. 실제 모듈과 같은 "
              "가중치로 여러분의 문장에서 실행됩니다. 각각 우리 테스트 하나가 잡아냅니다: 버그는 실패하고 실제 "
              "모듈은 통과합니다. 마스크나 여러 헤드가 있어야 드러나는 버그는 따로 표시했습니다.",
    },
    "bz_summary": {"en": "All bugs on this sentence", "ko": "이 문장에서 본 모든 버그"},
    "bz_col_bug": {"en": "bug", "ko": "버그"},
    "bz_col_out": {"en": "output", "ko": "출력"},
    "bz_col_w": {"en": "weights", "ko": "가중치"},
    "bz_col_one_head": {"en": "1 head", "ko": "헤드 1개"},
    "bz_summary_note": {
        "en": "Numbers: the largest |error| against the real module, in the output, in the weights, and in the "
              "output with num_heads = 1 (for the bugs one head hides).",
        "ko": "숫자: 실제 모듈과 비교한 최대 |오차| — 출력, 가중치, 그리고 num_heads = 1일 때의 출력(헤드 하나가 "
              "숨기는 버그만).",
    },
    "bz_col_test": {"en": "the check that catches it", "ko": "잡아내는 검사"},
    "bz_not_comparable": {"en": "— (see below)", "ko": "— (아래 참고)"},
    "bz_pick": {"en": "Bug", "ko": "버그"},
    "bz_pick_help": {
        "en": "A link names the bug the same way in every language, e.g. `bz_bug=softmax_over_queries`.",
        "ko": "링크는 언어와 상관없이 버그를 같은 이름으로 가리킵니다(예: `bz_bug=softmax_over_queries`).",
    },
    "bz_wrong": {"en": "The bug", "ko": "버그"},
    "bz_right": {"en": "The real module", "ko": "실제 모듈"},
    "bz_caught_by": {
        "en": "The check that catches it: **{check}**. The bug fails it, the real module passes it: this app's own "
              "tests check exactly this, with 4 heads.",
        "ko": "잡아내는 검사: **{check}**. 버그는 통과하지 못하고 실제 모듈은 통과합니다. 이 앱의 테스트도 헤드 "
              "4개로 바로 이것을 검사합니다.",
    },
    "bz_chart_bug": {"en": "With the bug", "ko": "버그 있음"},
    "bz_chart_ok": {"en": "Correct", "ko": "올바름"},
    "bz_chart_diff": {"en": "Difference (bug − correct)", "ko": "차이 (버그 − 올바름)"},
    "bz_weights_of": {"en": "Weights of head {head}.", "ko": "헤드 {head}의 가중치."},
    "bz_outputs_of": {
        "en": "The weights are exactly right; the final output is not. Showing the output (tokens × d_model).",
        "ko": "가중치는 정확히 맞지만 최종 출력이 틀립니다. 출력(토큰 × d_model)을 보여 줍니다.",
    },
    "bz_max_error": {
        "en": "Max |error| — output: **{out:.4f}** · weights: **{w:.4f}**",
        "ko": "최대 |오차| — 출력: **{out:.4f}** · 가중치: **{w:.4f}**",
    },
    "bz_no_effect": {
        "en": "This bug changes nothing on this sentence with these settings (for example, every query has a "
              "single allowed key, whose weight is 1 either way). Try another sentence, mask or num_heads.",
        "ko": "이 문장과 설정에서는 이 버그가 아무것도 바꾸지 않습니다(예: 모든 쿼리에 허용된 키가 하나뿐이면 "
              "그 가중치는 어쨌든 1). 다른 문장, 마스크, num_heads를 시도해 보세요.",
    },
    "bz_demo_mask": {
        "en": "Your settings apply no mask, and with no mask this bug changes nothing. Shown here with a "
              "lower-triangular mask (query i may see keys 0 … i), on both sides.",
        "ko": "현재 설정에는 마스크가 없고, 마스크가 없으면 이 버그는 아무것도 바꾸지 않습니다. 그래서 양쪽 모두 "
              "아래 삼각 마스크(쿼리 i는 키 0 … i만 봄)로 보여 줍니다.",
    },
    "bz_one_head_now": {
        "en": "Your num_heads is 1, so this bug is invisible here. Set num_heads higher in the sidebar to see it.",
        "ko": "지금 num_heads가 1이라 이 버그가 보이지 않습니다. 사이드바에서 num_heads를 늘려 보세요.",
    },
    # the bugs
    "bz_seed_two_as_written_title": {"en": "The study note's class, as written",  # as Check your code names it
                                     "ko": "학습 노트의 클래스(원문 그대로)"},
    # the check that catches each bug, in words (the test in tests/unit/test_bugs.py does exactly this)
    "bz_seed_two_as_written_check": {"en": "it runs for every num_heads that divides d_model",
                                     "ko": "d_model을 나누는 모든 num_heads에서 실행된다"},
    "bz_split_heads_no_transpose_check": {"en": "each position keeps its own numbers after split_heads",
                                          "ko": "split_heads 뒤에도 각 위치가 자기 숫자를 그대로 가진다"},
    "bz_softmax_over_queries_check": {"en": "every row of weights sums to 1", "ko": "가중치의 모든 행의 합이 1이다"},
    "bz_flipped_mask_polarity_check": {"en": "a blocked key gets weight 0", "ko": "차단된 키의 가중치는 0이다"},
    "bz_mask_after_softmax_check": {"en": "blocking a key gives the same result as deleting it",
                                    "ko": "키를 차단한 결과가 그 키를 지운 결과와 같다"},
    "bz_no_scaling_check": {"en": "each head's output equals PyTorch's F.scaled_dot_product_attention",
                            "ko": "각 헤드의 출력이 PyTorch의 F.scaled_dot_product_attention과 같다"},
    "bz_combine_heads_no_permute_check": {"en": "combine_heads exactly undoes split_heads",
                                          "ko": "combine_heads가 split_heads를 정확히 되돌린다"},
    "bz_seed_two_as_written_explain": {
        "en": "The course notes' `MultiHeadAttention` (embed_size, heads) gives each of Q, K, V an "
              "`nn.Linear(head_dim, head_dim)` but feeds it all d_model features, and it runs attention on "
              "(N, T, heads, head_dim): the last two axes are heads and head_dim, so the *heads* attend to each "
              "other, separately for every token. Tokens never see one another.",
        "ko": "강의 노트의 `MultiHeadAttention`(embed_size, heads)은 Q, K, V마다 `nn.Linear(head_dim, head_dim)`을 "
              "두고서 d_model 전체를 넣고, 어텐션을 (N, T, heads, head_dim)에서 계산합니다. 마지막 두 축이 "
              "heads와 head_dim이라 토큰마다 따로 *헤드끼리* 어텐션하고, 토큰끼리는 서로를 보지 못합니다.",
    },
    "bz_seed_error": {
        "en": "As written, with num_heads = {h}, it fails: its Linear layers take head_dim = {hd} features but "
              "receive d_model = {d}. Any num_heads > 1 fails like this:",
        "ko": "쓰인 그대로 num_heads = {h}(으)로 실행하면 실패합니다. `nn.Linear` 층은 head_dim = {hd}개의 특성을 "
              "받는데 "
              "d_model = {d}개가 들어오기 때문입니다. num_heads > 1이면 모두 이렇게 실패합니다:",
    },
    "bz_seed_runs": {
        "en": "With num_heads = 1 it runs, but the attention is 1 × 1 per token (weight always 1): each token "
              "only ever sees itself, and the output is just a projection of its own vector.",
        "ko": "num_heads = 1이면 실행되지만 어텐션이 토큰마다 1 × 1(가중치는 항상 1)입니다. 각 토큰은 자기 "
              "자신만 보고, 출력은 자기 벡터를 투영한 것일 뿐입니다.",
    },
    "bz_seed_heads": {
        "en": "Made to run (each token's features pre-split into {h} heads, the only input its Linear layers accept), "
              "it computes, for every token, {h} × {h} weights between heads: the chart with heads on both axes "
              "shows token “{tok}”. The chart with tokens on both axes is what attention should be (head {head} of "
              "the real module). The shapes differ, so there is no difference to draw.",
        "ko": "실행되게 만들면(각 토큰의 특성을 미리 {h}개 헤드로 나눠 넣으면, `nn.Linear` 층이 받는 유일한 입력) "
              "토큰마다 헤드 사이의 {h} × {h} 가중치를 계산합니다. 두 축이 헤드인 그림은 토큰 “{tok}”의 가중치이고, "
              "두 축이 토큰인 그림은 원래 어텐션(실제 모듈의 헤드 {head})입니다. 모양이 달라 차이는 그릴 수 없습니다.",
    },
    "bz_token": {"en": "Token", "ko": "토큰"},
    # the (H, H) map of the second handout's class: heads attend to heads, not tokens to tokens
    "bz_seed_query_axis": {"en": "query head", "ko": "쿼리 헤드"},
    "bz_seed_key_axis": {"en": "key head", "ko": "키 헤드"},
    "bz_split_heads_no_transpose_title": {"en": "split_heads without the transpose", "ko": "transpose 없는 "
                                                                                           "split_heads"},
    "bz_split_heads_no_transpose_explain": {
        "en": "Reshaping (B, T, d_model) straight to (B, H, T, head_dim) keeps every number but puts it in the "
              "wrong place: each “head” gets a slab of consecutive numbers that mixes several positions. The "
              "shapes are right, so nothing complains.",
        "ko": "(B, T, d_model)을 바로 (B, H, T, head_dim)으로 reshape하면 숫자는 그대로지만 자리가 틀립니다. "
              "각 “헤드”가 여러 위치가 섞인 연속된 숫자 덩어리를 받습니다. 모양은 맞으니 아무 오류도 나지 않습니다.",
    },
    "bz_softmax_over_queries_title": {"en": "Softmax over the wrong dimension", "ko": "잘못된 차원의 softmax"},
    "bz_softmax_over_queries_explain": {
        "en": "softmax(dim=-2) normalises each column (over the queries) instead of each row (over the keys): a "
              "query's weights no longer sum to 1.",
        "ko": "softmax(dim=-2)는 각 행(키 방향)이 아니라 각 열(쿼리 방향)을 정규화합니다. 쿼리 하나의 가중치 합이 "
              "더 이상 1이 아닙니다.",
    },
    "bz_flipped_mask_polarity_title": {"en": "Flipped mask polarity", "ko": "뒤집힌 마스크 극성"},
    "bz_flipped_mask_polarity_explain": {
        "en": "`masked_fill(mask == 1, -inf)` reads True as “blocked” — nn.MultiheadAttention's convention — in "
              "code whose masks mean True = may attend. Every allowed key is blocked and every blocked key allowed.",
        "ko": "`masked_fill(mask == 1, -inf)`은 True를 “차단”으로 읽습니다(nn.MultiheadAttention의 규칙). 그런데 "
              "이 코드의 마스크는 True = 허용이라, 허용된 키는 모두 차단되고 차단된 키는 모두 허용됩니다.",
    },
    "bz_mask_after_softmax_title": {"en": "Mask applied after softmax", "ko": "softmax 뒤에 적용한 마스크"},
    "bz_mask_after_softmax_explain": {
        "en": "Softmax over every key, then zeroing the blocked ones: the allowed keys keep only their share of a "
              "row that no longer sums to 1, instead of sharing the whole 1 among themselves.",
        "ko": "모든 키에 softmax를 한 뒤 차단된 키를 0으로 만들면, 허용된 키들은 1 전체를 나누는 대신 합이 1이 "
              "아닌 행에서 원래 몫만 갖습니다.",
    },
    "bz_no_scaling_title": {"en": "No 1/√head_dim", "ko": "1/√head_dim 없음"},
    "bz_no_scaling_explain": {
        "en": "Without dividing by √head_dim the scores grow with head_dim, so softmax gets sharper and "
              "saturates: one key takes almost all the weight (see the Scaling & softmax lab).",
        "ko": "√head_dim으로 나누지 않으면 점수가 head_dim에 따라 커져 softmax가 뾰족해지고 포화됩니다. 키 하나가 "
              "거의 모든 가중치를 가져갑니다(스케일링·softmax 실험실 참고).",
    },
    "bz_combine_heads_no_permute_title": {"en": "combine_heads without the permute", "ko": "permute 없는 "
                                                                                           "combine_heads"},
    "bz_combine_heads_no_permute_explain": {
        "en": "Viewing (B, H, Tq, head_dim) as (B, Tq, d_model) without first moving the heads back behind the "
              "positions: a token's output vector is stitched together from other tokens' head outputs. The "
              "weights are untouched — only the output is wrong.",
        "ko": "(B, H, Tq, head_dim)을 헤드를 위치 뒤로 옮기지 않고 (B, Tq, d_model)로 view하면, 한 토큰의 출력 "
              "벡터가 다른 토큰들의 헤드 출력으로 이어 붙여집니다. 가중치는 그대로이고 출력만 틀립니다.",
    },
    # one head hides the transpose bugs
    "bz_one_head_title": {"en": "One head hides the transpose bugs", "ko": "헤드가 하나면 transpose 버그가 숨습니다"},
    "bz_one_head_explain": {
        "en": "With num_heads = 1, (B, T, 1, head_dim) and (B, 1, T, head_dim) hold the same numbers in the same "
              "order, so a missing transpose or permute moves nothing: these bugs give exactly the real numbers, "
              "and a test with one head cannot see them. That is why our reference tests always use several heads.",
        "ko": "num_heads = 1이면 (B, T, 1, head_dim)과 (B, 1, T, head_dim)이 같은 숫자를 같은 순서로 담고 있어, "
              "transpose나 permute가 빠져도 아무것도 움직이지 않습니다. 이 버그들은 실제와 똑같은 숫자를 내고, "
              "헤드 하나로 하는 테스트는 이들을 보지 못합니다. 그래서 우리의 기준 테스트는 항상 여러 헤드를 씁니다.",
    },
    "bz_one_head_col_now": {"en": "max error, num_heads = {h}", "ko": "최대 오차, num_heads = {h}"},
    "bz_one_head_col_one": {"en": "max error, num_heads = 1", "ko": "최대 오차, num_heads = 1"},
}
