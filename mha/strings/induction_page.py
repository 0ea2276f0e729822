"""Strings of the Induction page (prefix ``ind_``)."""
STRINGS = {
    "nav_induction": {"en": "Induction head", "ko": "인덕션 헤드"},
    "home_induction": {
        "en": "Two layers of the course's module, trained live: a previous-token head and an induction head that "
              "copies what came after the last time a token appeared.",
        "ko": "강의의 모듈 두 층을 바로 학습시킵니다. 이전 토큰 헤드와, 토큰이 지난번에 나왔을 때 바로 다음에 온 "
              "토큰을 복사하는 인덕션 헤드가 생깁니다.",
    },
    "ind_title": {"en": "Two layers: watch an induction head form", "ko": "두 층: 인덕션 헤드가 생기는 순간 보기"},
    "ind_intro": {
        "en": "One attention layer looks things up by position or by content. Two layers of the course's "
              "`MultiHeadAttention`, stacked with a residual stream, can compose: a *previous token* head in layer 1 "
              "lets a layer-2 head find **the token that came after the last time this token appeared**, and copy "
              "it: an *induction head*, the mechanism behind in-context learning (Olsson et al. 2022). The model "
              "reads random tokens in which a block is repeated once, at a random place; only the repeat can be "
              "predicted, and only by finding the earlier copy.",
        "ko": "어텐션 층 하나는 위치나 내용으로만 찾을 수 있습니다. 강의의 `MultiHeadAttention` 두 개를 잔차 "
              "스트림(residual stream)으로 쌓으면 둘이 합성됩니다. 1층의 *이전 토큰* 헤드 덕분에 2층의 헤드가 "
              "**이 토큰이 지난번에 나왔을 때 바로 다음에 온 토큰**을 찾아 복사할 수 있습니다. 이것이 "
              "문맥 내 학습(in-context learning)의 바탕인 *인덕션 헤드*입니다(Olsson 외, 2022). 모델은 무작위 토큰 "
              "사이에 한 구간이 무작위 자리에서 한 번 반복되는 시퀀스를 읽습니다. 예측할 수 있는 것은 반복된 "
              "부분뿐이고, "
              "그것도 앞의 복사본을 찾아야만 가능합니다.",
    },
    "ind_seed_help": {
        "en": "The starting parameters and the training data. The same seed and steps give the same model, bit for "
              "bit, so a link reproduces the run.",
        "ko": "시작 파라미터와 학습 데이터를 정합니다. 시드와 단계 수가 같으면 모델도 비트 하나까지 같아서, 링크로 "
              "같은 "
              "학습을 다시 볼 수 있습니다.",
    },
    "ind_steps_help": {
        "en": "Adam updates on batches of 64 sequences of 32 tokens (default {default}). The drop usually comes "
              "after 250–300 steps; each step takes a few hundredths of a second here.",
        "ko": "32토큰 시퀀스 64개짜리 배치로 하는 Adam 업데이트 횟수입니다(기본 {default}). 손실은 보통 250~300단계 "
              "뒤에 떨어집니다. 여기서는 한 단계에 수백분의 몇 초가 걸립니다.",
    },
    "ind_press_train": {
        "en": "Press **Train**: watch the loss sit on a plateau, then drop, while one layer-2 head's induction score "
              "jumps. It takes about half a minute on this server (one CPU thread); Stop keeps what was learned.",
        "ko": "**학습 시작**을 누르세요. 손실이 한동안 평평하게 머물다 뚝 떨어지고, 그때 2층 헤드 하나의 인덕션 점수가 "
              "뛰어오릅니다. 이 서버(CPU 스레드 하나)에서 30초쯤 걸리며, 멈추기를 누르면 그때까지 배운 것을 "
              "보여 줍니다.",
    },
    "ind_loss_title": {
        "en": "Training loss ({window}-step average, nats)",
        "ko": "학습 손실({window}단계 평균, nat)",
    },
    "ind_prev_title": {"en": "Layer 1: previous-token score per head", "ko": "1층: 헤드별 이전 토큰 점수"},
    "ind_ind_title": {"en": "Layer 2: induction score per head", "ko": "2층: 헤드별 인덕션 점수"},
    "ind_scores_caption": {
        "en": "Measured on 64 held-out sequences at every checkpoint. Previous-token score: a layer-1 head's mean "
              "weight on the token just before the query. Induction score: a layer-2 head's mean weight, from each "
              "predictable token of the repeat, on the token after the earlier occurrence. 1 = perfect; the dashed "
              "line is 0.5.",
        "ko": "체크포인트마다 따로 떼어 둔 64개 시퀀스로 잽니다. 이전 토큰 점수: 1층 헤드가 쿼리 바로 앞 토큰에 주는 "
              "평균 가중치. 인덕션 점수: 반복 구간의 예측 가능한 토큰마다 2층 헤드가 앞선 등장의 다음 토큰에 주는 "
              "평균 가중치. 1이 완벽하며, 점선은 0.5입니다.",
    },
    "ind_dropped": {
        "en": "The loss sat on a plateau near {plateau} (steps {start}–{end}), then dropped: the phase change at step "
              "{drop}, down to {after} ({seconds} s of training).",
        "ko": "손실이 {plateau} 근처에서 평평하게 머물다가({start}~{end}단계) 떨어졌습니다. {drop}단계에서 상전이가 "
              "일어나 {after}까지 내려갔습니다(학습 {seconds}초).",
    },
    "ind_not_dropped": {
        "en": "No phase change in these {steps} steps yet: the loss is still on its plateau. Train longer (600 steps "
              "is enough for most seeds).",
        "ko": "이 {steps}단계 안에서는 아직 상전이가 없습니다. 손실이 아직 평평합니다. 더 오래 학습해 보세요(대부분의 "
              "시드는 600단계면 충분합니다).",
    },
    "ind_text_title": {"en": "Your text, twice", "ko": "여러분의 문장을 두 번"},
    "ind_text_intro": {
        "en": "The sidebar's text is read twice in a row, by the model as it was after {step} steps. In the second "
              "copy an induction head looks back to the token *after* the earlier occurrence of the current one: a "
              "stripe parallel to the diagonal, one copy-length to the left.",
        "ko": "사이드바의 문장을 두 번 이어서, {step}단계까지 학습한 모델이 읽습니다. 두 번째 복사본에서 인덕션 헤드는 "
              "현재 토큰이 앞서 나왔던 자리의 *다음* 토큰을 돌아봅니다. 대각선과 나란히, 복사본 길이만큼 왼쪽에 생기는 "
              "줄무늬입니다.",
    },
    "ind_mapping": {
        "en": "How your words become the model's tokens: it was trained on {vocab} token ids that mean nothing, so "
              "each distinct word (or punctuation mark) of your text gets an id from a hash of its letters (BLAKE2b, "
              "modulo {vocab}) — the same word always the same id. {n} tokens are read, then read again.",
        "ko": "단어가 모델의 토큰이 되는 방법: 모델은 아무 뜻 없는 토큰 id {vocab}개로 학습했습니다. 그래서 문장의 "
              "서로 "
              "다른 단어(또는 문장부호)마다 글자의 해시(BLAKE2b, {vocab}(으)로 나눈 나머지)로 id를 줍니다. 같은 단어는 "
              "언제나 같은 id입니다. {n}토큰을 읽고, 한 번 더 읽습니다.",
    },
    "ind_cut": {
        "en": "{cut} tokens were left out: the model has positions for 32 tokens, so each copy holds {n}.",
        "ko": "{cut}토큰은 뺐습니다. 모델의 위치가 32개뿐이라 복사본 하나에 {n}토큰만 들어갑니다.",
    },
    "ind_moved": {
        "en": "Collision: {word} would get id {want}, which an earlier word already has, so it gets {got} (the next "
              "free one).",
        "ko": "충돌: {word}의 id는 {want}인데 앞의 다른 단어가 이미 쓰고 있어서, 비어 있는 다음 id {got}을(를) "
              "받습니다.",
    },
    "ind_shared": {
        "en": "More distinct words than ids: {words} share id {id}, so the model cannot tell them apart.",
        "ko": "서로 다른 단어가 id보다 많아서 {words}이(가) id {id}을(를) 함께 씁니다. 모델은 이들을 구별할 수 "
              "없습니다.",
    },
    "ind_query": {"en": "Query (the token whose head sentences are below)", "ko": "쿼리(아래 헤드 설명의 기준 토큰)"},
    "ind_layer_title": {"en": "Layer {n}: every head's attention weights", "ko": "{n}층: 모든 헤드의 어텐션 가중치"},
    "ind_head": {"en": "Layer {layer}, head {head}", "ko": "{layer}층 헤드 {head}"},
    "ind_role_previous": {"en": "a previous-token head ({score} on held-out data, {here} on your text).",
                          "ko": "이전 토큰 헤드입니다(따로 떼어 둔 데이터에서 {score}, 여러분의 문장에서 {here})."},
    "ind_role_duplicate": {
        "en": "a same-token head: it finds the earlier occurrence of the query's token ({score}).",
        "ko": "같은 토큰 헤드입니다. 쿼리 토큰이 앞서 나온 자리를 찾습니다({score}).",
    },
    "ind_role_induction": {"en": "an induction head ({score} on held-out data, {here} on your text).",
                           "ko": "인덕션 헤드입니다(따로 떼어 둔 데이터에서 {score}, 여러분의 문장에서 {here})."},
    "ind_role_none": {"en": "no clear role yet (best score {score}).", "ko": "아직 뚜렷한 역할이 없습니다(최고 점수 "
                                                                             "{score})."},
    "ind_points": {
        "en": "From **{q}** (token {i}) it attends most to **{k}** (token {j}), weight {w}.",
        "ko": "**{q}**(토큰 {i})에서 **{k}**(토큰 {j})에 가장 크게 주목합니다(가중치 {w}).",
    },
    "ind_hit_previous": {"en": "That is the token just before.", "ko": "바로 앞 토큰입니다."},
    "ind_hit_induction": {
        "en": "That is the token after the earlier occurrence: the next token, predicted by copying.",
        "ko": "앞서 나온 자리의 다음 토큰입니다. 복사해서 다음 토큰을 맞히는 것입니다.",
    },
    "ind_big_title": {"en": "Layer 2, head {head} (the strongest induction head on your text: {here}), large",
                      "ko": "2층 헤드 {head}(여러분의 문장에서 가장 강한 인덕션 헤드: {here}) 크게 보기"},
    "ind_big_none": {"en": "Layer 2, head {head}, large: no induction head yet at this step (the highest induction "
                           "score on your text: {here})",
                     "ko": "2층 헤드 {head} 크게 보기: 이 단계에는 아직 인덕션 헤드가 없습니다(여러분의 문장에서 가장 "
                           "높은 "
                           "인덕션 점수 {here})"},
    "ind_big_caption": {
        "en": "Click a cell to pick its row as the query. The orange frame marks where an induction head should "
              "look from the query (the token after the earlier occurrence; the query itself when there is none).",
        "ko": "칸을 누르면 그 행이 쿼리가 됩니다. 주황색 테두리는 인덕션 헤드가 쿼리에서 봐야 할 자리입니다(앞서 나온 "
              "자리의 다음 토큰, 없으면 쿼리 자신).",
    },
    "ind_how_title": {"en": "How two layers compose", "ko": "두 층이 합성되는 방식"},
    "ind_how_text": {
        "en": "In the course's code each layer is `x = x + mha(x, x, x, mask)`: its output is **added** to the "
              "residual stream. Layer 1's previous-token head writes into every position the content of the token "
              "before it. Layer 2 then computes `k = key_linear(x)` from that stream, so each key says *“the token "
              "before me was …”*. Its `q = query_linear(x)` asks *“who had my token just before them?”*, and q·k "
              "is large exactly at the token after the earlier occurrence. `value_linear` carries that token's "
              "content, and `output_linear` writes it where the prediction is read: the copy. Layer 2's keys are "
              "built from a stream that layer 1 already shifted by one position (K-composition); neither layer "
              "alone can do it.",
        "ko": "강의 코드에서 층 하나는 `x = x + mha(x, x, x, mask)`입니다. 출력이 잔차 스트림에 **더해집니다**. 1층의 "
              "이전 토큰 헤드는 각 위치에 바로 앞 토큰의 내용을 적어 넣습니다. 2층은 그 스트림으로 "
              "`k = key_linear(x)`를 계산하므로, 각 키는 “내 앞 토큰은 …였다”를 담습니다. "
              "`q = query_linear(x)`는 “바로 앞에 내 토큰이 있었던 자리는 어디인가?”를 묻고, q·k는 정확히 앞서 "
              "나온 자리의 다음 토큰에서 커집니다. `value_linear`가 그 토큰의 내용을 실어 오고, `output_linear`가 "
              "예측을 읽는 곳에 적습니다. 이것이 복사입니다. 2층의 키는 1층이 이미 한 칸 밀어 놓은 스트림으로 "
              "만들어지며(K-합성), 어느 한 층만으로는 할 수 없습니다.",
    },
    "ind_ablate_title": {"en": "Switch the layer-1 head off", "ko": "1층 헤드 끄기"},
    "ind_ablate_text": {
        "en": "Layer 2 builds on layer-1 head {head}: switching it off lowers the induction score most (its "
              "previous-token score {prev}, same-token score {dup}). Off means `trace(head_mask=...)`: its output "
              "is left out of the residual stream, the parameters are untouched.",
        "ko": "2층은 1층 헤드 {head}에 기대고 있습니다. 이 헤드를 끄면 인덕션 점수가 가장 크게 떨어집니다(이전 토큰 "
              "점수 "
              "{prev}, 같은 토큰 점수 {dup}). 끈다는 것은 `trace(head_mask=...)`로 그 출력을 잔차 스트림에서 빼는 "
              "것이며, 파라미터는 그대로입니다.",
    },
    "ind_ablate_toggle": {"en": "Switch layer-1 head {head} off", "ko": "1층 헤드 {head} 끄기"},
    "ind_metric_induction": {"en": "Best induction score (held-out)", "ko": "최고 인덕션 점수(검증용)"},
    "ind_metric_copy_loss": {"en": "Copy loss (held-out, nats)", "ko": "복사 손실(검증용, nat)"},
    "ind_metric_text_loss": {"en": "Copy loss on your text", "ko": "여러분의 문장에서 복사 손실"},
    "ind_ablate_caption": {
        "en": "Layer 2 with layer-1 head {head} off, on your text: the induction stripe is gone, and the loss on "
              "the repeat rises.",
        "ko": "1층 헤드 {head}을(를) 끈 2층을 여러분의 문장에 적용한 모습입니다. 인덕션 줄무늬가 사라지고 반복 구간의 "
              "손실이 "
              "올라갑니다.",
    },
    "ind_export_title": {"en": "Export both layers", "ko": "두 층 내보내기"},
    "ind_download": {"en": "Layer {n} (.pt)", "ko": "{n}층 (.pt)"},
    "ind_download_help": {
        "en": "Each file is one layer's state_dict at the snapshot shown: "
              "`MultiHeadAttention({d_model}, {num_heads}).load_state_dict(torch.load(path))` loads it into the "
              "course's class.",
        "ko": "파일마다 지금 보이는 스냅숏의 층 하나의 state_dict입니다. "
              "`MultiHeadAttention({d_model}, {num_heads}).load_state_dict(torch.load(path))`로 강의의 클래스에 "
              "불러올 수 있습니다.",
    },
}
