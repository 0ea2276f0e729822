"""Strings of the Heads page (prefix ``hd_``), its nav title and its line on the home page."""
STRINGS = {
    "nav_heads": {"en": "Heads", "ko": "헤드 탐색"},
    "home_heads": {
        "en": "Measure every head, compare two, switch some off, see queries and keys together; word order and seeds.",
        "ko": "헤드마다 측정하고, 둘을 비교하고, 일부를 끄고, 쿼리와 키를 함께 봅니다. 단어 순서와 시드도 다룹니다.",
    },
    "hd_title": {"en": "Heads explorer", "ko": "헤드 탐색기"},
    "hd_intro": {
        "en": "{n} tokens · {num_heads} heads of head_dim {head_dim}. Multiple heads exist so that each can look at "
              "the sentence differently: here you measure how.",
        "ko": "토큰 {n}개 · head_dim {head_dim}인 헤드 {num_heads}개. 헤드가 여러 개인 것은 각 헤드가 문장을 다르게 "
              "볼 수 있게 하기 위해서입니다. 여기서 그 차이를 재어 봅니다.",
    },
    "hd_section": {"en": "Section", "ko": "볼 내용"},
    "hd_sec_measure": {"en": "📊 Measure", "ko": "📊 측정"},
    "hd_sec_compare": {"en": "🔍 Compare", "ko": "🔍 비교"},
    "hd_sec_ablate": {"en": "✂️ Switch off", "ko": "✂️ 헤드 끄기"},
    "hd_sec_qk": {"en": "🎯 Queries & keys", "ko": "🎯 쿼리와 키"},
    "hd_sec_order": {"en": "🔀 Word order", "ko": "🔀 단어 순서"},
    "hd_sec_seeds": {"en": "🎲 Seeds", "ko": "🎲 시드"},
    "hd_about_measure": {
        "en": "Numbers that summarise each head's weight map. Click a column header to sort.",
        "ko": "각 헤드의 가중치 지도를 요약하는 숫자들입니다. 열 제목을 누르면 정렬됩니다.",
    },
    "hd_about_compare": {
        "en": "How alike are two heads' weight maps? Click a cell of the matrix (or pick two heads) to see the pair.",
        "ko": "두 헤드의 가중치 지도는 얼마나 비슷할까요? 행렬의 칸을 누르거나 헤드 두 개를 고르면 나란히 보입니다.",
    },
    "hd_about_ablate": {
        "en": "Switch heads off (their output set to 0 before output_linear) and see how much each token's final "
              "output moves. The shared model is not changed: the heads are switched off only for this computation.",
        "ko": "헤드를 끄면(output_linear 전에 그 출력을 0으로) 각 토큰의 최종 출력이 얼마나 바뀌는지 봅니다. "
              "공유 모델은 바뀌지 않고, 이 계산에서만 헤드가 꺼집니다.",
    },
    "hd_about_qk": {
        "en": "One head's query and key vectors in one picture: a single 2D projection (PCA) shared by both.",
        "ko": "한 헤드의 쿼리 벡터와 키 벡터를 한 그림에 놓습니다. 둘이 함께 쓰는 2차원 투영(PCA) 하나입니다.",
    },
    "hd_about_order": {
        "en": "What attention knows about word order, with and without positional encoding (sidebar).",
        "ko": "위치 인코딩(사이드바)이 있을 때와 없을 때 어텐션이 단어 순서에 대해 아는 것.",
    },
    "hd_about_seeds": {
        "en": "The same head under four random initialisations: the weights are random, so the patterns are too.",
        "ko": "같은 헤드를 무작위 초기화 네 가지로 봅니다. 가중치가 무작위이니 패턴도 무작위입니다.",
    },
    "hd_about_seeds_trained": {
        "en": "The same head trained from four random starts (the current seed and the next three): does training "
              "give it the same job every time?",
        "ko": "같은 헤드를 무작위 시작점 네 개(현재 시드와 다음 세 시드)에서 학습시켜 봅니다. 학습은 매번 같은 일을 "
              "맡길까요?",
    },
    "hd_names_long": {
        "en": "Your sentence has {n} tokens, but these heads were trained on sequences of {train_len}: they have "
              "never seen a later position, and past the first {train_len} tokens they look elsewhere. That lowers "
              "the scores over the whole sentence; the last column scores only the first {train_len} queries.",
        "ko": "내 문장의 토큰은 {n}개인데, 이 헤드들은 토큰 {train_len}개짜리 시퀀스로 학습되었습니다. 그보다 뒤의 "
              "위치는 "
              "본 적이 없어서, 처음 {train_len}개 토큰 뒤로는 엉뚱한 곳을 봅니다. 그래서 문장 전체의 점수가 "
              "낮아집니다. "
              "마지막 열은 처음 {train_len}개 쿼리만으로 매긴 점수입니다.",
    },
    "hd_col_score_first": {"en": "score, first {train_len} tokens", "ko": "점수(처음 {train_len}개 토큰)"},
    "hd_head": {"en": "head", "ko": "헤드"},  # inside charts (axis titles, hover)
    "hd_bits": {"en": "bits", "ko": "비트"},
    "hd_download_csv": {"en": "Download CSV", "ko": "CSV 내려받기"},
    # measure
    "hd_col_head": {"en": "head", "ko": "헤드"},
    "hd_col_entropy": {"en": "entropy (bits)", "ko": "엔트로피 (비트)"},
    "hd_col_distance": {"en": "mean distance", "ko": "평균 거리"},
    "hd_col_diagonal": {"en": "self share", "ko": "자기 자신 비율"},
    "hd_col_previous": {"en": "previous-token share", "ko": "이전 토큰 비율"},
    "hd_col_max_weight": {"en": "max weight", "ko": "최대 가중치"},
    "hd_col_sink": {"en": "sink key", "ko": "싱크 키"},
    "hd_col_sink_share": {"en": "sink share", "ko": "싱크 비율"},
    "hd_help_entropy": {
        "en": "Mean over query rows of −Σ w·log₂ w. 0 = each query looks at one key only; log₂(number of keys) = "
              "attention spread evenly.",
        "ko": "쿼리 행마다 −Σ w·log₂ w를 구해 평균한 값. 0 = 각 쿼리가 키 하나만 봄, log₂(키 수) = 어텐션이 고르게 "
              "퍼짐.",
    },
    "hd_help_distance": {
        "en": "Mean over query rows of Σ w·|i − j|: how many positions away the head looks, on average.",
        "ko": "쿼리 행마다 Σ w·|i − j|를 구해 평균한 값: 헤드가 평균 몇 칸 떨어진 곳을 보는지.",
    },
    "hd_help_diagonal": {
        "en": "Mean weight a token gives to itself (the diagonal).",
        "ko": "토큰이 자기 자신에게 주는 가중치의 평균(대각선).",
    },
    "hd_help_previous": {
        "en": "Mean weight on the token just before. A trained “previous-token head” puts almost 1 here.",
        "ko": "바로 앞 토큰에 주는 가중치의 평균. 학습된 “이전 토큰 헤드”는 여기에 거의 1을 둡니다.",
    },
    "hd_help_max_weight": {"en": "The largest single weight in the map.", "ko": "가중치 지도에서 가장 큰 값 하나."},
    "hd_help_sink_share": {
        "en": "Mean weight the sink key receives from all queries: the key that draws the most attention overall.",
        "ko": "싱크 키가 모든 쿼리에게서 받는 가중치의 평균. 전체적으로 어텐션을 가장 많이 받는 키입니다.",
    },
    "hd_not_square": {
        "en": "Queries ({tq}) and keys ({tk}) come from different texts, so distance, self share and previous-token "
              "share are left out: positions in two texts cannot be compared.",
        "ko": "쿼리({tq}개)와 키({tk}개)가 서로 다른 글에서 와서 거리, 자기 자신 비율, 이전 토큰 비율은 뺐습니다. "
              "두 글의 위치는 비교할 수 없기 때문입니다.",
    },
    "hd_causal_sink": {
        "en": "With the causal mask the first token is the only key every query may see, so it often becomes the "
              "sink; and the first query sees nothing else, so its single weight makes the max weight 1.",
        "ko": "인과 마스크에서는 첫 토큰이 모든 쿼리가 볼 수 있는 유일한 키라서 자주 싱크가 됩니다. 또 첫 쿼리는 그 키 "
              "하나만 보므로 그 가중치가 1이 되어 최대 가중치도 1입니다.",
    },
    "hd_entropy_rows": {"en": "Entropy of every query row", "ko": "쿼리 행마다의 엔트로피"},
    "hd_entropy_rows_help": {
        "en": "Light = focused on few keys, dark = spread out. The ceiling is log₂(number of keys) = {bits:.2f} bits "
              "(less for rows the mask limits).",
        "ko": "밝을수록 적은 키에 집중, 진할수록 넓게 퍼짐. 최댓값은 log₂(키 수) = {bits:.2f}비트입니다"
              "(마스크로 제한된 행은 더 작음).",
    },
    # compare
    "hd_one_head": {
        "en": "There is only one head. Choose num_heads > 1 in the sidebar to compare heads.",
        "ko": "헤드가 하나뿐입니다. 헤드를 비교하려면 사이드바에서 num_heads를 2 이상으로 고르세요.",
    },
    "hd_metric": {"en": "Measure", "ko": "측정 방법"},
    "hd_metric_help": {
        "en": "JS: Jensen–Shannon divergence of the rows (0 = same pattern). cosine: cosine similarity of the whole "
              "maps (1 = same pattern).",
        "ko": "JS: 행끼리의 젠슨–섀넌 발산(0 = 같은 패턴). 코사인: 지도 전체의 코사인 유사도(1 = 같은 패턴).",
    },
    "hd_metric_js_short": {"en": "JS (bits)", "ko": "JS (비트)"},
    "hd_metric_cosine_short": {"en": "cosine", "ko": "코사인"},
    "hd_metric_js_help": {
        "en": "For each query row, how different the two heads' distributions over the keys are, averaged: "
              "0 = the same pattern, 1 bit = no key in common. Dark = alike.",
        "ko": "쿼리 행마다 두 헤드가 키에 나눠 준 분포가 얼마나 다른지를 평균한 값: 0 = 같은 패턴, "
              "1비트 = 겹치는 키가 없음. 진할수록 비슷합니다.",
    },
    "hd_metric_cosine_help": {
        "en": "The two weight maps as long vectors, compared by the cosine of their angle: 1 = the same pattern, "
              "0 = no cell in common. Dark = alike.",
        "ko": "두 가중치 지도를 긴 벡터로 펴서 사잇각의 코사인으로 비교: 1 = 같은 패턴, 0 = 겹치는 칸이 없음. "
              "진할수록 비슷합니다.",
    },
    "hd_pair_a": {"en": "Head a", "ko": "헤드 a"},
    "hd_pair_b": {"en": "Head b", "ko": "헤드 b"},
    "hd_pair_summary_js": {
        "en": "Head {a} vs head {b}: JS divergence **{value:.3f}** bits (0 = same pattern). The most alike pair is "
              "heads {best_a} and {best_b}.",
        "ko": "헤드 {a} 대 헤드 {b}: JS 발산 **{value:.3f}**비트 (0 = 같은 패턴). 가장 비슷한 쌍은 헤드 "
              "{best_a}과(와) {best_b}입니다.",
    },
    "hd_pair_summary_cosine": {
        "en": "Head {a} vs head {b}: cosine **{value:.3f}** (1 = same pattern). The most alike pair is heads "
              "{best_a} and {best_b}.",
        "ko": "헤드 {a} 대 헤드 {b}: 코사인 **{value:.3f}** (1 = 같은 패턴). 가장 비슷한 쌍은 헤드 {best_a}과(와) "
              "{best_b}입니다.",
    },
    "hd_click_hint": {
        "en": "Click a cell of the matrix to show that pair below: both heads on one colour scale, then a − b "
              "(red = head a gives more weight, blue = head b does).",
        "ko": "행렬의 칸을 누르면 그 쌍이 아래에 보입니다. 두 헤드를 같은 색 척도로, 그리고 a − b를 보여 줍니다"
              "(빨강 = 헤드 a가 더 큰 가중치, 파랑 = 헤드 b가 더 큼).",
    },
    "hd_difference": {"en": "difference: head {a} − head {b}", "ko": "차이: 헤드 {a} − 헤드 {b}"},
    # ablate
    "hd_off": {"en": "Heads to switch off", "ko": "끌 헤드"},
    "hd_off_help": {
        "en": "Each chosen head's output is multiplied by 0 before combine_heads → output_linear. The weights are "
              "not touched.",
        "ko": "고른 헤드의 출력에 combine_heads → output_linear 전에 0을 곱합니다. 가중치는 그대로입니다.",
    },
    "hd_off_placeholder": {"en": "Choose head numbers", "ko": "헤드 번호를 고르세요"},
    "hd_off_none": {
        "en": "No head is switched off yet: choose one or more above. Below, each head's contribution to every "
              "token's output.",
        "ko": "아직 꺼진 헤드가 없습니다. 위에서 하나 이상 고르세요. 아래는 각 헤드가 토큰마다의 출력에 보태는 "
              "몫입니다.",
    },
    "hd_off_all": {
        "en": "Every head is off: the concatenated head outputs are all 0, so each token's output is just the bias "
              "of output_linear (largest difference from the bias: {err:.1e}).",
        "ko": "모든 헤드가 꺼졌습니다. 이어 붙인 헤드 출력이 모두 0이므로 각 토큰의 출력은 output_linear의 편향(bias)"
              "뿐입니다(편향과의 최대 차이: {err:.1e}).",
    },
    "hd_off_summary": {
        "en": "With {n:plural:head|heads} off, a token's output moves by **{mean:.3f}** on average (**{pct:.0f}%** of "
              "its "
              "length); **{worst}** moves the most.",
        "ko": "헤드 {n}개를 끄면 토큰의 출력이 평균 **{mean:.3f}**만큼(길이의 **{pct:.0f}%**) 움직입니다. "
              "가장 많이 움직이는 토큰은 **{worst}**입니다.",
    },
    "hd_change_axis": {"en": "‖output change‖", "ko": "‖출력 변화‖"},
    "hd_results": {"en": "Each head's contribution to the output", "ko": "각 헤드가 출력에 보태는 몫"},
    "hd_results_help": {
        "en": "output_linear is linear, so the output splits into one part per head: head h's output times its own "
              "slice of columns of output_linear (TransformerLens calls it the head's “result”), plus the bias. "
              "Here: the length of each part. Bias + the sum of the parts = the output (largest gap {gap:.1e}); "
              "switching heads off removes exactly their parts.",
        "ko": "output_linear는 선형이라 출력이 헤드별 몫으로 나뉩니다: 헤드 h의 출력 × output_linear에서 그 헤드에 "
              "해당하는 열들(TransformerLens의 “result”), 그리고 편향. 여기서는 각 몫의 길이입니다. 편향 + 몫들의 합 = "
              "출력(최대 차이 {gap:.1e})이며, 헤드를 끄면 정확히 그 몫이 빠집니다.",
    },
    "hd_off_word": {"en": "off", "ko": "꺼짐"},
    # queries and keys
    "hd_query": {"en": "Query token", "ko": "쿼리 토큰"},
    "hd_topk": {"en": "Top keys to connect", "ko": "연결할 상위 키 수"},
    "hd_pc": {"en": "axis {n} ({pct:.0f}% of the spread)", "ko": "축 {n} (퍼짐의 {pct:.0f}%)"},
    "hd_queries": {"en": "queries (q)", "ko": "쿼리 (q)"},
    "hd_keys": {"en": "keys (k)", "ko": "키 (k)"},
    "hd_qk_compare": {
        "en": "Largest weights (true): {top}. Closest in the picture: {near}. {same} of {k} agree; the picture keeps "
              "{kept:.0f}% of the spread of the vectors.",
        "ko": "실제로 가중치가 가장 큰 키: {top}. 그림에서 가장 가까운 키: {near}. {k}개 중 {same}개가 같습니다. "
              "그림은 벡터 퍼짐의 {kept:.0f}%를 담고 있습니다.",
    },
    "hd_qk_unnamed": {
        "en": "{n} of the {total} points are not named, where their names would overlap others: point at one to see "
              "its token. The chosen query is always named, its top keys first.",
        "ko": "점 {total}개 가운데 {n}개는 이름이 다른 이름과 겹칠 자리라 쓰지 않았습니다. 점에 마우스를 올리면 토큰이 "
              "보입니다. 고른 쿼리는 늘 이름이 있고, 그 상위 키가 먼저 이름을 받습니다.",
    },
    "hd_qk_one_dim": {
        "en": "head_dim is 1: every vector is a single number, so the second axis is always 0.",
        "ko": "head_dim이 1이라 모든 벡터가 숫자 하나입니다. 그래서 두 번째 축은 항상 0입니다.",
    },
    "hd_qk_explain": {
        "en": "Closeness here relates to the weights only approximately. A weight comes from the dot product q·k "
              "(then softmax over the row): it grows with the vectors' lengths and the angle between them, not with "
              "how close their points are, and it uses all head_dim numbers, while the picture keeps only two "
              "directions measured from the mean of all points. Lines show the true top keys.",
        "ko": "이 그림의 가까움은 가중치와 대략적으로만 관련됩니다. 가중치는 내적 q·k(그다음 행마다 softmax)에서 "
              "나오며, 점 사이의 거리가 아니라 벡터의 길이와 사잇각에 따라 커집니다. 또 내적은 head_dim개의 숫자를 "
              "모두 쓰지만 그림은 모든 점의 평균에서 잰 두 방향만 남깁니다. 선은 실제 상위 키를 잇습니다.",
    },
    # order
    "hd_equivariance": {
        "en": "**Why order needs positions.** Attention compares every query with every key by a dot product and "
              "adds up values: nothing in that computation knows *where* a token stands. Without positional "
              "encoding, shuffling the input tokens gives every token exactly the output it had before, just at its "
              "new place: attention is *permutation-equivariant*, Attention(P·X) = P·Attention(X) for any reordering "
              "P. Positional encoding adds a different vector at each position, so the same word in two places "
              "becomes two different inputs and order starts to matter. (A causal mask depends on position too, so "
              "it also breaks the symmetry.)",
        "ko": "**순서를 알려면 위치가 필요한 이유.** 어텐션은 모든 쿼리와 모든 키를 내적으로 비교하고 값(V)을 "
              "더할 뿐, 그 계산 어디에도 토큰이 *어디에* 있는지는 없습니다. 위치 인코딩이 없으면 입력 토큰을 섞어도 각 "
              "토큰은 이전과 똑같은 출력을 받고 자리만 바뀝니다. 어텐션은 *순열 등변*(permutation-equivariant)이라서 "
              "어떤 재배열 P에 대해서도 Attention(P·X) = P·Attention(X)입니다. 위치 인코딩은 자리마다 다른 벡터를 "
              "더하므로 두 자리의 같은 단어가 서로 다른 입력이 되고, 순서가 의미를 갖게 됩니다. (인과 마스크도 "
              "위치에 따라 달라지므로 이 대칭을 깹니다.)",
    },
    "hd_repeat": {"en": "A repeated word", "ko": "반복되는 단어"},
    "hd_repeat_token": {"en": "token", "ko": "토큰"},
    "hd_repeat_positions": {"en": "positions", "ko": "위치"},
    "hd_repeat_gap_off": {"en": "row difference, positions off", "ko": "행 차이, 위치 끔"},
    "hd_repeat_gap_on": {"en": "row difference, positions on", "ko": "행 차이, 위치 켬"},
    "hd_repeat_now_off": {
        "en": "Positional encoding is off now: the repeated word is the same vector at each place, so its weight rows "
              "are identical in every head (difference 0) and so are its outputs.",
        "ko": "지금은 위치 인코딩이 꺼져 있습니다. 반복된 단어는 자리마다 같은 벡터라서 모든 헤드에서 가중치 행이 "
              "똑같고(차이 0) 출력도 같습니다.",
    },
    "hd_repeat_now_on": {
        "en": "Positional encoding is on now: each occurrence gets its own position vector, so the rows differ. "
              "Switch it off in the sidebar to see them become identical.",
        "ko": "지금은 위치 인코딩이 켜져 있습니다. 각 자리에 다른 위치 벡터가 더해져 행이 달라집니다. 사이드바에서 "
              "끄면 행이 똑같아집니다.",
    },
    "hd_repeat_causal": {
        "en": " With the causal mask on, the later occurrence also sees more keys, so its row differs even without "
              "positions.",
        "ko": " 인과 마스크가 켜져 있으면 뒤에 나온 쪽이 더 많은 키를 보므로 위치 인코딩 없이도 행이 달라집니다.",
    },
    "hd_repeat_none": {
        "en": "No word appears twice in this sentence. Add one to see its rows side by side.",
        "ko": "이 문장에는 두 번 나오는 단어가 없습니다. 하나를 넣으면 그 행들을 비교할 수 있습니다.",
    },
    "hd_repeat_try": {"en": "Try “{text}” without positions", "ko": "“{text}”을(를) 위치 없이 보기"},
    "hd_shuffle": {"en": "Shuffle the tokens", "ko": "토큰 섞기"},
    "hd_shuffle_seed": {"en": "Shuffle number (0 = original order)", "ko": "섞기 번호 (0 = 원래 순서)"},
    "hd_shuffle_seed_help": {
        "en": "Each number is one fixed reordering, so a link reproduces the same shuffle.",
        "ko": "번호마다 정해진 순서 하나가 나오므로 링크로 같은 섞기를 다시 볼 수 있습니다.",
    },
    "hd_shuffle_button": {"en": "🔀 Shuffle", "ko": "🔀 섞기"},
    "hd_shuffle_reset": {"en": "↩ Original order", "ko": "↩ 원래 순서"},
    "hd_shuffle_hint": {
        "en": "Press Shuffle to run the same tokens in another order (needs at least two tokens).",
        "ko": "섞기를 누르면 같은 토큰을 다른 순서로 실행합니다(토큰이 두 개 이상 필요).",
    },
    "hd_shuffled": {"en": "Shuffled sentence: **{text}**", "ko": "섞은 문장: **{text}**"},
    "hd_moved": {
        "en": "✅ outputs moved with their tokens (largest difference {err:.1e})",
        "ko": "✅ 출력이 토큰을 따라 자리만 옮겼습니다(최대 차이 {err:.1e})",
    },
    "hd_not_moved": {
        "en": "🔄 outputs changed, not just moved (largest difference {err:.2f}): expected, because the shuffle "
              "gave the tokens new positions (or, with the causal mask, other keys to see)",
        "ko": "🔄 출력이 자리만 옮긴 게 아니라 바뀌었습니다(최대 차이 {err:.2f}). 예상한 결과입니다. 섞으면 토큰의 "
              "위치가 바뀌기 때문입니다(인과 마스크가 켜져 있으면 보이는 키도 바뀝니다)",
    },
    "hd_shuffle_result": {
        "en": "- Positional encoding **off**: {off}\n- Positional encoding **on**: {on}",
        "ko": "- 위치 인코딩 **끔**: {off}\n- 위치 인코딩 **켬**: {on}",
    },
    "hd_shuffle_causal": {
        "en": "The causal mask is on: it lets each token see only earlier positions, so the shuffle changes what each "
              "token sees, with or without positional encoding. Turn it off to see pure equivariance.",
        "ko": "인과 마스크가 켜져 있어 각 토큰이 앞쪽 위치만 봅니다. 그래서 위치 인코딩과 상관없이 섞으면 보이는 것이 "
              "달라집니다. 순수한 등변성을 보려면 마스크를 끄세요.",
    },
    "hd_order_original": {"en": "original order", "ko": "원래 순서"},
    "hd_order_shuffled": {"en": "shuffled", "ko": "섞은 순서"},
    "hd_order_back": {"en": "shuffled, put back in order", "ko": "섞은 것을 원래 순서로 되돌림"},
    "hd_order_caption_off": {
        "en": "Positional encoding is off: the right-hand map (the shuffled run, rows and columns put back) is "
              "identical to the original.",
        "ko": "위치 인코딩이 꺼져 있습니다. 오른쪽 지도(섞어서 실행한 뒤 행과 열을 되돌린 것)가 원래 지도와 "
              "똑같습니다.",
    },
    "hd_order_caption_on": {
        "en": "Positional encoding is on: even put back in order, the shuffled run differs from the original, because "
              "each token now carries the position it was shuffled to.",
        "ko": "위치 인코딩이 켜져 있습니다. 원래 순서로 되돌려도 섞은 실행은 원래와 다릅니다. 각 토큰이 섞인 뒤의 "
              "위치를 함께 가지고 있기 때문입니다.",
    },
    "hd_shuffle_self": {
        "en": "The shuffle runs the shown sentence on its own, as self-attention (its own keys and values, no "
              "padding).",
        "ko": "섞기는 보이는 문장만 따로 자기어텐션(자기 자신의 키와 값, 패딩 없음)으로 실행합니다.",
    },
    # seeds
    "hd_seed_title": {"en": "seed {seed}", "ko": "시드 {seed}"},
    "hd_col_seed": {"en": "seed", "ko": "시드"},
    "hd_seeds_text": {
        "en": "Head {head} of the same sentence under the current seed and the next three. Only the random weights "
              "and embeddings changed, yet the pattern is different each time: a single seed's picture tells you how "
              "the computation works, not what the words mean.",
        "ko": "같은 문장의 헤드 {head}을(를) 현재 시드와 다음 세 시드로 본 것입니다. 무작위 가중치와 임베딩만 "
              "바뀌었는데도 "
              "패턴이 매번 다릅니다. 한 시드의 그림은 계산이 어떻게 동작하는지 보여 줄 뿐, 단어의 의미를 말해 주지 "
              "않습니다.",
    },
    "hd_seeds_training": {
        "en": "Training the module of seed {seed} ({n} of {total}): each seed is trained once, then kept for every "
              "visitor.",
        "ko": "시드 {seed}의 모듈을 학습하는 중입니다({n}/{total}). 시드마다 한 번만 학습하고, 그 뒤로는 모든 방문자가 "
              "함께 씁니다.",
    },
    "hd_seeds_text_trained_same": {
        "en": "Head {head}, trained on “{task}” from four random starts: the same pattern every time (the maps differ "
              "by at most {spread}, 0 = identical rows). The training task, not the starting weights, decides what "
              "this head does.",
        "ko": "“{task}” 과제로 무작위 시작점 네 개에서 학습한 헤드 {head}: 매번 같은 패턴입니다(지도 사이의 차이 최대 "
              "{spread}, 0이면 행이 똑같음). 이 헤드가 하는 일은 시작 가중치가 아니라 학습 과제가 정합니다.",
    },
    "hd_seeds_text_trained_differ": {
        "en": "Head {head}, trained on “{task}” from four random starts: the patterns differ (by up to {spread}, 0 = "
              "identical rows). Training solves the task every time, but which head takes which job depends on the "
              "start: compare the heads of each seed in the Measure section.",
        "ko": "“{task}” 과제로 무작위 시작점 네 개에서 학습한 헤드 {head}: 패턴이 서로 다릅니다(차이 최대 {spread}, "
              "0이면 "
              "행이 똑같음). 학습은 매번 과제를 풀지만, 어느 헤드가 어떤 일을 맡을지는 시작점에 따라 달라집니다. "
              "측정 섹션에서 시드마다 헤드를 비교해 보세요.",
    },
    "hd_seeds_first_rows": {
        "en": "Compared on the first {train_len} queries, the length the heads were trained on: past it every seed "
              "looks somewhere else, untrained.",
        "ko": "헤드들이 학습한 길이인 처음 {train_len}개 쿼리로 비교했습니다. 그 뒤로는 어느 시드도 학습하지 않아서 "
              "제각각 "
              "다른 곳을 봅니다.",
    },
    "hd_seeds_custom": {
        "en": "Your uploaded weights are in use: they stay the same, and only the random embeddings change with the "
              "seed.",
        "ko": "업로드한 가중치를 쓰는 중입니다. 가중치는 그대로이고 시드에 따라 무작위 임베딩만 바뀝니다.",
    },
    "hd_trained": {
        "en": "Trained models grow heads with recognisable jobs: *previous-token* heads that look one step back, "
              "*induction* heads that find an earlier copy of the current token and attend to what followed it, "
              "*positional* heads that look a fixed distance away, and heads that park their attention on the first "
              "token or on punctuation (a “sink”). The weights here are random and untrained, so none of this is "
              "built in: these patterns change with the seed and carry no meaning.",
        "ko": "학습된 모델에는 역할이 뚜렷한 헤드가 생깁니다. 바로 앞 토큰을 보는 *이전 토큰(previous-token)* 헤드, "
              "현재 토큰이 앞에 나온 자리를 찾아 그 다음 토큰에 어텐션하는 *인덕션(induction)* 헤드, 일정한 거리만큼 "
              "떨어진 곳을 보는 *위치(positional)* 헤드, 첫 토큰이나 문장부호에 어텐션을 모아 두는 헤드(“싱크”) "
              "등입니다. 여기의 가중치는 학습되지 않은 무작위 값이라 이런 역할이 없습니다. 이 패턴들은 시드에 따라 "
              "바뀌며 아무 의미도 없습니다.",
    },
}
