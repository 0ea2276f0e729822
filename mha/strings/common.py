"""Strings of the shared controls, the app frame and the home page."""
STRINGS = {
    "app_title": {"en": "Multi-Head Attention Playground", "ko": "멀티헤드 어텐션 놀이터"},
    "nav_home": {"en": "Home", "ko": "홈"},
    # Streamlit's own words, written over in Korean by a style (mha.app.frame, mha.app.widgets.file_uploader)
    "st_stop": {"en": "Stop", "ko": "중지"},
    "st_stopping": {"en": "Stopping...", "ko": "멈추는 중…"},
    "up_button": {"en": "Upload", "ko": "업로드"},
    "up_instructions": {"en": "{mb}MB per file • {types}", "ko": "파일 하나에 최대 {mb}MB · {types}"},
    "nav_playground": {"en": "Playground", "ko": "놀이터"},
    "ctl_text": {"en": "Sentence", "ko": "문장"},
    "ctl_text_link_cut": {"en": "The link's text has {n_chars:,} characters: its first {max_chars:,} are used.",
                          "ko": "링크의 글이 {n_chars:,}자여서 앞의 {max_chars:,}자만 씁니다."},
    "ctl_text_help": {
        "en": "Any language, emoji and punctuation. Words and symbols become tokens; the first {max_chars} "
              "characters are read.",
        "ko": "어떤 언어, 이모지, 문장부호도 됩니다. 단어와 기호가 토큰이 되며, 앞의 {max_chars}자까지 읽습니다.",
    },
    "ctl_d_model_help": {
        "en": "Size of each token's vector (embedding). It is split evenly between the heads.",
        "ko": "각 토큰 벡터(임베딩)의 크기입니다. 헤드들에 똑같이 나뉩니다.",
    },
    "ctl_num_heads_help": {
        "en": "Number of attention heads. Only divisors of d_model={d_model} are offered: {choices}.",
        "ko": "어텐션 헤드 수입니다. d_model={d_model}의 약수만 고를 수 있습니다: {choices}.",
    },
    "ctl_head_dim": {
        # one line in the sidebar (the two numbers are in the controls right above it)
        "en": "head_dim = d_model / num_heads = **{head_dim}**",
        "ko": "head_dim = d_model / num_heads = **{head_dim}**",
    },
    "note_heads_adjusted": {
        "en": "num_heads {old} does not divide d_model={d_model}, so it is now {new}.",
        "ko": "num_heads {old}은(는) d_model={d_model}의 약수가 아니어서 {new}(으)로 바꿨습니다.",
    },
    "ctl_causal": {"en": "Causal mask", "ko": "인과(causal) 마스크"},
    "ctl_causal_help": {
        "en": "Each token may attend only to itself and earlier tokens, as in a decoder (GPT).",
        "ko": "각 토큰이 자신과 앞쪽 토큰에만 어텐션할 수 있습니다(디코더, GPT 방식).",
    },
    "ctl_positional": {"en": "Positional encoding", "ko": "위치 인코딩"},
    "ctl_positional_help": {
        "en": "Add sinusoidal position vectors to the embeddings. Off: attention cannot tell word order.",
        "ko": "임베딩에 사인파 위치 벡터를 더합니다. 끄면 어텐션은 단어 순서를 구별하지 못합니다.",
    },
    "ctl_seed": {"en": "Random seed", "ko": "무작위 시드"},
    "ctl_head": {"en": "Head", "ko": "헤드"},  # the label of every head picker (mha.app.widgets.head_picker)
    "ctl_seed_help": {
        "en": "The weights and embeddings are random (untrained). Another seed gives other patterns: do not read "
              "meaning into one seed.",
        "ko": "가중치와 임베딩은 무작위(학습 전)입니다. 시드를 바꾸면 패턴도 바뀌니, 한 시드의 모양에 의미를 두지 "
              "마세요.",
    },
    "err_empty_text": {
        "en": "The sentence is empty. Type a few words, e.g. “Orange is my favorite fruit”.",
        "ko": "문장이 비어 있습니다. 몇 단어를 입력해 보세요. 예: “Orange is my favorite fruit”.",
    },
    "note_chars_cut": {
        "en": "The text has {n_chars:,} characters; only the first {max_chars:,} are used.",
        "ko": "글자 수가 {n_chars:,}자라서 앞의 {max_chars:,}자만 사용합니다.",
    },
    "note_tokens_cut": {
        "en": "{n_tokens:,} tokens; only the first {max_tokens} are shown, to keep the app fast.",
        "ko": "토큰이 {n_tokens:,}개라서 앱이 느려지지 않도록 앞의 {max_tokens}개만 보여 줍니다.",
    },
    "note_controls_removed": {
        "en": "{n_removed} invisible control or text-direction characters were removed.",
        "ko": "보이지 않는 제어 문자 또는 텍스트 방향 문자 {n_removed}개를 지웠습니다.",
    },
    "url_param_empty": {"en": "(empty)", "ko": "(빈 값)"},
    "url_param_dropped": {
        "en": "Link parameter {param}={given} could not be used; the page opens without it.",
        "ko": "링크의 {param}={given} 값은 쓸 수 없어 그 값 없이 페이지를 엽니다.",
    },
    "url_param_ignored": {
        "en": "Link parameter {param}={given} could not be used; using {used}.",
        "ko": "링크의 {param}={given} 값은 쓸 수 없어 대신 {used} 값을 사용합니다.",
    },
    "url_param_repeated": {
        "en": "Link parameter {param} was given {n} times ({given}), but this control takes one value: using {used}.",
        "ko": "링크에 {param} 파라미터가 {n}번 들어 있습니다({given}). 이 컨트롤은 값을 하나만 받으므로 {used} 값을 "
              "사용합니다.",
    },
    "page_needs_text": {
        "en": "Type a sentence in the sidebar to see its attention.",
        "ko": "사이드바에 문장을 입력하면 어텐션을 볼 수 있습니다.",
    },
    "err_settings": {"en": "These settings cannot run: {detail}", "ko": "이 설정으로는 실행할 수 없습니다: {detail}"},
    "home_intro": {
        "en": "Type a sentence, choose d_model, num_heads and masking, and watch a real PyTorch "
              "`MultiHeadAttention` — the course's class — run live. Every number you see comes from the module.",
        "ko": "문장을 입력하고 d_model, num_heads, 마스킹을 고르면 강의의 PyTorch `MultiHeadAttention` 클래스가 "
              "실시간으로 실행됩니다. 화면의 모든 숫자는 그 모듈에서 나옵니다.",
    },
    "home_pages": {"en": "Where to go", "ko": "둘러보기"},
    "ctl_more": {"en": "More: cross-attention, padding, positions, seed",
                 "ko": "더 보기: 교차 어텐션, 패딩, 위치 인코딩, 시드"},
    "home_start_title": {"en": "Or start in the Playground", "ko": "또는 놀이터에서 시작하기"},
    "home_start_text": {
        "en": "New here? Open the Playground on the course's own sentence, “{sentence}”: every head's weights, "
              "one head enlarged, and the numbers behind any cell you click.",
        "ko": "처음이라면 강의의 문장 “{sentence}”(으)로 놀이터를 열어 보세요. 모든 헤드의 가중치, 크게 본 헤드 하나, "
              "그리고 누른 칸 뒤의 숫자를 볼 수 있습니다.",
    },
    "home_start": {"en": "Start with the course's sentence", "ko": "강의 문장으로 시작하기"},
    "home_picture": {
        "en": "Head 0's attention weights for “{sentence}” with a causal mask: each row is a word looking back at "
              "the words before it (grey: blocked).",
        "ko": "“{sentence}”에 인과 마스크를 건 헤드 0의 어텐션 가중치. 각 행은 한 단어가 앞 단어들을 보는 "
              "정도입니다(회색: 차단).",
    },
    "home_playground": {
        "en": "Scores, softmax weights and every head's output as interactive heatmaps.",
        "ko": "점수, softmax 가중치, 모든 헤드의 출력을 인터랙티브 히트맵으로 봅니다.",
    },
    "home_how": {
        "en": "The controls in the sidebar are shared by every page and kept in the link: copy the address bar to "
              "share exactly what you see.",
        "ko": "사이드바의 설정은 모든 페이지에 공통이며 링크에 담깁니다. 주소창을 복사하면 지금 화면 그대로 "
              "공유됩니다.",
    },
    "home_untrained": {
        "en": "The weights are random, not trained: patterns show how the computation works, not what a trained "
              "model has learned.",
        "ko": "가중치는 학습된 것이 아니라 무작위입니다. 패턴은 계산이 어떻게 동작하는지 보여 줄 뿐, 학습된 모델의 "
              "지식이 아닙니다.",
    },
    "fit_scale": {"en": "Fit the colour scale to the weights", "ko": "색 범위를 가중치에 맞추기"},
    "fit_scale_help": {
        "en": "Off: weights from 0 (white) to 1 (dark blue), except for long rows whose weights are all small: "
              "their scale ends at the largest weight. On: always up to the largest weight of this view (a query "
              "that may see one key only gives it 1 whatever happens: those cells are dark blue too). Every "
              "weights chart of the view uses the same scale; its colour bar says which.",
        "ko": "끄면: 가중치 0(흰색)부터 1(진한 파랑)까지. 단, 행이 길어 가중치가 모두 작으면 가장 큰 가중치까지. "
              "켜면: 항상 이 화면의 가장 큰 가중치까지(키를 하나만 볼 수 있는 쿼리는 언제나 그 키에 1을 주므로, 그 "
              "칸도 진한 파랑입니다). 이 화면의 모든 가중치 차트가 같은 범위를 쓰며, 색 막대에 적혀 있습니다.",
    },
}
