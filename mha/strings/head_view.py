"""Strings of the head view (``mha.app.components.head_view``): the words inside it (``hv_<name>``, see
``mha.charts.head_view_data.WORD_NAMES``) and the Playground section around it."""
STRINGS = {
    "hv_queries": {"en": "Queries", "ko": "쿼리"},
    "hv_keys": {"en": "Keys", "ko": "키"},
    "hv_all_heads": {"en": "All heads", "ko": "모든 헤드"},
    "hv_head": {"en": "Head {h}", "ko": "헤드 {h}"},
    "hv_hint": {
        "en": "Point at a token: on the left, where it looks; on the right, who looks at it. Click a head's colour "
              "to show or hide it; double-click to show it alone.",
        "ko": "토큰에 마우스를 올려 보세요. 왼쪽 토큰은 어디를 보는지, 오른쪽 토큰은 누가 자기를 보는지 보여 줍니다. "
              "헤드 색을 클릭하면 그 헤드를 보이거나 숨기고, 두 번 클릭하면 그 헤드만 보여 줍니다.",
    },
    "hv_section_title": {"en": "Head view", "ko": "헤드 뷰"},
    "hv_section_help": {
        "en": "Every head's weights at once, as lines from each query (left) to the keys (right): the stronger the "
              "weight, the darker and thicker the line (full strength at the top of the view's colour scale, as in "
              "the grid above). Everything here answers in your browser, without waiting for the server.",
        "ko": "모든 헤드의 가중치를 한 번에, 각 쿼리(왼쪽)에서 키(오른쪽)로 가는 선으로 보여 줍니다. 가중치가 클수록 "
              "선이 "
              "진하고 굵습니다(위 격자와 같은 색 범위의 끝에서 가장 진합니다). 여기서는 서버를 기다리지 않고 "
              "브라우저가 바로 "
              "답합니다.",
    },
}
