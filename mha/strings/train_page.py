"""Strings of the Train page (prefix ``tp_``) and of the live-training UI shared with the Induction page (``lv_``)."""
STRINGS = {
    "nav_train": {"en": "Train heads", "ko": "헤드 학습"},
    "home_train": {
        "en": "Train the course's module on a small copying task in a second or two and watch its heads become a "
              "previous-word head, a next-word head, … on your own sentence.",
        "ko": "강의의 모듈을 간단한 복사 과제로 1~2초 동안 학습시키고, 내 문장 위에서 헤드들이 이전 단어 헤드, "
              "다음 단어 헤드 등으로 바뀌는 모습을 봅니다.",
    },
    # --- the live-training UI (mha.app.sections.live)
    "lv_train": {"en": "Train", "ko": "학습 시작"},
    "lv_stop": {"en": "Stop", "ko": "멈추기"},
    "lv_starting": {"en": "Starting…", "ko": "시작하는 중…"},
    "lv_progress": {"en": "Step {step} of {total} · {seconds} s", "ko": "{total}단계 중 {step}단계 · {seconds}초"},
    "lv_scrub": {"en": "Snapshot: the parameters after this many steps", "ko": "스냅숏: 이 단계까지 학습한 파라미터"},
    "lv_scrub_help": {
        "en": "Scrub back through training: the charts below show the module as it was after that step.",
        "ko": "학습 과정을 되돌려 봅니다. 아래 그림은 그 단계를 마친 직후의 모듈을 보여 줍니다.",
    },
    "lv_ch_step": {"en": "step", "ko": "단계"},
    "lv_ch_loss": {"en": "loss", "ko": "손실(loss)"},
    "lv_ch_head": {"en": "head", "ko": "헤드"},
    "lv_ch_plateau": {"en": "plateau", "ko": "정체 구간"},
    "lv_ch_drop": {"en": "phase change", "ko": "상전이"},
    "lv_ch_shown": {"en": "shown", "ko": "표시 중"},
    "lv_ch_score": {"en": "score", "ko": "점수"},
    # --- the Train page
    "tp_title": {"en": "Train the heads", "ko": "헤드 학습시키기"},
    "tp_intro": {
        "en": "Random parameters give nearly even attention weights. Here the course's `MultiHeadAttention` learns a "
              "small copying task in a second or two, and you watch its heads become a *previous word* head, a "
              "*next word* head, … on your own sentence from the sidebar.",
        "ko": "무작위 파라미터에서는 어텐션 가중치가 거의 고르게 퍼집니다. 여기서는 강의의 `MultiHeadAttention`이 "
              "간단한 복사 과제를 1~2초 만에 학습하고, 사이드바에 적은 여러분의 문장 위에서 헤드들이 *이전 단어* "
              "헤드, *다음 단어* 헤드 등으로 바뀌어 가는 모습을 볼 수 있습니다.",
    },
    "tp_task": {"en": "Task", "ko": "과제"},
    "tp_task_help": {
        "en": "Previous, next or first word: copy that word; reverse order: the word at the mirrored position; same "
              "word earlier: the first place the same word appears; previous and next: both at once (needs 2 heads); "
              "four at once: needs 4 heads. The link carries the task's short id (previous, next, …).",
        "ko": "이전·다음·첫 단어: 그 단어를 복사; 역순: 거울 위치의 단어; 앞에 나온 같은 단어: 같은 단어가 처음 "
              "나온 자리; 이전과 다음: 둘을 한꺼번에(헤드 2개 필요); 네 가지 한꺼번에: 헤드 4개 필요. 링크에는 "
              "언어와 상관없이 같은 과제의 짧은 id가 들어갑니다.",
    },
    "tp_d_model_help": {
        "en": "Size of each token's vector. Training is kept to d_model ≤ {max} so that it takes seconds.",
        "ko": "각 토큰 벡터의 크기입니다. 학습이 몇 초 안에 끝나도록 d_model은 {max} 이하로 제한합니다.",
    },
    "tp_steps": {"en": "Steps", "ko": "학습 단계 수"},
    "tp_steps_help": {
        "en": "Adam updates, one batch of 64 random 10-token sequences each. This task's default: {default}.",
        "ko": "Adam 업데이트 횟수입니다(한 번에 10토큰짜리 무작위 시퀀스 64개). 이 과제의 기본값: {default}.",
    },
    "tp_seed_help": {
        "en": "The starting parameters and the training batches. The same settings give the same trained "
              "parameters, bit for bit: that is why a link can carry settings instead of weights.",
        "ko": "시작 파라미터와 학습 배치를 정합니다. 설정이 같으면 학습된 파라미터도 비트 하나까지 같습니다. 그래서 "
              "링크에 가중치 대신 설정만 담으면 됩니다.",
    },
    "tp_layout": {"en": "Input layout", "ko": "입력 배치"},
    "tp_layout_help": {
        "en": "How a token's content and its position share the d_model features of the input x.",
        "ko": "입력 x의 d_model 특성을 토큰의 내용과 위치가 어떻게 나눠 쓰는지 정합니다.",
    },
    "tp_too_few_heads": {
        "en": "This task needs at least {need} heads (one per place a query must read); with {heads}, some part of "
              "the output cannot be learned. Try it, then compare.",
        "ko": "이 과제에는 헤드가 적어도 {need}개 필요합니다(쿼리가 읽어야 할 자리마다 하나). {heads}개로는 출력의 "
              "일부를 배울 수 없습니다. 직접 해 보고 비교해 보세요.",
    },
    "tp_added_note": {
        "en": "With the added layout, expect the loss to stall: see “Why the input layout matters” below.",
        "ko": "더한 배치에서는 손실이 줄지 않고 멈출 것입니다. 아래 ‘입력 배치가 중요한 이유’를 보세요.",
    },
    "tp_probe": {
        "en": "The heads are drawn on your sentence from the sidebar ({n} tokens); change it there at any time, "
              "even after training.",
        "ko": "헤드는 사이드바에 적은 문장({n}토큰) 위에 그려집니다. 학습이 끝난 뒤에도 언제든 바꿀 수 있습니다.",
    },
    "tp_probe_cut": {
        "en": "Your sentence has {n} tokens; training follows the first {max}.",
        "ko": "문장이 {n}토큰이어서 앞의 {max}토큰만 따라갑니다.",
    },
    "tp_press_train": {
        "en": "Press **Train**: a few hundred steps take a second or two. Training runs here, on this server, with "
              "the course's module.",
        "ko": "**학습 시작**을 누르세요. 수백 단계가 1~2초면 끝납니다. 학습은 이 서버에서 강의의 모듈로 직접 "
              "진행됩니다.",
    },
    "tp_cannot_train": {"en": "These settings cannot be trained: {detail}", "ko": "이 설정으로는 학습할 수 없습니다: "
                                                                                  "{detail}"},
    "tp_loss_title": {"en": "Training loss (log scale)", "ko": "학습 손실(로그 눈금)"},
    "tp_done": {
        "en": "Trained {steps} steps in {seconds} s; loss at the end ≈ {loss}.",
        "ko": "{steps}단계를 {seconds}초 동안 학습했습니다. 마지막 손실 ≈ {loss}.",
    },
    "tp_stopped": {
        "en": "Stopped after {done} of {total} steps. The steps box now says {done}, so the link trains exactly this.",
        "ko": "{total}단계 중 {done}단계에서 멈췄습니다. 단계 수가 {done}(으)로 바뀌었으니 링크는 정확히 이 학습을 "
              "다시 합니다.",
    },
    "tp_heads_title": {"en": "The heads on your sentence after {step} steps", "ko": "{step}단계 학습 후, 여러분의 문장 "
                                                                                    "위의 헤드"},
    "tp_heads_caption": {
        "en": "Attention weights of every head: rows are queries, columns the keys they attend to. A perfect "
              "“previous word” head is one dark cell per row, just left of the diagonal.",
        "ko": "모든 헤드의 어텐션 가중치입니다. 행은 쿼리, 열은 쿼리가 바라보는 키입니다. 완벽한 ‘이전 단어’ 헤드는 "
              "행마다 대각선 바로 왼쪽 칸 하나만 진합니다.",
    },
    "tp_goal_title": {"en": "How close each head got", "ko": "각 헤드가 얼마나 가까워졌나"},
    "tp_slot_line": {
        "en": "{ok} **{slot}**: head {head} puts {score} of its weight on the right key, on fresh sequences like "
              "the training ones (goal {goal}); on your sentence, head {probe_head} matches the perfect pattern "
              "at {probe_score}.",
        "ko": "{ok} **{slot}**: 학습 때와 같은 새 시퀀스에서 헤드 {head}이(가) 가중치의 {score}을(를) 올바른 키에 "
              "둡니다"
              "(목표 {goal}). 여러분의 문장에서는 헤드 {probe_head}이(가) 완벽한 패턴과 {probe_score}만큼 맞습니다.",
    },
    "tp_reverse_length": {
        "en": "Your sentence has {n} tokens, the training sequences {seq_len}: the learned mirror is around "
              "position {seq_len}, so on your sentence it lands elsewhere. A {seq_len}-token sentence shows it whole.",
        "ko": "문장은 {n}토큰, 학습 시퀀스는 {seq_len}토큰입니다. 학습한 거울 위치는 {seq_len}토큰 기준이라 여러분의 "
              "문장에서는 다른 곳을 가리킵니다. {seq_len}토큰 문장이면 온전히 보입니다.",
    },
    "tp_head_match": {"en": "head {head}: {pattern} ({score})", "ko": "헤드 {head}: {pattern} ({score})"},
    "tp_heads_match": {"en": "Closest known pattern on your sentence: {heads}.",
                       "ko": "여러분의 문장에서 가장 가까운 패턴: {heads}."},
    "tp_explore": {"en": "Explore these trained heads on every page", "ko": "이 학습된 헤드를 모든 페이지에서 "
                                                                            "살펴보기"},
    "tp_explore_help": {
        "en": "Opens the Playground with the sidebar's weights set to “trained” with these settings (a new tab).",
        "ko": "사이드바의 가중치를 이 설정으로 ‘학습됨’으로 바꾼 놀이터를 새 탭으로 엽니다.",
    },
    "tp_explore_added": {
        "en": "The other pages use trained weights of the content | position layout: switch the layout to split to "
              "take these heads there.",
        "ko": "다른 페이지는 내용 | 위치 배치로 학습한 가중치를 씁니다. 배치를 **나눔**으로 바꾸면 그 헤드를 가져갈 수 "
              "있습니다.",
    },
    "tp_download": {"en": "Download the trained module (.pt)", "ko": "학습된 모듈 내려받기 (.pt)"},
    "tp_download_help": {
        "en": "A state_dict: `MultiHeadAttention({d_model}, {num_heads}).load_state_dict(torch.load(path))` loads it "
              "into the course's class.",
        "ko": "state_dict입니다. `MultiHeadAttention({d_model}, {num_heads}).load_state_dict(torch.load(path))`로 "
              "강의의 클래스에 불러올 수 있습니다.",
    },
    "tp_layout_title": {"en": "Why the input layout matters", "ko": "입력 배치가 중요한 이유"},
    "tp_layout_text": {
        "en": "A head finds “the previous word” through q·k: the query's position must line up with the key's "
              "position. With the **added** layout (the Playground's inputs: content over all d_model features, "
              "positions added on top), every feature mixes a random content value with a small position value, "
              "so the content's noise swamps the positional signal in q·k and the loss stalls (around 0.8 on "
              "*previous*, where split reaches ~1e-4). With **split** (content in the first half of the features, "
              "position in the second), `query_linear` and `key_linear` can read the position half alone. Pick "
              "*added* above and press Train to see it stall.",
        "ko": "헤드는 q·k로 ‘이전 단어’를 찾습니다. 쿼리의 위치와 키의 위치가 맞아떨어져야 합니다. **더한** 배치"
              "(놀이터의 입력: 내용이 d_model 특성 전체에 있고 그 위에 위치를 더함)에서는 모든 특성에 무작위 내용 값과 "
              "작은 위치 값이 섞여 있어서, q·k에서 내용의 잡음이 위치 신호를 덮고 손실이 줄지 않습니다(*이전 단어* "
              "과제에서 약 0.8, 나눈 배치는 약 1e-4). **나눈** 배치(앞 절반은 내용, 뒤 절반은 위치)에서는 "
              "`query_linear`와 "
              "`key_linear`가 위치 절반만 읽을 수 있습니다. 위에서 **더한** 배치를 고르고 학습해 보면 멈추는 것을 볼 "
              "수 "
              "있습니다.",
    },
    "tp_compare_title": {"en": "One head or two? Previous and next at once", "ko": "헤드 하나, 아니면 둘? 이전과 "
                                                                                   "다음을 한꺼번에"},
    "tp_compare_text": {
        "en": "Task *prev_next*: the first half of the output needs the previous word, the second half the next one. "
              "One head can put its weight in one place per query, so one head must choose; two heads can each "
              "take one. This is the course's reason for several heads, measured.",
        "ko": "*이전과 다음* 과제: 출력의 앞 절반에는 이전 단어, 뒤 절반에는 다음 단어가 필요합니다. 헤드 하나는 "
              "쿼리마다 한 곳에만 가중치를 둘 수 있으니 하나를 골라야 하고, 헤드 둘이면 하나씩 맡을 수 있습니다. "
              "강의에서 말하는 ‘여러 헤드가 필요한 이유’를 직접 재 보는 것입니다.",
    },
    "tp_compare_toggle": {"en": "Train both: 1 head and 2 heads", "ko": "둘 다 학습: 헤드 1개와 2개"},
    "tp_n_heads": {"en": "{n:plural:head|heads}", "ko": "헤드 {n}개"},
    "tp_compare_loss": {
        "en": "prev_next, d_model={d_model}, {steps} steps: loss (log scale)",
        "ko": "prev_next, d_model={d_model}, {steps}단계: 손실(로그 눈금)",
    },
    "tp_compare_result": {
        "en": "With 1 head the loss stays near **{one}**: half of the output cannot be copied. With 2 heads it falls "
              "to **{two}**, and the heads split the work: {roles}.",
        "ko": "헤드 1개로는 손실이 **{one}** 근처에 머뭅니다. 출력의 절반을 복사할 수 없기 때문입니다. 헤드 2개면 "
              "**{two}**까지 내려가고, 헤드들이 일을 나눕니다: {roles}.",
    },
}
