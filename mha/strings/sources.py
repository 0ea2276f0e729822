"""Weight sources (random / trained / pretrained): the sidebar controls, the note on every page, the badge, and
the messages of ``mha.weights.pretrained_files.PretrainedError`` (its keys are the ``err_*`` below, with the same
placeholders)."""

STRINGS = {
    # --- the source picker
    "src_source": {"en": "Weights", "ko": "가중치(파라미터)"},
    "src_source_help": {
        "en": "Which parameters the module runs on. random: drawn from the seed, as in the course. trained: the "
              "course's module trained here, in a second or two, on a small task (previous word, next word, ...). "
              "pretrained: one attention layer of a real model, on the hidden states the model gives that layer.",
        "ko": "모듈이 어떤 파라미터로 실행될지 고릅니다. 무작위: 시드로 뽑은 값(강의와 같음). 학습됨: 강의의 모듈을 "
              "여기서 "
              "1~2초 동안 작은 과제(이전 단어, 다음 단어 등)로 학습한 값. 사전학습: 실제 모델의 어텐션 층 하나를, "
              "모델이 그 층에 주는 은닉 상태 위에서 실행합니다.",
    },
    # short, so the three fit the sidebar in two rows at most; the caption under them says what trained and pretrained
    # are (random needs none: the note above every page and the Playground's first line say it, and a 1000 px window
    # must still show the causal mask without scrolling: tests/browser/test_home_browser.py)
    "src_name_random": {"en": "random", "ko": "무작위"},
    "src_name_trained": {"en": "trained", "ko": "학습됨"},
    "src_name_pretrained": {"en": "pretrained", "ko": "사전학습"},
    "src_caption_trained": {"en": "The course's module, trained here on a task (cached: the same settings train once).",
                            "ko": "강의의 모듈을 여기서 과제로 학습했습니다(캐시됨: 같은 설정은 한 번만 학습)."},
    "src_caption_pretrained": {"en": "One attention layer of a real model, in the course's module.",
                               "ko": "실제 모델의 어텐션 층 하나를 강의의 모듈에 담았습니다."},
    # --- trained
    "src_task": {"en": "Task", "ko": "과제"},
    "src_task_help": {"en": "What the module is trained to copy into each position. The Train page shows the training "
                            "itself.",
                      "ko": "각 위치에 무엇을 복사하도록 학습하는지. 학습 과정 자체는 ‘헤드 학습’ 페이지에서 볼 수 "
                            "있습니다."},
    "src_train_steps": {"en": "Training steps", "ko": "학습 단계 수"},
    "src_train_steps_placeholder": {"en": "the task's budget: {steps}", "ko": "과제의 기본값: {steps}"},
    "src_train_steps_help": {
        "en": "Optimizer steps (1 to {max_steps}). Empty: the task's own budget, enough to reach its goal.",
        "ko": "옵티마이저 단계 수(1~{max_steps}). 비워 두면 과제의 기본값(목표에 닿기에 충분한 값)을 씁니다.",
    },
    "src_trained_dmodel": {
        "en": "Trained weights go up to d_model={max}: d_model {old} became {new}.",
        "ko": "학습된 가중치는 d_model={max}까지입니다: d_model {old}을(를) {new}(으)로 바꿨습니다.",
    },
    "src_training": {"en": "Training the module on “{task}” ({steps} steps)…",
                     "ko": "“{task}” 과제로 모듈을 학습하는 중({steps}단계)…"},
    # --- pretrained
    "src_model_list": {"en": "Model", "ko": "모델"},
    # the sidebar's box shows ~30 characters: longer was cut ("another model: type its id or fold…", #26.6)
    "src_model_other": {"en": "another model: type it below", "ko": "다른 모델: 아래에 입력"},
    "src_model": {"en": "Model id or local folder", "ko": "모델 id 또는 로컬 폴더"},
    "src_model_help": {
        "en": "A Hugging Face model id (BERT, RoBERTa, ELECTRA, DistilBERT or GPT-2 family) or a folder on this "
              "server holding save_pretrained output (model and tokenizer).",
        "ko": "Hugging Face 모델 id(BERT, RoBERTa, ELECTRA, DistilBERT, GPT-2 계열) 또는 이 서버에 있는 "
              "save_pretrained 결과 폴더(모델과 토크나이저)입니다.",
    },
    "src_layer": {"en": "Layer (0 to {last})", "ko": "층(0~{last})"},
    "url_layer_past_last": {
        "en": "Link parameter {param}={given}: this model has {n:plural:layer|layers} (0 to {last}); showing the last "
              "one, layer {last}.",
        "ko": "링크의 {param}={given}: 이 모델의 층은 {n}개(0~{last})뿐이라 마지막 층 {last}을(를) 보여 줍니다.",
    },
    "src_layer_help": {"en": "Which of the model's {n} attention layers. Its input is what the layers below give it.",
                       "ko": "모델의 어텐션 층 {n}개 중 어느 것인지. 입력은 아래층들이 건네주는 값입니다."},
    "src_downloading": {"en": "Downloading {done:.0f} of {total:.0f} MB…", "ko": "{total:.0f} MB 중 {done:.0f} MB "
                                                                                 "내려받는 "
                                                                                 "중…"},
    "src_loading": {"en": "Loading {mb:.0f} MB of weights…", "ko": "가중치 {mb:.0f} MB를 불러오는 중…"},
    "src_model_info": {
        "en": "{family}: {layers} layers, {heads} heads, d_model {d_model}, {kind}.",
        "ko": "{family}: 층 {layers}개, 헤드 {heads}개, d_model {d_model}, {kind}.",
    },
    "src_kind_decoder": {"en": "decoder (causal)", "ko": "디코더(인과적)"},
    "src_kind_encoder": {"en": "encoder", "ko": "인코더"},
    "src_locked_help": {"en": "Set by the model: a pretrained layer keeps its own sizes.",
                        "ko": "모델이 정합니다: 사전학습된 층은 자기 크기를 그대로 씁니다."},
    "src_locked_sizes": {"en": "d_model and num_heads come from the model (locked).",
                         "ko": "d_model과 num_heads는 모델이 정합니다(고정)."},
    "src_causal_model": {"en": "Fixed by the model: a decoder is causal, an encoder is not.",
                         "ko": "모델이 정합니다: 디코더는 인과적이고 인코더는 그렇지 않습니다."},
    "src_padding_model": {"en": "As the model pads: padding keys are never attended to.",
                          "ko": "모델의 패딩 방식 그대로: 패딩 키에는 어텐션하지 않습니다."},
    "src_not_apply": {"en": "Does not apply to a pretrained layer: {what}.",
                      "ko": "사전학습된 층에는 해당하지 않습니다: {what}."},
    "src_not_apply_seed": {"en": "the parameters and inputs come from the model, not from a seed",
                           "ko": "파라미터와 입력이 시드가 아니라 모델에서 옵니다"},
    "src_not_apply_positional": {"en": "the model adds its own positions in its embeddings",
                                 "ko": "모델이 임베딩에서 자기 위치 정보를 더합니다"},
    "src_not_apply_kv_text": {"en": "the layer is self-attention over the model's own hidden states",
                              "ko": "이 층은 모델 자신의 은닉 상태에 대한 자기어텐션입니다"},
    "src_page_needs_model": {
        "en": "Choose a model that loads: the message next to the model control, in the sidebar, says what went wrong.",
        "ko": "불러올 수 있는 모델을 고르세요: 사이드바의 모델 입력 옆 메시지가 무엇이 잘못됐는지 알려 줍니다.",
    },
    # --- the note on every page
    "src_note_random": {
        "en": "Weights: **random** (seed {seed}). To see heads that do something, pick *trained* or *pretrained* "
              "weights in the sidebar.",
        "ko": "가중치: **무작위**(시드 {seed}). 무언가를 하는 헤드를 보려면 사이드바에서 *학습됨* 또는 "
              "*사전학습* 가중치를 고르세요.",
    },
    "src_note_trained": {
        "en": "Weights: **trained** on “{task}” ({steps} steps, seed {seed}, d_model {d_model}, {num_heads} heads). "
              "Inputs use the layout it was trained with: content in the first {half} features, position in the "
              "rest (the Step by step page shows both parts).",
        "ko": "가중치: “{task}” 과제로 **학습됨**({steps}단계, 시드 {seed}, d_model {d_model}, 헤드 {num_heads}개). "
              "입력은 학습 때의 배치를 씁니다: 앞의 특성 {half}개에 내용, 나머지에 위치(단계별 페이지에서 두 부분을 "
              "볼 수 있습니다).",
    },
    "src_trained_long": {
        "en": "Your sentence has {n} tokens, but the trained heads learned on sequences of {train_len} tokens: past "
              "the first {train_len} they have never seen a position, and they look in the wrong place there (a "
              "“previous word” head jumps to far-away keys). A sentence of at most {train_len} tokens shows what "
              "they learned.",
        "ko": "내 문장의 토큰은 {n}개인데, 학습된 헤드들은 토큰 {train_len}개짜리 시퀀스로 배웠습니다. 처음 "
              "{train_len}개 "
              "뒤의 위치는 본 적이 없어서 그곳에서는 엉뚱한 곳을 봅니다(‘이전 단어’ 헤드가 멀리 떨어진 키로 "
              "건너뜁니다). 토큰 {train_len}개 이하의 문장에서 배운 것이 제대로 보입니다.",
    },
    "src_note_pretrained": {
        "en": "Weights: **pretrained**, {model}, layer {layer} of {num_layers} (d_model {d_model}, {num_heads} heads, "
              "with Q/K/V biases). Tokens are the model's own; the layer's input is the model's hidden states.",
        "ko": "가중치: **사전학습**, {model}의 층 {layer}(전체 {num_layers}개 중; d_model {d_model}, 헤드 "
              "{num_heads}개, Q/K/V 편향 포함). 토큰은 모델 자신의 것이고, 층의 입력은 모델의 은닉 상태입니다.",
    },
    "src_badge_ok": {"en": "equal to the model's attention: max difference {diff:.1e}",
                     "ko": "모델의 어텐션과 같음: 최대 차이 {diff:.1e}"},
    "src_badge_bad": {"en": "differs from the model's attention: max difference {diff:.1e} (above {tol:.0e})",
                      "ko": "모델의 어텐션과 다름: 최대 차이 {diff:.1e}({tol:.0e} 초과)"},
    "src_badge_help": {
        "en": "The largest difference, over every sentence, between our module's attention weights and the model's "
              "own output_attentions for this layer (eager attention, float32), on the real tokens' rows: the rows "
              "of padded queries, which no chart shows, are left out. Target: at most {tol:.0e}.",
        "ko": "모든 문장에 걸쳐, 우리 모듈의 어텐션 가중치와 이 층에 대한 모델 자신의 output_attentions(`eager` "
              "어텐션, float32) 사이의 가장 큰 차이입니다. 실제 토큰의 행만 비교하며, 어느 차트에도 나오지 않는 "
              "패딩 쿼리의 행은 뺍니다. 목표: {tol:.0e} 이하.",
    },
    "src_tokens_pieces": {"en": "The model's pieces: {pairs}", "ko": "모델의 토큰 조각: {pairs}"},
    "src_coverage": {
        "en": "This model's vocabulary does not cover the sentence shown. Of its {pieces:plural:piece|pieces}: "
              "{unknown} [UNK] (unknown to the model), {below} split below a letter (Hangul into jamo, or a "
              "character into bytes). The labels show the character such a piece is part of, with its own letter: "
              "나(ㄴ); the hover shows the raw piece.",
        "ko": "이 모델의 어휘는 보이는 문장을 다 담지 못합니다. 조각 {pieces}개 가운데 {unknown}개가 [UNK](모델이 "
              "모르는 토큰)이고, {below}개는 글자보다 작게 쪼개졌습니다(한글이 자모로, 또는 한 글자가 바이트로). "
              "레이블은 그런 조각이 속한 글자와 그 조각의 낱자를 함께 보여 줍니다: 나(ㄴ). 마우스를 올리면 원래 "
              "조각이 보입니다.",
    },
    "src_coverage_models_ko": {"en": "For Korean text the short list has {models}.",
                               "ko": "한국어 텍스트에는 목록의 {models} 모델이 맞습니다."},
    "src_coverage_models_en": {"en": "For English text the short list has {models}.",
                               "ko": "영어 텍스트에는 목록의 {models} 모델이 맞습니다."},
    "src_upload_not_used": {"en": "Your uploaded file is not used with a pretrained layer: the model's own parameters "
                                  "are.",
                            "ko": "업로드한 파일은 사전학습된 층에는 쓰이지 않습니다: 모델 자신의 파라미터를 씁니다."},
    # --- where a page's part does not apply
    "src_heads_order_pretrained": {
        "en": "Shuffling and switching positions off need our own inputs: a pretrained layer's input already holds "
              "the model's positions, mixed in by the layers below. Try it with random or trained weights.",
        "ko": "섞기와 위치 끄기는 우리 입력이 필요합니다: 사전학습된 층의 입력에는 아래층들이 섞어 넣은 모델의 위치 "
              "정보가 이미 들어 있습니다. 무작위나 학습됨 가중치로 해 보세요.",
    },
    "src_heads_seeds_pretrained": {
        "en": "Seeds do not apply: a pretrained layer's parameters come from the model.",
        "ko": "시드는 해당하지 않습니다: 사전학습된 층의 파라미터는 모델에서 옵니다.",
    },
    "src_heads_seeds_trained": {
        "en": "Each seed is its own module, trained on the same task from that seed's random start.",
        "ko": "시드마다 그 시드의 무작위 시작점에서 같은 과제로 학습한 별개의 모듈입니다.",
    },
    "src_bugs_biases": {
        "en": "The bugs run on this layer's parameters, its Q/K/V biases included: each bug changes one line, the "
              "biases stay where they are.",
        "ko": "버그들은 이 층의 파라미터(Q/K/V 편향 포함)로 실행됩니다: 각 버그는 한 줄만 바꾸고 편향은 그대로입니다.",
    },
    "src_explain_model_x": {
        "en": "With a pretrained layer, x is the model's hidden state at this layer (its embeddings, positions and "
              "the layers below, mixed): there is no separate embedding or position table of ours to show.",
        "ko": "사전학습된 층에서 x는 이 층에서의 모델 은닉 상태(임베딩, 위치, 아래층들이 섞인 값)입니다: 따로 보여 "
              "줄 우리만의 임베딩이나 위치 표가 없습니다.",
    },
    "src_explain_bias": {
        "en": "This pretrained layer's three projections have biases (bias=True), unlike the course's: each of Q, K "
              "and "
              "V is x @ Wᵀ + b. Everything after this step is the course's code unchanged.",
        "ko": "이 사전학습된 층의 세 투영에는 강의와 달리 편향이 있습니다(bias=True): Q, K, V 각각이 x @ Wᵀ + b입니다. "
              "이 단계 이후는 강의 코드 그대로입니다.",
    },
    "src_explain_split": {
        "en": "Trained weights use the layout they were trained with: x = [content | position]. The content (which "
              "word) fills the first {half} features, the position the other {rest}; so a query can match keys by "
              "position without the words getting in the way. Added together on the same features (the random "
              "weights' layout), the content noise swamps the positions and training stalls.",
        "ko": "학습된 가중치는 학습 때의 배치를 씁니다: x = [내용 | 위치]. 내용(어떤 단어인지)이 앞의 특성 {half}개를, "
              "위치가 나머지 {rest}개를 채웁니다. 그래서 쿼리가 단어에 방해받지 않고 위치로 키를 찾을 수 있습니다. "
              "같은 특성에 더해 버리면(무작위 가중치의 배치) 내용의 잡음이 위치 신호를 덮어 학습이 멈춥니다.",
    },
    "src_export_bias": {
        "en": "A pretrained layer has Q/K/V biases, which the course's class does not: load it with "
              "`MultiHeadAttention(d_model, num_heads, qkv_bias=True)` from this app's `mha`.",
        "ko": "사전학습된 층에는 강의의 클래스에 없는 Q/K/V 편향이 있습니다: 이 앱의 `mha`에서 "
              "`MultiHeadAttention(d_model, num_heads, qkv_bias=True)`로 불러오세요.",
    },
    # --- what each head does (Heads page)
    "src_head_names": {"en": "What each head does", "ko": "헤드마다 하는 일"},
    "src_head_names_help": {
        "en": "Each head's closest known pattern and how close (1 = exactly that pattern, on this sentence's real "
              "tokens). Random heads rarely score high; trained and pretrained heads often do.",
        "ko": "헤드마다 가장 가까운 알려진 패턴과 그 정도(1 = 정확히 그 패턴, 이 문장의 실제 토큰 기준). 무작위 헤드는 "
              "점수가 거의 높지 않고, 학습된 헤드와 사전학습된 헤드는 자주 높습니다.",
    },
    "src_col_head": {"en": "head", "ko": "헤드"},
    "src_col_pattern": {"en": "closest pattern", "ko": "가장 가까운 패턴"},
    "src_col_score": {"en": "score", "ko": "점수"},
    "src_col_runner_up": {"en": "next closest", "ko": "그다음"},
    "src_head_names_short": {"en": "Too few tokens to name patterns (at least 2 needed).",
                             "ko": "패턴을 붙이기엔 토큰이 너무 적습니다(2개 이상 필요)."},
    # --- mha.weights.pretrained_files.PretrainedError messages (keys and placeholders as raised there)
    "err_cap_env": {"en": "MHA_MAX_MODEL_MB={value} is not a whole number of MB: set e.g. MHA_MAX_MODEL_MB=800, or "
                          "unset it.",
                    "ko": "MHA_MAX_MODEL_MB={value}은(는) MB 단위의 정수가 아닙니다: 예를 들어 "
                          "MHA_MAX_MODEL_MB=800으로 "
                          "설정하거나 설정을 지우세요."},
    "err_unsupported": {
        "en": "This model's architecture ({model_type}) is not supported: choose a BERT, RoBERTa, ELECTRA, DistilBERT "
              "or GPT-2 model, for example google/bert_uncased_L-4_H-256_A-4.",
        "ko": "이 모델의 구조({model_type})는 지원하지 않습니다: BERT, RoBERTa, ELECTRA, DistilBERT, GPT-2 계열 모델을 "
              "고르세요. 예: google/bert_uncased_L-4_H-256_A-4.",
    },
    "err_unsupported_scaling": {
        "en": "This GPT-2 model ({model_type}) scales its attention scores in its own way, not by 1/sqrt(head_dim) "
              "like the course: choose a standard GPT-2 model.",
        "ko": "이 GPT-2 모델({model_type})은 어텐션 점수를 강의처럼 1/sqrt(head_dim)이 아닌 자기 방식으로 나눕니다: "
              "표준 GPT-2 모델을 고르세요.",
    },
    "err_too_large": {
        "en": "{source} has {size_mb} MB of weights, above this server's limit of {max_mb} MB: choose a smaller "
              "model, or raise the limit with MHA_MAX_MODEL_MB.",
        "ko": "{source}의 가중치는 {size_mb} MB로 이 서버의 한도 {max_mb} MB를 넘습니다: 더 작은 모델을 고르거나 "
              "MHA_MAX_MODEL_MB로 한도를 올리세요.",
    },
    "err_folder_outside": {
        "en": "Local model folders must be inside {root} on this server: save the model there with save_pretrained, "
              "or use its hub id.",
        "ko": "이 서버에서 로컬 모델 폴더는 {root} 안에 있어야 합니다: save_pretrained로 그곳에 저장하거나 허브 id를 "
              "쓰세요.",
    },
    "err_folder_incomplete": {
        "en": "The folder {folder} is not a complete saved model: it needs config.json, the weights "
              "(model.safetensors or pytorch_model.bin) and the tokenizer files. Save both there with "
              "model.save_pretrained(folder) and tokenizer.save_pretrained(folder).",
        "ko": "{folder} 폴더는 완전한 저장 모델이 아닙니다: config.json, 가중치(model.safetensors 또는 "
              "pytorch_model.bin), 토크나이저 파일이 필요합니다. model.save_pretrained(folder)와 "
              "tokenizer.save_pretrained(folder)로 함께 저장하세요.",
    },
    "err_hub_unreachable": {
        "en": "The Hugging Face hub cannot be reached from this server, and {source} is not in its download cache. On "
              "a machine online, save the model and its tokenizer to a folder with save_pretrained, copy the folder "
              "here, and enter its path instead of the id.",
        "ko": "이 서버에서 Hugging Face 허브에 접속할 수 없고, {source}은(는) 내려받기 캐시에도 없습니다. 인터넷이 "
              "되는 "
              "컴퓨터에서 모델과 토크나이저를 save_pretrained로 폴더에 저장해 이 서버로 복사한 뒤, id 대신 그 "
              "경로를 입력하세요.",
    },
    "err_hub_timeout": {
        "en": "The Hugging Face hub did not answer within {seconds} s, and {source} is not in this server's download "
              "cache: try again in a minute, or choose another model.",
        "ko": "Hugging Face 허브가 {seconds}초 안에 응답하지 않았고, {source}은(는) 이 서버의 내려받기 캐시에 "
              "없습니다: "
              "1분 뒤에 다시 시도하거나 다른 모델을 고르세요.",
    },
    "err_source_refused": {
        "en": "This server loads only the models on its list and the folders its host put in its models folder: "
              "choose a model from the list.",
        "ko": "이 서버는 목록에 있는 모델과 관리자가 모델 폴더에 넣어 둔 폴더만 불러옵니다: 목록에서 모델을 고르세요.",
    },
    "err_load_failed_public": {
        "en": "This model could not be loaded: choose another model from the list.",
        "ko": "이 모델을 불러올 수 없습니다: 목록에서 다른 모델을 고르세요.",
    },
    "err_not_found": {"en": "No public model {source} on the Hugging Face hub (or it is gated): check the id, or enter "
                            "a local folder.",
                      "ko": "Hugging Face 허브에 공개 모델 {source}이(가) 없습니다(또는 접근이 제한됨): id를 "
                            "확인하거나 "
                            "로컬 폴더를 입력하세요."},
    "err_no_weights": {"en": "{source} has no config.json or no PyTorch weights (model.safetensors or "
                             "pytorch_model.bin): choose another model.",
                       "ko": "{source}에는 config.json이나 PyTorch 가중치(model.safetensors 또는 pytorch_model.bin)가 "
                             "없습니다: 다른 모델을 고르세요."},
    "err_bad_source": {"en": "{source} is neither a folder on this server nor a Hugging Face model id (like "
                             "google/bert_uncased_L-4_H-256_A-4).",
                       "ko": "{source}은(는) 이 서버의 폴더도, Hugging Face 모델 id(예: "
                             "google/bert_uncased_L-4_H-256_A-4)도 아닙니다."},
    "err_downloads_off": {
        "en": "{source} is not on this server, and this server does not download models: choose a model from the "
              "list, or run the app on your own machine to try any model.",
        "ko": "{source}은(는) 이 서버에 없고, 이 서버는 모델을 내려받지 않습니다: 목록에서 모델을 고르거나, 직접 "
              "컴퓨터에서 앱을 실행해 아무 모델이나 시험해 보세요.",
    },
    "err_layer": {"en": "layer must be a whole number from 0 to {num_layers} minus 1, got {layer}.",
                  "ko": "층 번호는 0부터 {num_layers}-1까지의 정수여야 합니다. 받은 값: {layer}."},
}
