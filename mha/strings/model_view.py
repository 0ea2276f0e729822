"""The model view (prefix ``mv_``): every layer x head as thumbnails (``mha.app.sections.model_view``)."""
STRINGS = {
    "mv_title": {"en": "Every layer × head (model view)", "ko": "모든 층 × 헤드 (모델 보기)"},
    "mv_help": {
        "en": "One thumbnail per head of each layer ({layers} layers × {heads} heads, a layer a row), on the colour "
              "scale of the weights charts below. Point at a cell for its layer, head, query, key and weight; click "
              "a thumbnail (or Tab to it, arrow keys, Enter) to open that layer and head below.",
        "ko": "층마다 헤드 하나가 작은 그림 하나입니다({layers}개 층 × {heads}개 헤드, 한 줄이 한 층). 색 범위는 아래 "
              "가중치 그림과 같습니다. 칸에 마우스를 올리면 층, 헤드, 쿼리, 키, 가중치가 보이고, 그림을 누르면(또는 "
              "Tab으로 가서 화살표 키와 Enter) 아래에 그 층과 헤드가 열립니다.",
    },
    "mv_dropped_values": {
        "en": "{cells:,} cells: to keep the page light their exact numbers are not sent, the hover gives the "
              "colour's value (≈); the head opened below has the exact ones.",
        "ko": "칸이 {cells:,}개라 페이지를 가볍게 하려고 정확한 숫자는 보내지 않았습니다. 마우스를 올리면 "
              "색이 나타내는 값(≈)이 보이고, 아래에 연 헤드에서 정확한 숫자를 볼 수 있습니다.",
    },
    "mv_ind_opened": {"en": "Layer {layer}, head {head}, large (opened in the model view above)",
                      "ko": "{layer}층 헤드 {head}, 크게 (위 모델 보기에서 연 헤드)"},
    "mv_dropped_layers": {
        "en": "Layers {first} to {last} are left out: with them the model view would pass {mb} MB. Open them one at "
              "a time with the layer control.",
        "ko": "{first}~{last}층은 뺐습니다. 다 넣으면 모델 보기가 {mb} MB를 넘습니다. 층 선택으로 하나씩 여세요.",
    },
}
