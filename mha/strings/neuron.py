"""The neuron view (prefix ``nv_``): one query's row of one head, every key's q · k (mha.app.sections.neuron)."""
STRINGS = {
    "nv_open": {"en": "Every key for this query: q × k, the scores and the weights (neuron view)",
                "ko": "이 쿼리와 모든 키: q × k, 점수, 가중치 (뉴런 뷰)"},
    "nv_title": {
        "en": "**Every key's score for one query** · head {head}, query **{q}** (token {i}), {n_keys:plural:key|keys}",
        "ko": "**쿼리 하나에 대한 모든 키의 점수** · 헤드 {head}, 쿼리 **{q}** (토큰 {i}), 키 {n_keys}개",
    },
    "nv_help": {
        "en": "One row per key. k is the key's vector; q × k multiplies it with the query's vector q (on top) "
              "number by number; their sum divided by √head_dim = {scale:.3g} is the score, and the softmax over "
              "the row turns the scores into the weights. The key picked above is orange{masked}. Hover a bar "
              "for the dot product and its largest terms.",
        "ko": "키마다 한 행입니다. k는 키의 벡터이고, q × k는 그 벡터를 위쪽의 쿼리 벡터 q와 숫자끼리 곱한 "
              "것입니다. 그 합을 √head_dim = {scale:.3g}(으)로 나눈 값이 점수이고, 행 전체에 softmax를 하면 "
              "점수가 가중치가 됩니다. 위에서 고른 키는 주황색입니다{masked}. 막대에 마우스를 올리면 내적과 "
              "가장 큰 항들이 보입니다.",
    },
    "nv_masked": {"en": "; grey keys are blocked by the mask (weight 0)",
                  "ko": ". 회색 키는 마스크로 차단되어 가중치가 0입니다"},
}
