"""Strings of trained heads (prefix ``tr_``): task names and the one sentence saying each task's perfect attention
pattern (``mha.weights.train.Task.name_key`` / ``description_key``), the known head patterns
(``mha.weights.train.PATTERNS``) and the input layouts (``mha.weights.train.LAYOUTS``)."""
STRINGS = {
    # --- tasks: name, then the perfect attention pattern in one sentence
    "tr_task_name_previous": {"en": "Previous word", "ko": "이전 단어"},
    "tr_task_previous": {
        "en": "Each word attends to the word just before it (the first word to itself) and copies it.",
        "ko": "각 단어가 바로 앞 단어에 주목해 그 단어를 복사합니다(첫 단어는 자기 자신에게).",
    },
    "tr_task_name_next": {"en": "Next word", "ko": "다음 단어"},
    "tr_task_next": {
        "en": "Each word attends to the word just after it (the last word to itself) and copies it.",
        "ko": "각 단어가 바로 뒤 단어에 주목해 그 단어를 복사합니다(마지막 단어는 자기 자신에게).",
    },
    "tr_task_name_first": {"en": "First word", "ko": "첫 단어"},
    "tr_task_first": {
        "en": "Every word attends to the first word of the sentence and copies it.",
        "ko": "모든 단어가 문장의 첫 단어에 주목해 그 단어를 복사합니다.",
    },
    "tr_task_name_reverse": {"en": "Reverse order", "ko": "역순"},
    "tr_task_reverse": {
        "en": "Word i attends to word T−1−i, as far from the end as i is from the start, so the output is the "
              "sentence backwards (learned on {seq_len}-token sequences).",
        "ko": "단어 i가 단어 T−1−i, 곧 i가 처음에서 떨어진 만큼 끝에서 떨어진 단어에 주목해, 출력이 문장을 "
              "거꾸로 한 것이 됩니다({seq_len}토큰 길이의 시퀀스로 학습).",
    },
    "tr_task_name_same_word": {"en": "Same word earlier", "ko": "앞에 나온 같은 단어"},
    "tr_task_same_word": {
        "en": "Each word attends to the first place the same word appears (a new word to itself): a match by "
              "content, not by position.",
        "ko": "각 단어가 같은 단어가 처음 나온 자리에 주목합니다(처음 나온 단어는 자기 자신에게). 위치가 아니라 "
              "내용으로 찾는 것입니다.",
    },
    "tr_task_name_prev_next": {"en": "Previous and next", "ko": "이전과 다음"},
    "tr_task_prev_next": {
        "en": "The first half of the output needs the previous word and the second half the next word: one head "
              "attends to i−1, another to i+1. One head can look at only one of them.",
        "ko": "출력의 앞 절반에는 이전 단어가, 뒤 절반에는 다음 단어가 필요합니다. 한 헤드는 i−1에, 다른 헤드는 "
              "i+1에 주목해야 하며, 헤드 하나로는 둘 중 하나만 볼 수 있습니다.",
    },
    "tr_task_name_mixed": {"en": "Four at once", "ko": "네 가지 한꺼번에"},
    "tr_task_mixed": {
        "en": "Four quarters of the output need the previous word, the next word, the first word and the word at "
              "the mirrored position: four heads, each attending to one of them.",
        "ko": "출력의 네 부분에 각각 이전 단어, 다음 단어, 첫 단어, 거울 위치의 단어가 필요합니다. 헤드 네 개가 "
              "하나씩 맡아 주목합니다.",
    },
    # --- known head patterns (the matcher's names)
    "tr_pattern_previous": {"en": "previous word", "ko": "이전 단어"},
    "tr_pattern_next": {"en": "next word", "ko": "다음 단어"},
    "tr_pattern_first": {"en": "first word", "ko": "첫 단어"},
    "tr_pattern_first_token": {"en": "{token} (the first token)", "ko": "{token}(첫 토큰)"},
    "tr_pattern_last": {"en": "last word", "ko": "마지막 단어"},
    "tr_pattern_last_token": {"en": "{token} (the last token)", "ko": "{token}(마지막 토큰)"},
    "tr_pattern_self": {"en": "itself", "ko": "자기 자신"},
    "tr_pattern_same_word": {"en": "same word", "ko": "같은 단어"},
    "tr_pattern_reverse": {"en": "mirrored position", "ko": "거울 위치"},
    "tr_pattern_special": {"en": "special tokens and punctuation", "ko": "특수 토큰과 문장 부호"},
    "tr_pattern_special_named": {"en": "special tokens and punctuation ({tokens})",
                                 "ko": "특수 토큰과 문장 부호({tokens})"},
    "tr_pattern_spread": {"en": "broad (spread evenly)", "ko": "넓게(고르게 퍼짐)"},
    "tr_pattern_unclear": {"en": "no clear pattern (closest: {closest})",
                           "ko": "뚜렷한 패턴 없음(가장 가까운 것: {closest})"},
    "tr_pattern_spread_sink": {"en": "broad, {share} of it on {sink}", "ko": "넓게 퍼짐(그중 {share}은(는) {sink}에)"},
    # --- input layouts
    "tr_layout_split": {"en": "Content | position (split)", "ko": "내용 | 위치 (나눔)"},
    "tr_layout_split_help": {
        "en": "Each token's content fills the first half of its d_model features and its position (sinusoidal) "
              "the second half, so q·k can match positions without the content getting in the way.",
        "ko": "각 토큰의 내용이 d_model 특성의 앞 절반을, 위치(사인파)가 뒤 절반을 차지합니다. 그래서 q·k가 "
              "내용에 방해받지 않고 위치끼리 맞출 수 있습니다.",
    },
    "tr_layout_added": {"en": "Content + position (added)", "ko": "내용 + 위치 (더함)"},
    "tr_layout_added_help": {
        "en": "The Playground's inputs: content over all d_model features with the positions added on top. The "
              "content's noise swamps the positional signal in q·k, and position tasks stall.",
        "ko": "놀이터의 입력과 같습니다. 내용이 d_model 특성 전체에 퍼져 있고 그 위에 위치를 더합니다. q·k에서 "
              "내용의 잡음이 위치 신호를 덮어, 위치로 푸는 과제가 학습되지 않고 멈춥니다.",
    },
}
