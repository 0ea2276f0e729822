"""Strings of the guided path "Follow the course" (강의 따라가기), in the course deck's own words (tests/seeds/).

Korean: no particle that changes with the final sound follows a placeholder (에, 에서, 의, 중 do not change)."""
STRINGS = {
    "nav_course": {"en": "Follow the course", "ko": "강의 따라가기"},
    "home_course": {
        "en": "Seven steps through the course — Q/K/V, softmax, scaling, the mask, heads — each on your own "
              "sentence: predict, then see what the module does.",
        "ko": "Q/K/V, softmax, 스케일링, 마스크, 헤드까지 강의를 일곱 단계로 따라갑니다. 단계마다 내 문장으로 먼저 "
              "예상해 보고, 모듈이 실제로 하는 일을 확인합니다.",
    },
    "home_course_title": {"en": "Follow the course, step by step", "ko": "강의를 한 단계씩 따라가기"},
    "home_course_text": {
        "en": "The course's questions — what do Q, K and V do, why softmax, why divide by √head_dim, why mask, "
              "why several heads — answered one step at a time by the course's own `MultiHeadAttention`, on your "
              "sentence.",
        "ko": "Q, K, V는 무슨 일을 하는지, 왜 softmax인지, 왜 √head_dim으로 나누는지, 왜 마스크를 쓰는지, 왜 헤드가 "
              "여러 개인지. 강의의 `MultiHeadAttention`이 내 문장으로 한 단계씩 답합니다.",
    },
    "home_course_start": {"en": "Start the course", "ko": "강의 따라가기 시작"},
    "co_title": {"en": "Follow the course", "ko": "강의 따라가기"},
    "co_intro": {
        "en": "Seven steps through the course's multi-head self-attention, each on your sentence from the sidebar: "
              "“{sentence}”. Change it there and every step follows. Each step asks you to predict first.",
        "ko": "강의의 멀티헤드 자기어텐션을 일곱 단계로 따라갑니다. 모든 단계는 사이드바에 입력한 내 문장을 "
              "씁니다: “{sentence}”. 문장을 바꾸면 모든 단계가 따라 바뀝니다. 단계마다 먼저 예상해 보세요.",
    },
    "co_step_picker": {"en": "Step", "ko": "단계"},
    "co_step_of": {"en": "Step {n} of {total}", "ko": "{total}단계 중 {n}단계"},
    "co_back": {"en": "← Back", "ko": "← 이전"},
    "co_next": {"en": "Next →", "ko": "다음 →"},
    "co_predict": {"en": "Predict first", "ko": "먼저 예상해 보세요"},
    "co_reveal": {"en": "Show the answer", "ko": "답 보기"},
    "co_right": {"en": "✓ Right: {answer}", "ko": "✓ 맞았습니다: {answer}"},
    "co_wrong": {"en": "Not quite. The answer: {answer}", "ko": "아쉽네요. 답: {answer}"},
    "co_no_guess": {"en": "The answer: {answer}", "ko": "답: {answer}"},
    "co_open_playground": {"en": "Open this in the Playground", "ko": "놀이터에서 열기"},
    "co_trained_note": {
        "en": "Trained heads: the course's module trained on a small copying task ({task}, d_model {d_model}, "
              "seed {seed}): random parameters spread every row evenly and would show nothing here.",
        "ko": "학습된 헤드: 강의의 모듈을 작은 복사 과제로({task}, d_model {d_model}, 시드 {seed}) 학습시킨 것입니다. "
              "무작위 파라미터는 모든 행을 고르게 퍼뜨려 여기서 아무것도 보여 주지 못합니다.",
    },
    "co_long": {
        "en": "Your sentence has {n} tokens; these heads were trained on sequences of {train_len}, and beyond that "
              "position they look in the wrong place: this step shows the first {train_len}.",
        "ko": "내 문장의 토큰은 {n}개입니다. 이 헤드들은 토큰 {train_len}개짜리 시퀀스로 학습되어 그 위치 뒤로는 "
              "엉뚱한 곳을 봅니다. 그래서 이 단계는 앞의 {train_len}개만 보여 줍니다.",
    },
    "co_needs_two": {
        "en": "This step needs at least two words: type a longer sentence in the sidebar.",
        "ko": "이 단계에는 단어가 두 개 이상 필요합니다. 사이드바에 더 긴 문장을 입력하세요.",
    },
    # --- 1 Q/K/V and scores
    "co_step_qkv": {"en": "Q, K, V and the attention scores", "ko": "Q, K, V와 어텐션 점수"},
    "co_qkv_text": {
        "en": "In the course: **Q** marks what each token is “looking for” in the other tokens, **K** is each "
              "token's content, **V** is the actual content that gets aggregated (a weighted sum). The **attention "
              "score** is the Q–K similarity, a dot product: `torch.matmul(query, key.transpose(-2, -1)) / "
              "(self.head_dim ** 0.5)`. Here: head {head} of a module trained to look at the previous word.",
        "ko": "강의에서: **Q**는 각 토큰이 다른 토큰에서 무엇을 “찾는지” 표시하고, **K**는 각 토큰의 내용 표현, "
              "**V**는 집계/가중합할 실제 내용입니다. **어텐션 점수**는 Q-K 유사도, 곧 도트 프로덕트입니다: "
              "`torch.matmul(query, key.transpose(-2, -1)) / (self.head_dim ** 0.5)`. 여기서는 앞 단어를 보도록 "
              "학습된 모듈의 헤드 {head}을(를) 봅니다.",
    },
    "co_qkv_question": {
        "en": "The query is “{q}”. Which key will get its highest score?",
        "ko": "쿼리는 “{q}”입니다. 점수가 가장 높을 키는 무엇일까요?",
    },
    "co_qkv_answer": {"en": "“{k}” (score {score:.2f})", "ko": "“{k}” (점수 {score:.2f})"},
    "co_qkv_after": {
        "en": "Every score of head {head}: each row is a query, each column a key. Below, the one score you "
              "predicted, made feature by feature: q · k, then ÷ √head_dim.",
        "ko": "헤드 {head}의 모든 점수: 행은 쿼리, 열은 키입니다. 아래는 예상한 점수 하나가 특성별로 만들어지는 "
              "과정입니다: q · k, 그다음 ÷ √head_dim.",
    },
    # --- 2 softmax
    "co_step_softmax": {"en": "Softmax: scores become weights", "ko": "Softmax: 점수가 가중치로"},
    "co_softmax_text": {
        "en": "In the course: attention weights come from softmax scaling. Softmax turns a row of scores into "
              "weights between 0 and 1 that sum to 1: α_i = exp(s_i) / Σ_j exp(s_j). The course's picture: the "
              "query “Orange” and its weights over “Orange is my favorite fruit”.",
        "ko": "강의에서: 어텐션 가중치는 softmax 스케일링으로 얻습니다. softmax는 점수 한 행을 0과 1 사이의, 합이 1인 "
              "가중치로 바꿉니다: α_i = exp(s_i) / Σ_j exp(s_j). 강의의 그림: 쿼리 “Orange”가 “Orange is my "
              "favorite fruit”의 각 단어에 주는 가중치입니다.",
    },
    "co_softmax_question": {
        "en": "In the course's row, which key does “Orange” attend to most?",
        "ko": "강의의 행에서 “Orange”가 가장 많이 어텐션하는 키는 무엇일까요?",
    },
    "co_softmax_answer": {"en": "“{k}” ({w:.2f})", "ko": "“{k}” ({w:.2f})"},
    "co_softmax_course": {
        "en": "The course's weights: {row}. They sum to {total:.2f}. Scores that give them: log(weight) (any "
              "constant added to a row cancels in softmax); softmax of those scores, computed here: {back}.",
        "ko": "강의의 가중치: {row}. 합은 {total:.2f}입니다. 이 가중치를 주는 점수는 log(가중치)이고(한 행에 같은 "
              "상수를 더해도 softmax에서 지워집니다), 그 점수에 softmax를 계산하면: {back}.",
    },
    "co_softmax_yours": {
        "en": "Your sentence, the query “{q}” of head {head} (step 1): its scores, exp(score − the row's largest), "
              "and weight = exp / {total:.3f} (the sum of the exps). The weights sum to {wsum:.3f}.",
        "ko": "내 문장, 헤드 {head}의 쿼리 “{q}” (1단계): 점수, exp(점수 − 행의 최댓값), 가중치 = exp / {total:.3f}"
              "(exp들의 합). 가중치의 합: {wsum:.3f}.",
    },
    "co_col_key": {"en": "key", "ko": "키"},
    "co_col_score": {"en": "score", "ko": "점수"},
    "co_col_exp": {"en": "exp(score − max)", "ko": "exp(점수 − 최댓값)"},
    "co_col_weight": {"en": "weight", "ko": "가중치"},
    # --- 3 scaling
    "co_step_scale": {"en": "Why divide by √head_dim", "ko": "왜 √head_dim으로 나누나"},
    "co_scale_text": {
        "en": "In the course's notes: the weights must stay within a range, neither extremely small nor extremely "
              "large. A dot product of head_dim terms spreads more as head_dim grows; `/ (self.head_dim ** 0.5)` "
              "keeps the scores' spread the same at every size. Here: your sentence at head_dim {head_dim} "
              "(d_model {d_model}, {num_heads} heads, random parameters).",
        "ko": "강의 노트에서: 가중치는 일정 범위 안에 있어야 하며, 극적으로 작거나 극적으로 커서는 안 됩니다. "
              "head_dim개 항의 도트 프로덕트는 head_dim이 클수록 넓게 퍼집니다. `/ (self.head_dim ** 0.5)`는 "
              "어떤 크기에서도 점수의 퍼짐을 같게 유지합니다. 여기서는 head_dim {head_dim}에서"
              "(d_model {d_model}, 헤드 {num_heads}개, 무작위 파라미터) 내 문장을 실행합니다.",
    },
    "co_scale_question": {
        "en": "Leave out ÷ √head_dim at head_dim {head_dim}: what happens to each row of weights?",
        "ko": "head_dim {head_dim}에서 ÷ √head_dim을 빼면 가중치의 각 행은 어떻게 될까요?",
    },
    "co_scale_peaked": {"en": "more peaked: one key takes nearly everything",
                        "ko": "더 뾰족해진다: 키 하나가 거의 전부를 가져간다"},
    "co_scale_flatter": {"en": "flatter: the weights even out", "ko": "더 평평해진다: 가중치가 고르게 된다"},
    "co_scale_same": {"en": "nothing changes", "ko": "아무것도 바뀌지 않는다"},
    "co_scale_after": {
        "en": "Head 0 on your sentence: mean largest weight {max_s:.2f} scaled, {max_u:.2f} unscaled; mean "
              "entropy {ent_s:.2f} bits scaled, {ent_u:.2f} bits unscaled (even over the keys: {uniform:.2f}). "
              "A saturated softmax also passes almost no gradient back to the scores. Below: the Scaling lab's "
              "measurement on random q and k at every head_dim.",
        "ko": "내 문장의 헤드 0: 가장 큰 가중치의 평균은 스케일링하면 {max_s:.2f}, 안 하면 {max_u:.2f}, 평균 "
              "엔트로피는 스케일링하면 {ent_s:.2f}비트, 안 하면 {ent_u:.2f}비트입니다(키에 고르게 퍼지면 "
              "{uniform:.2f}비트). 포화된 softmax는 점수에 기울기도 거의 전하지 못합니다. 아래: 스케일링 실험실이 "
              "모든 head_dim에서 무작위 q, k로 잰 값입니다.",
    },
    # --- 4 mask
    "co_step_mask": {"en": "Why mask: a decoder must not see the word it predicts",
                     "ko": "왜 마스크인가: 디코더는 예측할 단어를 보면 안 된다"},
    "co_mask_text": {
        "en": "A decoder writes a sentence one word at a time: at each position it must predict the **next** word. "
              "If attention lets it see that word, it does not predict at all, it copies the answer. Here the "
              "course's module was trained to output the next word. The causal mask (`scores.masked_fill(mask == "
              "0, float('-inf'))` in `compute_attention`) blocks every later key.",
        "ko": "디코더는 문장을 한 단어씩 씁니다. 위치마다 **다음** 단어를 예측해야 합니다. 어텐션이 그 단어를 볼 수 "
              "있다면 예측하는 것이 아니라 답을 베낍니다. 여기서는 강의의 모듈을 다음 단어를 출력하도록 "
              "학습시켰습니다. 인과 마스크(`compute_attention`의 `scores.masked_fill(mask == 0, float('-inf'))`)는 "
              "뒤에 오는 모든 키를 막습니다.",
    },
    "co_mask_question": {
        "en": "With the causal mask, how much weight can head {head} put on the next word?",
        "ko": "인과 마스크를 걸면 다음 단어에 가는 헤드 {head}의 가중치는 얼마나 될 수 있을까요?",
    },
    "co_mask_same": {"en": "about as much as without the mask", "ko": "마스크가 없을 때와 비슷하게"},
    "co_mask_half": {"en": "about half of it", "ko": "그 절반쯤"},
    "co_mask_zero": {"en": "exactly 0", "ko": "정확히 0"},
    "co_mask_answer": {"en": "exactly 0 (it was {free:.2f} without the mask)",
                       "ko": "정확히 0 (마스크 없이는 {free:.2f})"},
    "co_mask_metric_weight": {"en": "weight on the next word", "ko": "다음 단어에 준 가중치"},
    "co_mask_metric_copied": {"en": "the next word in the output", "ko": "출력에 담긴 다음 단어"},
    "co_mask_free": {"en": "no mask", "ko": "마스크 없음"},
    "co_mask_masked": {"en": "causal mask", "ko": "인과 마스크"},
    "co_mask_after": {
        "en": "Without the mask head {head} reads the next word (mean weight {free:.2f}) and the output holds "
              "{copied_free}% of it: the “prediction” is cheating, it looked at the answer. With the mask that "
              "weight is exactly {masked:.0f} and {copied_masked}% of the next word is left: the module has to "
              "learn to predict it from the words before it. (Share of the next word: 1 − squared error / its "
              "squared size, over the first {n} words; 0% or less means nothing of it.)",
        "ko": "마스크가 없으면 헤드 {head}의 가중치가 다음 단어로 가고(평균 {free:.2f}) 출력에 그 단어의 "
              "{copied_free}%가 담깁니다. 이 “예측”은 답을 보고 베낀 것입니다. 마스크를 걸면 그 가중치는 정확히 "
              "{masked:.0f}이고 다음 단어는 {copied_masked}%만 남습니다. 모듈은 앞 단어들로 예측하는 법을 배워야 "
              "합니다. (다음 단어의 몫: 1 − 제곱 오차 / 그 단어의 제곱 크기, 앞의 {n}단어에서. 0% 이하는 전혀 "
              "없다는 뜻입니다.)",
    },
    # --- 5 head outputs and combine_heads
    "co_step_heads": {"en": "Each head's output, and combine_heads", "ko": "헤드별 출력과 combine_heads"},
    "co_heads_text": {
        "en": "In the course: `torch.matmul(attention_weights, value)` is the weighted sum of the values, one "
              "(T, head_dim) block per head. `combine_heads` puts the blocks side by side — `x.permute(0, 2, 1, "
              "3)` then `x.view(batch_size, -1, self.d_model)` — and `self.output_linear()` concatenates the "
              "heads' outputs and projects them. Here: your sentence at the sidebar's sizes.",
        "ko": "강의에서: `torch.matmul(attention_weights, value)`는 값의 가중합이며, 헤드마다 (T, head_dim) 블록이 "
              "하나씩 나옵니다. `combine_heads`는 블록들을 나란히 붙이고(`x.permute(0, 2, 1, 3)`, 그다음 "
              "`x.view(batch_size, -1, self.d_model)`), `self.output_linear()`는 헤드 출력을 연결해 투영합니다. "
              "여기서는 사이드바의 크기로 내 문장을 실행합니다.",
    },
    "co_heads_question": {
        "en": "d_model {d_model}, {num_heads:plural:head|heads}: how many numbers does each head output per token?",
        "ko": "d_model {d_model}, 헤드 {num_heads}개: 헤드 하나는 토큰마다 숫자를 몇 개 출력할까요?",
    },
    "co_heads_answer": {"en": "head_dim = {d_model} / {num_heads} = {head_dim}",
                        "ko": "head_dim = {d_model} / {num_heads} = {head_dim}"},
    "co_heads_after": {
        "en": "Above: each head's output (tokens down, its head_dim features across). Below: after "
              "`combine_heads`, head h's block is columns h × {head_dim} to (h + 1) × {head_dim} − 1 of the "
              "(T, d_model) matrix; its largest difference from that head's output: {diff:.2g}.",
        "ko": "위: 헤드별 출력(세로로 토큰, 가로로 그 헤드의 head_dim개 특성). 아래: `combine_heads` 뒤 헤드 h의 "
              "블록은 (T, d_model) 행렬의 h × {head_dim}열부터 (h + 1) × {head_dim} − 1열까지이며, 그 헤드의 "
              "출력과의 최대 차이: {diff:.2g}.",
    },
    # --- 6 why several heads
    "co_step_several": {"en": "Why several heads", "ko": "왜 여러 헤드인가"},
    "co_several_text": {
        "en": "In the course: each head learns information from a different part, so the model can look at the "
              "data from several points of view. Try it: a task that needs two places at once — copy the previous "
              "word **and** the next word. One row of weights is one softmax; the module was trained once with "
              "1 head and once with 2 (d_model 32, the same steps).",
        "ko": "강의에서: 각 헤드는 서로 다른 부분의 정보를 학습하며, 이를 통해 모델이 다양한 관점에서 데이터를 "
              "처리할 수 있습니다. 직접 확인해 봅시다. 두 곳을 동시에 봐야 하는 과제, 곧 이전 단어와 다음 단어를 "
              "**함께** 복사하는 과제입니다. 가중치 한 행은 softmax 하나입니다. 모듈을 헤드 1개로 한 번, "
              "2개로 한 번 학습시켰습니다(d_model 32, 같은 학습 단계 수).",
    },
    "co_several_question": {
        "en": "Can one head learn to copy both the previous and the next word?",
        "ko": "헤드 하나가 이전 단어와 다음 단어를 함께 복사하도록 배울 수 있을까요?",
    },
    "co_several_yes": {"en": "yes, as well as two heads", "ko": "예, 헤드 두 개만큼 잘"},
    "co_several_no": {"en": "no: it reads one place per query", "ko": "아니요: 쿼리마다 한 곳만 읽는다"},
    "co_several_table_heads": {"en": "heads", "ko": "헤드 수"},
    "co_several_after": {
        "en": "Mean weight on the key each part of the task must read, on your sentence (best head for each):",
        "ko": "내 문장에서 과제의 각 부분이 읽어야 할 키에 준 평균 가중치(부분마다 가장 잘하는 헤드):",
    },
    "co_several_one": {"en": "1 head", "ko": "헤드 1개"},
    "co_several_two": {"en": "2 heads", "ko": "헤드 2개"},
    # --- 7 trained heads
    "co_step_trained": {"en": "What trained heads look like", "ko": "학습된 헤드는 어떤 모습인가"},
    "co_trained_text": {
        "en": "A module trained on four copying jobs at once (previous word, next word, first word, mirrored "
              "position, counted in sequences of {train_len}, the training length): each head takes a job. Trained "
              "heads are sharp, nearly all of a row's weight on one key; "
              "random heads spread every row almost evenly.",
        "ko": "네 가지 복사 과제(이전 단어, 다음 단어, 첫 단어, 학습 길이인 {train_len}단어 시퀀스에서 센 거울 위치)를 "
              "한꺼번에 학습한 모듈입니다. 헤드마다 "
              "과제 하나를 맡습니다. 학습된 헤드는 뾰족해서 한 행의 가중치를 거의 모두 키 하나에 줍니다. 무작위 "
              "헤드는 모든 행을 거의 고르게 퍼뜨립니다.",
    },
    "co_trained_question": {"en": "Which head copies the first word?", "ko": "첫 단어를 복사하는 헤드는 무엇일까요?"},
    "co_trained_answer": {"en": "head {head}", "ko": "헤드 {head}"},
    "co_trained_role": {"en": "head {head}: {role} ({score:.2f})", "ko": "헤드 {head}: {role} ({score:.2f})"},
    "co_trained_role_unclear": {
        "en": "head {head}: none of the known patterns on this sentence (closest: {role}, {score:.2f})",
        "ko": "헤드 {head}: 이 문장에서는 알려진 패턴이 아님(가장 가까운 것: {role}, {score:.2f})",
    },
    "co_trained_roles": {
        "en": "What each head does on your sentence (its closest known pattern, 1 = exactly it):",
        "ko": "내 문장에서 각 헤드가 하는 일(가장 가까운 알려진 패턴, 1 = 정확히 그 패턴):",
    },
    "co_done": {
        "en": "That is the course's multi-head attention. Go on in the Playground, the Heads page or Train.",
        "ko": "강의의 멀티헤드 어텐션을 모두 따라왔습니다. 놀이터, 헤드, 학습 페이지에서 계속해 보세요.",
    },
}
