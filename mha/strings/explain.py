"""Strings of the Step-by-step page (ex_), the cell breakdown shared with the Playground (cb_) and the lab (lab_).

The wording follows the course (../shared/seeds/): Q = what each token looks for, K = what each token offers,
V = what gets passed on; scores = Q–K similarity by dot product; weights = softmax, each row sums to 1.
"""
STRINGS = {
    # --- navigation and home page ------------------------------------------------------------------------------
    "nav_explain": {"en": "Step by step", "ko": "단계별 설명"},
    "nav_lab": {"en": "Scaling & softmax lab", "ko": "스케일링·softmax 실험실"},
    "home_explain": {
        "en": "The course's code line by line on your sentence, and the dot product behind any cell.",
        "ko": "강의 코드를 내 문장으로 한 줄씩 따라가고, 아무 칸이나 눌러 그 뒤의 내적을 봅니다.",
    },
    "home_lab": {
        "en": "Why divide by √head_dim: saturation, entropy and temperature, measured.",
        "ko": "왜 √head_dim으로 나눌까: 포화, 엔트로피, 온도를 직접 재어 봅니다.",
    },
    # --- Step by step ------------------------------------------------------------------------------------------
    "ex_title": {"en": "Step by step", "ko": "단계별 설명"},
    "ex_intro": {
        "en": "The course's `MultiHeadAttention`, run on your sentence: {n} tokens · d_model {d_model} · "
              "{num_heads} heads of head_dim {head_dim}{causal}. Each step shows the lines of course code, the tensor "
              "they make with its shape, and the module's actual numbers.",
        "ko": "강의의 `MultiHeadAttention`을 내 문장으로 실행합니다: 토큰 {n}개 · d_model {d_model} · "
              "head_dim {head_dim}인 헤드 {num_heads}개{causal}. 단계마다 강의 코드, 그 코드가 만드는 텐서와 모양, "
              "모듈이 실제로 계산한 숫자를 보여 줍니다.",
    },
    "ex_causal_suffix": {"en": " · causal mask", "ko": " · 인과 마스크"},
    "ex_head": {"en": "Head shown in the per-head steps", "ko": "헤드별 단계에서 볼 헤드"},
    "ex_step": {"en": "Step {n} · {title}", "ko": "{n}단계 · {title}"},
    "ex_shape": {"en": "`{name}` shape: `{shape}`", "ko": "`{name}`의 모양: `{shape}`"},
    "ex_picture": {"en": "`{name}` as a picture", "ko": "`{name}` 그림으로 보기"},
    "ex_head_word": {"en": "head", "ko": "헤드"},
    "ex_feature": {"en": "feature", "ko": "특성"},
    "ex_axis_key": {"en": "key (attended to)", "ko": "키 (바라봐지는 토큰)"},
    "ex_axis_query": {"en": "query (attending)", "ko": "쿼리 (바라보는 토큰)"},
    "ex_tab_x": {"en": "x = embedding + positions", "ko": "x = 임베딩 + 위치"},
    "ex_tab_x_nopos": {"en": "x = embedding", "ko": "x = 임베딩"},
    "ex_tab_embedding": {"en": "token embedding", "ko": "토큰 임베딩"},
    "ex_tab_x_kv": {"en": "x_kv (keys/values text)", "ko": "x_kv (키/값 텍스트)"},
    "ex_cross_note": {
        "en": "Cross-attention: the queries come from your sentence (x), the keys and values from the keys/values "
              "text (x_kv): `forward(x, x_kv, x_kv)`.",
        "ko": "교차 어텐션: 쿼리는 내 문장(x)에서, 키와 값은 키/값 텍스트(x_kv)에서 옵니다: `forward(x, x_kv, x_kv)`.",
    },
    "ex_tab_positions": {"en": "positions", "ko": "위치 인코딩"},
    "ex_positions_on": {
        "en": " plus a sinusoidal position vector, so that the same word at two places differs",
        "ko": "에 사인파 위치 벡터를 더한 것이라, 같은 단어도 자리가 다르면 달라집니다",
    },
    "ex_positions_off": {
        "en": " (positional encoding is off: a repeated word gets identical vectors)",
        "ko": "입니다(위치 인코딩이 꺼져 있어, 반복된 단어는 똑같은 벡터가 됩니다)",
    },
    "ex_step_embed": {"en": "Tokens become vectors", "ko": "토큰이 벡터가 됩니다"},
    "ex_step_embed_text": {
        "en": "Each of the {n} tokens becomes a vector of d_model = {d_model} numbers: its embedding{positions}. "
              "In self-attention this one tensor x goes in as `query`, `key` and `value` alike. (The embeddings "
              "here are random and fixed per word, not trained.)",
        "ko": "토큰 {n}개가 각각 d_model = {d_model}개의 숫자로 된 벡터가 됩니다. 임베딩{positions}. "
              "자기어텐션에서는 이 텐서 x 하나가 `query`, `key`, `value`로 똑같이 들어갑니다. "
              "(여기의 임베딩은 학습된 것이 아니라 단어마다 고정된 무작위 값입니다.)",
    },
    "ex_step_linear": {"en": "query_linear, key_linear, value_linear", "ko": "query_linear, key_linear, value_linear"},
    "ex_step_linear_text": {
        "en": "Three learned `nn.Linear(d_model, d_model)` layers read the same x in three ways. "
              "**Q** (query): what each token *looks for* in the other tokens. "
              "**K** (key): what each token *offers*, its content. "
              "**V** (value): the actual content that *gets passed on* and summed. "
              "As in the course, these three have no bias.",
        "ko": "학습되는 `nn.Linear(d_model, d_model)` 층 세 개가 같은 x를 세 가지로 읽습니다. "
              "**Q**(쿼리): 각 토큰이 다른 토큰에서 무엇을 *찾는지*. "
              "**K**(키): 각 토큰의 *내용 표현*. "
              "**V**(값): 집계/가중합되어 *전달될 실제 내용*. "
              "강의처럼 이 세 층에는 편향(bias)이 없습니다.",
    },
    "ex_step_split_heads": {"en": "split_heads: columns become heads", "ko": "split_heads: 열이 헤드가 됩니다"},
    "ex_step_split_heads_text": {
        "en": "`split_heads` computes nothing: it cuts the d_model = {d_model} columns into {num_heads} blocks of "
              "head_dim = {head_dim} (`reshape`) and moves the head axis in front of the tokens (`permute`). "
              "Head 0 takes the first {head_dim} columns, head 1 the next {head_dim}, and so on (coloured frames). "
              "From here on every head attends on its own, with its own small q, k and v.",
        "ko": "`split_heads`는 계산을 하지 않습니다. d_model = {d_model}개의 열을 head_dim = {head_dim}개씩 "
              "{num_heads}덩어리로 자르고(`reshape`), 헤드 축을 토큰 축 앞으로 옮깁니다(`permute`). "
              "헤드 0이 처음 {head_dim}개 열을, 헤드 1이 다음 {head_dim}개를 가져가는 식입니다(색 테두리). "
              "이제부터 각 헤드는 자기만의 작은 q, k, v로 따로 어텐션합니다.",
    },
    "ex_split_top": {"en": "query_linear(x): (T, d_model)", "ko": "query_linear(x): (T, d_model)"},
    "ex_step_qk": {"en": "QKᵀ: every query against every key", "ko": "QKᵀ: 모든 쿼리와 모든 키"},
    "ex_step_qk_text": {
        "en": "**Attention score: Q–K similarity → dot product.** Entry (i, j) is q_i · k_j, the sum over "
              "head_dim = {head_dim} dimensions of q_i[d] × k_j[d]: large when what token i looks for matches what "
              "token j offers. Shown for head {head}, before dividing by √head_dim. Below, pick a query and a key "
              "(or click a cell, up to 64 tokens) to see one dot product term by term.",
        "ko": "**어텐션 점수: Q-K 유사도 → 도트 프로덕트.** (i, j) 칸은 q_i · k_j, 즉 head_dim = {head_dim}개 "
              "차원에 걸친 q_i[d] × k_j[d]의 합입니다. 토큰 i가 찾는 것과 토큰 j의 내용이 맞을수록 큽니다. "
              "헤드 {head}, √head_dim으로 나누기 전입니다. 아래에서 쿼리와 키를 고르면(토큰 64개까지는 칸을 눌러도 "
              "됩니다) "
              "내적을 항 하나하나 볼 수 있습니다.",
    },
    "ex_step_scale": {"en": "Divide by √head_dim", "ko": "√head_dim으로 나누기"},
    "ex_step_scale_text": {
        "en": "Divide by √head_dim = √{head_dim} = {sqrt}. A dot product of head_dim terms grows with head_dim; "
              "divided, the scores keep the same spread for any head size, so that after softmax the weights stay "
              "in a sensible range: neither extremely small nor extremely large. These are the `scores` of the "
              "Playground. The Scaling & softmax lab shows what happens without this step.",
        "ko": "√head_dim = √{head_dim} = {sqrt}(으)로 나눕니다. head_dim개 항의 내적은 head_dim이 클수록 커지는데, "
              "나누면 헤드 크기와 상관없이 점수의 퍼짐이 일정해져 softmax 후의 가중치가 일정 범위 안에 머뭅니다. "
              "극적으로 작거나 극적으로 높지 않게요. 이것이 놀이터의 `scores`입니다. 이 단계를 빼면 어떻게 되는지는 "
              "스케일링·softmax 실험실에서 볼 수 있습니다.",
    },
    "ex_step_mask": {"en": "Mask: blocked pairs get −∞", "ko": "마스크: 차단된 칸은 −∞"},
    "ex_step_mask_text": {
        "en": "Where the mask is 0 the score becomes −∞ (mask 1 = may attend). Since e^−∞ = 0, softmax gives "
              "those keys a weight of exactly 0. Grey cells are blocked: with the causal mask of self-attention, "
              "token i sees only tokens 0 … i.",
        "ko": "마스크가 0인 곳의 점수는 −∞가 됩니다(마스크 1 = 어텐션 가능). e^−∞ = 0이므로 softmax 후 그 키의 "
              "가중치는 정확히 0입니다. 회색 칸이 차단된 칸으로, 자기어텐션의 인과 마스크에서는 토큰 i가 토큰 0 … i만 "
              "봅니다.",
    },
    "ex_no_mask": {
        "en": "No mask is on, so this step changes nothing. Turn on the causal mask in the sidebar to see blocked "
              "cells.",
        "ko": "마스크가 꺼져 있어 이 단계에서는 아무것도 바뀌지 않습니다. 사이드바에서 인과 마스크를 켜면 차단된 칸을 "
              "볼 수 있습니다.",
    },
    "ex_no_mask_cross": {
        "en": "No key is blocked here, so this step changes nothing. In cross-attention the causal mask does not "
              "apply (query i and key i are tokens of two different texts). What can block keys here is the "
              "padding mask: give the keys/values text one line per sentence, of different lengths, and the "
              "shorter lines' {pad} keys turn grey. To see the causal mask, clear the keys/values text "
              "(self-attention) and turn it on in the sidebar.",
        "ko": "여기서는 차단된 키가 없어 이 단계에서 아무것도 바뀌지 않습니다. 교차 어텐션에서는 인과 마스크를 "
              "쓰지 않습니다(쿼리 i와 키 i가 서로 다른 텍스트의 토큰). 여기서 키를 막을 수 있는 것은 패딩 "
              "마스크입니다. 키/값 텍스트를 문장마다 한 줄씩, 길이가 다르게 쓰면 짧은 줄의 {pad} 키가 회색이 "
              "됩니다. 인과 마스크를 보려면 키/값 텍스트를 비워 자기어텐션으로 바꾸고 사이드바에서 켜세요.",
    },
    "ex_step_softmax": {"en": "Softmax: scores become weights", "ko": "softmax: 점수가 가중치로"},
    "ex_step_softmax_text": {
        "en": "**Attention weights: softmax.** Each row becomes a probability distribution, "
              "w_ij = e^(s_ij) / Σ_k e^(s_ik): every weight lies between 0 and 1 and **each row sums to 1**. Row i "
              "is how query token i shares its attention among the keys.",
        "ko": "**어텐션 가중치: softmax.** 각 행이 확률 분포가 됩니다. w_ij = e^(s_ij) / Σ_k e^(s_ik). "
              "모든 가중치는 0과 1 사이이고 **각 행의 합은 1**입니다. 행 i는 쿼리 토큰 i가 키들에 어텐션을 "
              "어떻게 나누는지입니다.",
    },
    "ex_step_weighted_sum": {"en": "weights @ V", "ko": "가중치 @ V"},
    "ex_step_weighted_sum_text": {
        "en": "`torch.matmul(attention_weights, value)`: row i is the weighted sum Σ_j w_ij v_j of the value "
              "vectors. V is what gets passed on, in the proportions the weights say. Shown: head {head}'s output, "
              "one head_dim = {head_dim} vector per token. (The course names what `compute_attention` returns "
              "`attention_weights` too; here it is `head_outputs`.)",
        "ko": "`torch.matmul(attention_weights, value)`: 행 i는 값 벡터들의 가중합 Σ_j w_ij v_j입니다. "
              "V가 가중치만큼 전달됩니다. 헤드 {head}의 출력으로, 토큰마다 head_dim = {head_dim}개의 숫자입니다. "
              "(강의 코드는 `compute_attention`의 결과도 `attention_weights`라고 부르지만, 여기서는 "
              "`head_outputs`라고 합니다.)",
    },
    "ex_step_combine_heads": {"en": "combine_heads: heads side by side again", "ko": "combine_heads: 헤드를 다시 "
                                                                                     "나란히"},
    "ex_step_combine_heads_text": {
        "en": "`combine_heads` undoes `split_heads`: the heads go back side by side, {num_heads} × {head_dim} = "
              "{d_model} columns per token (`permute`, then `view`). Each coloured frame is one head's answer.",
        "ko": "`combine_heads`는 `split_heads`를 되돌립니다. 헤드들이 다시 나란히 붙어 토큰마다 "
              "{num_heads} × {head_dim} = {d_model}개의 열이 됩니다(`permute` 후 `view`). 색 테두리 하나가 "
              "헤드 하나의 답입니다.",
    },
    "ex_step_output_linear": {"en": "output_linear: mix the heads", "ko": "output_linear: 헤드 섞기"},
    "ex_step_output_linear_text": {
        "en": "`output_linear`, an `nn.Linear(d_model, d_model)` with bias, projects the concatenated heads into "
              "one d_model = {d_model} vector per token: the layer's output, the same shape as its input x.",
        "ko": "편향이 있는 `nn.Linear(d_model, d_model)`인 `output_linear`가 이어 붙인 헤드 출력을 투영해 "
              "토큰마다 d_model = {d_model}개의 숫자로 된 벡터 하나를 만듭니다. 입력 x와 같은 모양의, 이 층의 "
              "출력입니다.",
    },
    "ex_bar_title": {"en": "The course's picture: one query's attention row", "ko": "강의의 그림: 쿼리 하나의 어텐션 "
                                                                                    "행"},
    "ex_bar_text": {
        "en": "In the course, the query *Orange* in “Orange is my favorite fruit” shares its attention as "
              ".21 .03 .05 .31 .40 over the five words. Here is the same picture for your sentence, from the "
              "module's weights of head {head}. The weights are untrained, so the pattern itself means nothing yet.",
        "ko": "강의에서 “Orange is my favorite fruit”의 쿼리 *Orange*는 다섯 단어에 어텐션을 "
              ".21 .03 .05 .31 .40으로 나눕니다. 같은 그림을 내 문장으로, 헤드 {head}의 실제 가중치로 그렸습니다. "
              "가중치가 학습 전이라 패턴 자체에는 아직 의미가 없습니다.",
    },
    "ex_bar_query": {"en": "Query token", "ko": "쿼리 토큰"},
    "ex_bar_chart_title": {"en": "query: {q} · head {head}", "ko": "쿼리: {q} · 헤드 {head}"},
    "ex_cell_title": {"en": "Click into a cell", "ko": "칸 하나 들여다보기"},
    "ex_cell_hint": {
        "en": "Click any cell of head {head} (or pick the query and key below) to see the numbers behind it.",
        "ko": "헤드 {head}의 아무 칸이나 클릭하거나 아래에서 쿼리와 키를 고르면 그 뒤의 숫자를 볼 수 있습니다.",
    },
    "ex_cell_hint_large": {
        "en": "Pick the query and key below to see the numbers behind a cell of head {head} (with more than {n} "
              "tokens the cells are too small to click).",
        "ko": "아래에서 쿼리와 키를 고르면 헤드 {head}의 칸 뒤의 숫자를 볼 수 있습니다(토큰이 {n}개를 넘으면 칸이 너무 "
              "작아 클릭할 수 없습니다).",
    },
    "ex_matrix": {"en": "Matrix", "ko": "행렬"},
    "ex_matrix_help": {
        "en": "weights: after softmax, each row sums to 1. scores: QKᵀ/√head_dim, before the mask.",
        "ko": "가중치(weights): softmax 후의 값으로 각 행의 합이 1입니다. 점수(scores): 마스크 전의 "
              "QKᵀ/√head_dim입니다.",
    },
    "ex_cell_query": {"en": "Query token (row)", "ko": "쿼리 토큰 (행)"},
    "ex_cell_key": {"en": "Key token (column)", "ko": "키 토큰 (열)"},
    # --- the cell breakdown (Playground and Step by step) ------------------------------------------------------
    "cb_open": {"en": "How this cell's score and weight are made: the dot product and the softmax, step by step",
                "ko": "이 칸의 점수와 가중치가 만들어지는 과정: 내적과 softmax를 한 단계씩"},
    "cb_title": {
        "en": "**How this cell is made** · head {head}, query **{q}** (token {i}) → key **{k}** (token {j})",
        "ko": "**이 칸이 만들어지는 과정** · 헤드 {head}, 쿼리 **{q}** (토큰 {i}) → 키 **{k}** (토큰 {j})",
    },
    "cb_vectors": {
        "en": "**1.** q_i: what *{q}* looks for; k_j: what *{k}* offers ({head_dim} numbers each), and their "
              "elementwise products.",
        "ko": "**1.** q_i: *{q}* 토큰이 찾는 것, k_j: *{k}* 토큰의 내용 표현(각 {head_dim}개의 숫자)과 둘의 원소별 곱.",
    },
    "cb_products": {
        "en": "**2.** Add the products up: the dot product, term by term.",
        "ko": "**2.** 곱들을 더하면 내적입니다. 항 하나하나:",
    },
    "cb_products_cut": {
        "en": "head_dim is {head_dim}: the {top_k} largest terms are shown, the other {rest} are summed into one bar.",
        "ko": "head_dim이 {head_dim}이라서 가장 큰 항 {top_k}개만 보이고 나머지 {rest}개는 막대 하나로 합쳤습니다.",
    },
    "cb_dim": {"en": "dim", "ko": "차원"},
    "cb_rest": {"en": "rest ({n})", "ko": "나머지 ({n})"},
    "cb_sum": {"en": "sum", "ko": "합"},
    "cb_raw": {
        "en": "Dot product: q_{i} · k_{j} = Σ_d q_{i}[d] × k_{j}[d] = **{raw:.4f}**",
        "ko": "내적: q_{i} · k_{j} = Σ_d q_{i}[d] × k_{j}[d] = **{raw:.4f}**",
    },
    "cb_scaled": {
        "en": "**3. Scale:** {raw:.4f} / √{head_dim} = {raw:.4f} / {scale:.4f} = **{score:.4f}**: the score in "
              "the heatmap.",
        "ko": "**3. 스케일링:** {raw:.4f} / √{head_dim} = {raw:.4f} / {scale:.4f} = **{score:.4f}**: 히트맵의 "
              "점수입니다.",
    },
    "cb_masked": {
        "en": "**4. Mask:** the mask blocks *{k}* for *{q}*: the score becomes −∞ before softmax, so the weight is "
              "exactly **0** and the other keys share the whole 1.",
        "ko": "**4. 마스크:** 마스크가 쿼리 *{q}*에서 키 *{k}*(으)로 가는 어텐션을 막습니다. softmax 전에 점수가 −∞가 "
              "되어 가중치는 "
              "정확히 **0**이고, 나머지 키들이 1 전체를 나눠 가집니다.",
    },
    "cb_fully_masked": {
        "en": "**4. Mask:** every key is blocked for *{q}*: its weights are all 0 and its output is 0.",
        "ko": "**4. 마스크:** 쿼리 *{q}*에게는 모든 키가 막혀 있습니다. 가중치가 모두 0이고 출력도 0입니다.",
    },
    "cb_softmax": {
        "en": "**4. Softmax over row {row}:** weight = exp({score:.4f}) / Σ exp(that row's scores) = "
              "{num:.4g} / {den:.4g} = **{weight:.4f}**. The row sums to 1.",
        "ko": "**4. 행 {row}의 softmax:** 가중치 = exp({score:.4f}) / Σ exp(행 {row}의 점수) = "
              "{num:.4g} / {den:.4g} = **{weight:.4f}**. 행의 합은 1입니다.",
    },
    "cb_shifted": {
        "en": "(Every score was lowered by {shift:.1f} first, to keep exp() finite; softmax does not change.)",
        "ko": "(exp()가 넘치지 않도록 모든 점수에서 먼저 {shift:.1f}을(를) 뺐습니다. softmax 값은 그대로입니다.)",
    },
    "cb_row_title": {"en": "row {row} ({q}) after softmax", "ko": "행 {row} ({q}), softmax 후"},
    "cb_masked_word": {"en": "masked", "ko": "마스크"},
    "cb_weight": {"en": "weight", "ko": "가중치"},
    # --- Scaling & softmax lab ---------------------------------------------------------------------------------
    "lab_title": {"en": "Scaling & softmax lab", "ko": "스케일링·softmax 실험실"},
    "lab_intro": {
        "en": "Why does the course divide the scores by √head_dim? Compare your sentence's weights with and without "
              "it, watch softmax saturate as head_dim grows, and turn the temperature up and down.",
        "ko": "강의 코드는 왜 점수를 √head_dim으로 나눌까요? 내 문장의 가중치를 나눌 때와 안 나눌 때 비교하고, "
              "head_dim이 커질 때 softmax가 포화되는 모습과 온도를 바꿀 때의 변화를 봅니다.",
    },
    "lab_scaling_title": {"en": "1. With and without 1/√head_dim", "ko": "1. 1/√head_dim이 있을 때와 없을 때"},
    "lab_scaling_text": {
        "en": "Head {head}: the same q, k and mask; left divided by √{head_dim} = {sqrt} (what the module does), "
              "right not divided.",
        "ko": "헤드 {head}: 같은 q, k, 마스크. 왼쪽은 √{head_dim} = {sqrt}(으)로 나눈 것(모듈이 하는 계산), "
              "오른쪽은 나누지 않은 것입니다.",
    },
    "lab_scaled": {"en": "with / √head_dim (the module)", "ko": "√head_dim으로 나눔 (모듈)"},
    "lab_unscaled": {"en": "without scaling", "ko": "나누지 않음"},
    "lab_small_head_dim": {
        "en": "With head_dim {head_dim} the difference is small. Try d_model 512 with 1 head (head_dim 512) in the "
              "sidebar.",
        "ko": "head_dim이 {head_dim}이면 차이가 작습니다. 사이드바에서 d_model 512, 헤드 1개(head_dim 512)로 "
              "바꿔 보세요.",
    },
    "lab_stats_text": {
        "en": "Per query row: **entropy** in bits (how spread the attention is: log₂(number of keys) bits when "
              "even, 0 when all on one key), the **largest weight**, and the size of the **softmax gradient** "
              "‖∂weights/∂scores‖ (how much the scores can still learn).",
        "ko": "쿼리 행마다: **엔트로피**(비트 단위, 어텐션이 얼마나 퍼졌는지: 고르면 log₂(키 개수)비트, 한 키에 "
              "몰리면 0), **가장 큰 가중치**, **softmax 기울기**의 크기 ‖∂가중치/∂점수‖(점수가 아직 얼마나 배울 수 "
              "있는지).",
    },
    "lab_entropy": {"en": "entropy (bits)", "ko": "엔트로피 (비트)"},
    "lab_maxw": {"en": "max weight", "ko": "최대 가중치"},
    "lab_grad": {"en": "softmax gradient", "ko": "softmax 기울기"},
    "lab_uniform": {"en": "uniform (log₂ n bits)", "ko": "균등 (log₂ n 비트)"},
    "lab_mean_entropy": {"en": "Mean entropy (bits)", "ko": "평균 엔트로피 (비트)"},
    "lab_mean_maxw": {"en": "Mean max weight", "ko": "평균 최대 가중치"},
    "lab_mean_grad": {"en": "Mean softmax gradient", "ko": "평균 softmax 기울기"},
    "lab_metric_help": {
        "en": "The difference shown is relative to the first one.",
        "ko": "아래의 차이는 첫 번째 값에 대한 것입니다.",
    },
    "lab_sweep_title": {"en": "2. head_dim from 4 to 512", "ko": "2. head_dim 4부터 512까지"},
    "lab_sweep_text": {
        "en": "Random q and k with unit-variance entries ({n_samples} samples of {n_tokens} tokens, seed {seed}). "
              "Their dot product has variance head_dim, so unscaled scores spread like √head_dim: the largest one "
              "takes almost all the weight (max weight → 1, entropy → 0) and the softmax gradient vanishes. "
              "Divided by √head_dim they keep variance 1, and the curves stay flat.",
        "ko": "원소의 분산이 1인 무작위 q와 k(토큰 {n_tokens}개짜리 표본 {n_samples}개, 시드 {seed}). "
              "두 벡터의 내적은 분산이 head_dim이라서, 나누지 않은 점수는 √head_dim만큼 퍼집니다. 가장 큰 점수가 "
              "가중치를 거의 다 가져가고(최대 가중치 → 1, 엔트로피 → 0) softmax 기울기는 사라집니다. "
              "√head_dim으로 나누면 분산이 1로 유지되어 곡선이 평평합니다.",
    },
    "lab_mean_entropy_axis": {"en": "mean entropy (bits)", "ko": "평균 엔트로피 (비트)"},
    "lab_mean_maxw_axis": {"en": "mean max weight", "ko": "평균 최대 가중치"},
    "lab_mean_grad_axis": {"en": "mean softmax gradient", "ko": "평균 softmax 기울기"},
    "lab_with": {"en": "with 1/√head_dim", "ko": "1/√head_dim 있음"},
    "lab_without": {"en": "without", "ko": "없음"},
    "lab_current": {"en": "your head_dim", "ko": "지금의 head_dim"},
    "lab_temp_title": {"en": "3. Temperature", "ko": "3. 온도"},
    "lab_temperature": {"en": "Temperature τ", "ko": "온도 τ"},
    "lab_temp_help": {
        "en": "The scores are divided by τ before softmax: τ < 1 sharpens the weights, τ > 1 flattens them. "
              "τ = 1 is the module.",
        "ko": "softmax 전에 점수를 τ로 나눕니다. τ < 1이면 가중치가 뾰족해지고, τ > 1이면 평평해집니다. "
              "τ = 1이 모듈입니다.",
    },
    "lab_temp_text": {
        "en": "weights = softmax(scores / τ) for head {head}, τ = {tau}. Dropping the 1/√head_dim scaling is the "
              "same as τ = 1/√head_dim = {inv_sqrt}: {coldness}",
        "ko": "헤드 {head}의 가중치 = softmax(점수 / τ), τ = {tau}. 1/√head_dim을 빼는 것은 "
              "τ = 1/√head_dim = {inv_sqrt}(으)로 두는 것과 같습니다. {coldness}",
    },
    # how cold τ = 1/√head_dim is: the keys are the values of explain.coldness
    "lab_cold_none": {
        "en": "with head_dim 1 that is τ = 1, so nothing changes.",
        "ko": "head_dim이 1이면 τ = 1이라 아무것도 바뀌지 않습니다.",
    },
    "lab_cold_slightly": {
        "en": "a somewhat colder softmax; the weights get a little sharper.",
        "ko": "조금 더 차가운 softmax로, 가중치가 약간 뾰족해집니다.",
    },
    "lab_cold_cold": {
        "en": "a cold softmax; the weights get clearly sharper.",
        "ko": "차가운 softmax로, 가중치가 눈에 띄게 뾰족해집니다.",
    },
    "lab_cold_very_cold": {
        "en": "a very cold softmax; the weights get much sharper.",
        "ko": "아주 차가운 softmax로, 가중치가 훨씬 뾰족해집니다.",
    },
    "lab_tau_module": {"en": "τ = 1 (the module)", "ko": "τ = 1 (모듈)"},
    "lab_tau": {"en": "τ = {tau}", "ko": "τ = {tau}"},
    "lab_why_title": {"en": "Why it matters", "ko": "왜 중요할까"},
    "lab_why_text": {
        "en": "The course's second note says it plainly: the weights must stay in a sensible range, *neither "
              "extremely small nor extremely large* (가중치는 일정 범위 내에서 해야한다. 극적으로 작거나 극적으로 "
              "높아서는 안된다). Softmax behaves that way only if the scores do.\n\n"
              "Softmax's derivative is ∂w_i/∂s_j = w_i (δ_ij − w_j). When one weight is ≈ 1, all the others are "
              "≈ 0 and every entry of this derivative is ≈ 0: a saturated row passes almost no gradient back to the "
              "scores, so the query and key projections stop learning, and the one key the row locks onto wins by "
              "an accident of initialisation. Dividing by √head_dim keeps the scores' spread ≈ 1 at any head size; "
              "that is why the course code has `/ (self.head_dim ** 0.5)`.",
        "ko": "강의의 두 번째 자료가 분명히 말합니다. *가중치는 일정 범위 내에서 해야한다. 극적으로 작거나 극적으로 "
              "높아서는 안된다.* softmax는 점수가 그럴 때만 그렇게 동작합니다.\n\n"
              "softmax의 미분은 ∂w_i/∂s_j = w_i (δ_ij − w_j)입니다. 가중치 하나가 ≈ 1이면 나머지는 모두 ≈ 0이고 "
              "이 미분의 모든 항이 ≈ 0이 됩니다. 포화된 행은 점수에 기울기를 거의 돌려주지 못해 쿼리와 키 투영이 "
              "더 배우지 못하고, 그 행이 붙잡은 키는 초기값의 우연으로 정해집니다. √head_dim으로 나누면 헤드 크기와 "
              "상관없이 점수의 퍼짐이 ≈ 1로 유지됩니다. 강의 코드에 `/ (self.head_dim ** 0.5)`가 있는 이유입니다.",
    },
}
