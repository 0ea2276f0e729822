"""Strings of the Playground page."""
STRINGS = {
    "pg_title": {"en": "Playground", "ko": "놀이터"},
    "pg_intro": {
        "en": "{n:plural:token|tokens} · d_model {d_model} · {num_heads:plural:head|heads} of head_dim "
              "{head_dim}{causal}. "
              "Rows are queries (the token that is looking), columns are keys (the tokens it looks at).",
        "ko": "토큰 {n}개 · d_model {d_model} · head_dim {head_dim}인 헤드 {num_heads}개{causal}. "
              "행은 쿼리(바라보는 토큰), 열은 키(바라봐지는 토큰)입니다.",
    },
    "pg_causal_suffix": {"en": " · causal mask", "ko": " · 인과 마스크"},
    "pg_matrix": {"en": "Matrix", "ko": "행렬"},
    "pg_matrix_help": {
        "en": "scores: QKᵀ/√head_dim, before the mask. weights: softmax of each row of the masked scores. "
              "each head's output: weights @ V, head_dim numbers per token.",
        "ko": "scores(점수): 마스크 전의 QKᵀ/√head_dim. weights(가중치): 마스크된 점수의 각 행에 softmax를 적용한 값. "
              "헤드별 출력: 가중치 @ V, 토큰마다 head_dim개의 숫자.",
    },
    "pg_all_heads": {"en": "All heads", "ko": "모든 헤드"},
    "pg_all_heads_help_weights": {
        "en": "Each row sums to 1: how one query token shares its attention among the keys. One colour scale "
              "for all heads (0 = white, 1 = dark blue).{masked}",
        "ko": "각 행의 합은 1입니다. 쿼리 토큰 하나가 키들에 어텐션을 어떻게 나누는지 보여 줍니다. "
              "모든 헤드가 같은 색 척도를 씁니다(0 = 흰색, 1 = 진한 파랑).{masked}",
    },
    "pg_all_heads_help_weights_fit": {
        "en": "Each row sums to 1: how one query token shares its attention among the keys. Fitted to the weights: "
              "the one colour scale for all heads ends at the largest weight (0 = white, {top} = dark blue), not "
              "at 1.{masked}",
        "ko": "각 행의 합은 1입니다. 쿼리 토큰 하나가 키들에 어텐션을 어떻게 나누는지 보여 줍니다. 가중치에 맞춘 "
              "색 척도: 모든 헤드가 같이 쓰는 척도를 1이 아닌 가장 큰 가중치에서 끝냅니다(0 = 흰색, {top} = 진한 "
              "파랑).{masked}",
    },
    "pg_all_heads_help_weights_fitted": {
        "en": "Each row sums to 1: how one query token shares its attention among the keys. With {n_keys} keys "
              "every weight here is small, so the one colour scale for all heads ends at the largest weight "
              "(0 = white, {top} = dark blue), not at 1.{masked}",
        "ko": "각 행의 합은 1입니다. 쿼리 토큰 하나가 키들에 어텐션을 어떻게 나누는지 보여 줍니다. 키가 {n_keys}개라 "
              "가중치가 모두 작으므로, 모든 헤드가 같이 쓰는 색 척도를 1이 아닌 가장 큰 가중치에서 끝냅니다"
              "(0 = 흰색, {top} = 진한 파랑).{masked}",
    },
    "pg_all_heads_help_scores": {
        "en": "Scaled dot products q·k/√head_dim before any mask: red is positive, blue negative, white 0. "
              "Softmax turns each row of these into weights.",
        "ko": "마스크 전의 스케일된 내적 q·k/√head_dim입니다. 빨강은 양수, 파랑은 음수, 흰색은 0입니다. "
              "softmax가 각 행을 가중치로 바꿉니다.",
    },
    "pg_masked_note": {
        "en": " Grey cells are masked: blocked, weight exactly 0.",
        "ko": " 회색 칸은 마스크된(차단된) 칸으로 가중치가 정확히 0입니다.",
    },
    "pg_one_head": {"en": "One head, enlarged", "ko": "헤드 하나 크게 보기"},
    "pg_look": {"en": "Look closer", "ko": "자세히 보기"},
    "pg_look_help": {
        "en": "Head view: every head at once, as lines from each query to the keys. One head, enlarged: one head's "
              "weights, with the numbers behind any cell. Outputs: what the heads pass on (weights @ V) and the "
              "module's output. A click on a head in the grid above enlarges it.",
        "ko": "헤드 뷰: 모든 헤드를 각 쿼리에서 키로 가는 선으로 한 번에 봅니다. 헤드 하나 크게 보기: 헤드 하나의 "
              "가중치와, 칸마다 그 뒤의 숫자를 봅니다. 출력: 헤드들이 넘겨주는 값(가중치 @ V)과 모듈의 출력입니다. "
              "위 격자에서 헤드를 클릭하면 그 헤드를 크게 보여 줍니다.",
    },
    "pg_look_outputs": {"en": "Outputs", "ko": "출력"},
    "pg_grid_click_hint": {"en": "Click a head above to enlarge it below; the enlarged one is framed in orange.",
                           "ko": "위에서 헤드를 클릭하면 아래에 크게 보여 줍니다. 크게 보는 헤드는 주황색 테두리로 "
                                 "표시됩니다."},
    "pg_click_hint": {
        "en": "Click a cell (or pick a query and key below) to see the numbers behind it. Tokens are numbered "
              "from 0, as in PyTorch.",
        "ko": "칸을 클릭하거나 아래에서 쿼리와 키를 고르면 그 뒤의 숫자를 볼 수 있습니다. 토큰 번호는 PyTorch처럼 "
              "0부터 셉니다.",
    },
    "pg_cell_query": {"en": "Query token (row)", "ko": "쿼리 토큰 (행)"},
    "pg_cell_key": {"en": "Key token (column)", "ko": "키 토큰 (열)"},
    "pg_cell_summary": {
        "en": "Head {head}: query **{q}** (token {i}) → key **{k}** (token {j}): "
              "score **{score:.4f}**, weight **{weight:.4f}**{masked}.",
        "ko": "헤드 {head}: 쿼리 **{q}** (토큰 {i}) → 키 **{k}** (토큰 {j}): 점수 **{score:.4f}**, "
              "가중치 **{weight:.4f}**{masked}.",
    },
    "pg_cell_masked": {"en": " (masked)", "ko": " (마스크됨)"},
    "pg_table": {"en": "Weights of head {head} as a table", "ko": "헤드 {head}의 가중치 표"},
    "pg_download_csv": {"en": "Download CSV", "ko": "CSV 내려받기"},
    "pg_head_outputs": {"en": "Each head's output (weights @ V)", "ko": "각 헤드의 출력 (가중치 @ V)"},
    "pg_matrix_outputs": {"en": "each head's output", "ko": "헤드별 출력"},
    "pg_head_outputs_above": {"en": "Shown above, in place of the heads' weights.",
                              "ko": "위에서 헤드 가중치 대신 보여 줍니다."},
    "pg_random_note": {
        "en": "Random weights: no head has learned anything, so every row spreads almost evenly (largest weight "
              "{top} on average; perfectly even: {even}).",
        "ko": "무작위 가중치: 아무 헤드도 학습하지 않아 모든 행이 거의 고르게 퍼집니다(가장 큰 가중치의 평균 "
              "{top}, 완전히 고르면 {even}).",
    },
    "pg_to_trained": {"en": "Switch to trained heads", "ko": "학습된 헤드로 바꾸기"},
    "pg_head_outputs_help": {
        "en": "Row i is query i's weighted mix of the value vectors: {num_heads} heads × {head_dim} numbers each.",
        "ko": "행 i는 쿼리 i가 값(V) 벡터들을 가중합한 결과입니다. 헤드 {num_heads}개 × 각 {head_dim}개의 숫자.",
    },
    "pg_output": {"en": "Final output (combine_heads → output_linear)", "ko": "최종 출력 (combine_heads → "
                                                                              "output_linear)"},
    "pg_output_help": {
        "en": "The heads placed side by side again ({num_heads} × {head_dim} = {d_model}) and mixed by "
              "output_linear: one d_model vector per token.",
        "ko": "헤드들을 다시 나란히 붙이고({num_heads} × {head_dim} = {d_model}) output_linear로 섞은 결과: "
              "토큰마다 d_model 크기의 벡터 하나.",
    },
    "pg_fully_masked": {
        "en": "{n} query rows have every key blocked: their weights are all 0 and their head output is 0.",
        "ko": "모든 키가 차단된 쿼리 행이 {n}개 있습니다. 그 가중치는 모두 0이고 헤드 출력도 0입니다.",
    },
}
