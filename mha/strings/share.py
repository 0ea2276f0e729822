"""Strings of sharing: the link box, exports, your own weights, and the Share page."""
STRINGS = {
    "nav_share": {"en": "Share & export", "ko": "공유·내보내기"},
    "home_share": {
        "en": "The current view as JSON, .npz or CSV, the weights as .pt — or run on your own trained weights.",
        "ko": "지금 화면을 JSON, .npz, CSV로, 가중치를 .pt로 내려받거나, 직접 학습한 가중치로 실행해 봅니다.",
    },
    # --- the link box (sidebar, every page)
    "share_link_title": {"en": "Link to this view", "ko": "이 화면의 링크"},
    "share_link_help": {
        "en": "This address opens exactly this page with these settings, head and cell. Copy it with the button.",
        "ko": "이 주소를 열면 지금의 페이지, 설정, 헤드, 칸이 그대로 나옵니다. 버튼으로 복사하세요.",
    },
    "share_copy": {"en": "Copy", "ko": "복사"},
    "share_copied": {"en": "Copied", "ko": "복사됨"},
    "share_copy_failed": {"en": "Select the link and copy it", "ko": "링크를 선택해 복사하세요"},
    "share_param_unknown": {
        "en": "Link parameters not used by any control here were removed: {key}",
        "ko": "여기서 쓰지 않는 링크 파라미터를 지웠습니다: {key}",
    },
    "share_param_more": {"en": "and {n} more", "ko": "외 {n}개"},
    "share_more": {"en": "Export, your own weights", "ko": "내보내기, 내 가중치"},
    # --- custom weights note (every page)
    "share_custom_note": {
        "en": "Running on **your uploaded weights** ({name}, d_model={d_model}) instead of the seeded random ones. "
              "Embeddings still come from the seed, and a comparison across seeds shows seeded modules by design.",
        "ko": "무작위(시드) 가중치 대신 **업로드한 가중치**({name}, d_model={d_model})로 실행 중입니다. "
              "임베딩은 여전히 시드에서 만들고, 여러 시드를 비교하는 부분은 원래대로 시드 모듈을 보여 줍니다.",
    },
    "share_custom_mismatch": {
        "en": "Your uploaded weights are for d_model={weights_d_model}, but d_model is {d_model}: the seeded weights "
              "are shown. Set d_model to {weights_d_model} to use yours.",
        "ko": "업로드한 가중치는 d_model={weights_d_model}용인데 지금 d_model은 {d_model}입니다. 그래서 시드 가중치를 "
              "보여 줍니다. 내 가중치를 쓰려면 d_model을 {weights_d_model}(으)로 바꾸세요.",
    },
    "share_custom_off": {"en": "Use the seeded weights again", "ko": "시드 가중치로 되돌리기"},
    # --- Share page
    "share_title": {"en": "Share & export", "ko": "공유·내보내기"},
    "share_intro": {
        "en": "Take the current view with you — as a link, as numbers or as weights — or bring your own trained "
              "weights. Everything here uses the settings in the sidebar.",
        "ko": "지금 보고 있는 화면을 링크, 숫자, 가중치로 가져가거나, 직접 학습한 가중치를 가져올 수 있습니다. "
              "여기의 모든 것은 사이드바의 설정을 따릅니다.",
    },
    "share_view_title": {"en": "The numbers of this view", "ko": "이 화면의 숫자"},
    "share_view_help": {
        "en": "Settings, tokens and every intermediate: x, q, k, v, scores, allowed (the mask), weights, "
              "head_outputs, concat, output. JSON opens anywhere; .npz loads with `numpy.load`.",
        "ko": "설정, 토큰, 그리고 모든 중간값: `x`, `q`, `k`, `v`, `scores`, `allowed`(마스크), `weights`, "
              "`head_outputs`, `concat`, `output`. JSON은 어디서나 열리고, .npz는 `numpy.load`로 읽습니다.",
    },
    "share_json": {"en": "Download JSON", "ko": "JSON 내려받기"},
    "share_npz": {"en": "Download .npz", "ko": ".npz 내려받기"},
    "share_csv_title": {"en": "One matrix as CSV", "ko": "행렬 하나를 CSV로"},
    "share_csv_matrix": {"en": "Matrix", "ko": "행렬"},
    "share_csv_head": {"en": "Head", "ko": "헤드"},
    "share_csv_download": {"en": "Download CSV", "ko": "CSV 내려받기"},
    "share_csv_shape": {"en": "Shape {rows} × {cols}: rows are {row_name}, columns are {col_name}.",
                        "ko": "크기 {rows} × {cols}: 행은 {row_name}, 열은 {col_name}입니다."},
    "share_rows_queries": {"en": "query tokens", "ko": "쿼리 토큰"},
    "share_rows_keys": {"en": "key tokens", "ko": "키 토큰"},
    "share_rows_tokens": {"en": "tokens", "ko": "토큰"},
    "share_cols_keys": {"en": "key tokens", "ko": "키 토큰"},
    "share_cols_features": {"en": "features", "ko": "특성(차원)"},
    "share_png": {
        "en": "PNG of any chart: hover over the chart and click the camera icon in its top-right toolbar (the "
              "Playground's all-heads grid and enlarged head: their ⤓ PNG button, top right).",
        "ko": "차트의 PNG: 차트 위에 마우스를 올리고 오른쪽 위 도구 모음의 카메라 아이콘을 누르세요(놀이터의 모든 헤드 "
              "격자와 크게 본 헤드는 오른쪽 위의 ⤓ PNG 버튼).",
    },
    "share_html_title": {"en": "The view as one HTML file", "ko": "이 화면을 HTML 파일 하나로"},
    "share_html_uploaded": {"en": "uploaded", "ko": "업로드한 가중치"},
    "share_html_help": {
        "en": "Every head's attention weights (the Playground's grid) and the head view of this sentence (a "
              "pretrained model's every layer too), in one file that opens in any browser with no server and no "
              "network: pointing, the keyboard and the head view's clicks work as here. For slides or a course page.",
        "ko": "이 문장의 모든 헤드 어텐션 가중치(놀이터의 격자)와 헤드 뷰(사전학습 모델이면 모든 층까지)를 파일 "
              "하나에 담습니다. 서버도 네트워크도 없이 어느 브라우저에서나 열리고, 마우스와 키보드, 헤드 뷰의 "
              "클릭이 여기서처럼 동작합니다. 발표 자료나 강의 페이지에 쓰세요.",
    },
    "share_html": {"en": "Download HTML", "ko": "HTML 내려받기"},
    "share_html_doc_title": {"en": "Attention weights: {text}", "ko": "어텐션 가중치: {text}"},
    "share_html_caption": {
        "en": "MultiHeadAttention with d_model = {d_model}, num_heads = {num_heads} (head_dim = {head_dim}), "
              "{n:plural:token|tokens}, parameters: {parameters}. Made with the Multi-Head Attention Playground.",
        "ko": "MultiHeadAttention, d_model = {d_model}, num_heads = {num_heads} (head_dim = {head_dim}), 토큰 "
              "{n}개, 파라미터: {parameters}. 멀티헤드 어텐션 놀이터에서 만들었습니다.",
    },
    "share_weights_title": {"en": "Weights", "ko": "가중치"},
    "share_weights_help": {
        "en": "The module's state_dict. It loads into the course's class unchanged:",
        "ko": "모듈의 state_dict입니다. 강의의 클래스에 그대로 불러올 수 있습니다:",
    },
    "share_weights_download": {"en": "Download weights (.pt)", "ko": "가중치 내려받기 (.pt)"},
    "share_upload_title": {"en": "Your own weights", "ko": "내 가중치 쓰기"},
    "share_upload_help": {
        "en": "Trained the course's MultiHeadAttention? Save it with `torch.save(model.state_dict(), \"mha.pt\")` "
              "and upload the file: the main view of every page then runs on your weights, for you alone "
              "(nobody else sees them; they are gone when you close the tab). Only tensors are read "
              "(`weights_only=True`), at most {max_mb:.0f} MB.",
        "ko": "강의의 MultiHeadAttention을 학습시켰나요? `torch.save(model.state_dict(), \"mha.pt\")`로 저장해 "
              "올리면, 모든 페이지의 주 화면이 내 가중치로 실행됩니다. 나에게만 적용되며(다른 사람은 볼 수 "
              "없고, 탭을 닫으면 사라집니다) 텐서만 읽습니다(`weights_only=True`). 최대 {max_mb:.0f}MB.",
    },
    "share_upload": {"en": "state_dict file (.pt)", "ko": "state_dict 파일 (.pt)"},
    "share_upload_ok": {
        "en": "Loaded {name}: d_model={d_model}. A state_dict does not store num_heads: choose the value the "
              "weights were trained with in the sidebar.",
        "ko": "{name}을(를) 불러왔습니다: d_model={d_model}. state_dict에는 num_heads가 저장되지 않으니, 학습할 때 쓴 "
              "값을 사이드바에서 고르세요.",
    },
    "share_upload_switched": {
        "en": "d_model was set to {d_model} to match the file.",
        "ko": "파일에 맞춰 d_model을 {d_model}(으)로 바꿨습니다.",
    },
    "share_upload_failed": {"en": "This file was not used: {reason}", "ko": "이 파일은 사용하지 않았습니다: {reason}"},
    "share_needs_view": {
        "en": "Type a sentence in the sidebar: there is nothing to export yet.",
        "ko": "사이드바에 문장을 입력하세요. 아직 내보낼 것이 없습니다.",
    },
    # --- why an uploaded file was refused (mha/weights/export.py raises these keys)
    "share_err_not_bytes": {"en": "the upload could not be read.", "ko": "업로드한 파일을 읽을 수 없습니다."},
    "share_err_empty": {"en": "the file is empty.", "ko": "파일이 비어 있습니다."},
    "share_err_too_big": {
        "en": "the file has {size_mb:.1f} MB; a state_dict of this module is at most {max_mb:.0f} MB.",
        "ko": "파일이 {size_mb:.1f}MB입니다. 이 모듈의 state_dict는 최대 {max_mb:.0f}MB입니다.",
    },
    "share_err_not_torch": {
        "en": "this is not a PyTorch file. Save one with torch.save(model.state_dict(), \"mha.pt\").",
        "ko": "PyTorch 파일이 아닙니다. torch.save(model.state_dict(), \"mha.pt\")로 저장하세요.",
    },
    "share_err_unsafe": {
        "en": "the file contains Python objects other than tensors ({what}), which are never loaded here (they could "
              "run code). Save model.state_dict(), not the whole model.",
        "ko": "파일에 텐서가 아닌 파이썬 객체({what})가 들어 있어 불러오지 않습니다(코드를 실행할 수 있기 "
              "때문입니다). 모델 전체가 아니라 model.state_dict()를 저장하세요.",
    },
    "share_err_runs_code": {
        "en": "the file asks to run code ({what}), and was refused: nothing in it was run. A state_dict holds only "
              "tensors: save one with torch.save(model.state_dict(), \"mha.pt\").",
        "ko": "파일이 코드({what})를 실행하라고 요청해서 거부했습니다. 파일 속 어떤 것도 실행하지 않았습니다. "
              "state_dict에는 텐서만 들어 있습니다. torch.save(model.state_dict(), \"mha.pt\")로 저장하세요.",
    },
    "share_err_compressed": {
        "en": "the file is a compressed archive (entry {entry}). torch.save never compresses, and a compressed file "
              "can unpack to far more than it weighs, so it is not read. Save it again with torch.save.",
        "ko": "압축된 파일입니다(항목 {entry}). torch.save는 압축하지 않으며, 압축 파일은 풀면 크기보다 훨씬 커질 수 "
              "있어 읽지 않습니다. torch.save로 다시 저장하세요.",
    },
    "share_err_unpacked_too_big": {
        "en": "the file would unpack to {size_mb:.0f} MB; a state_dict of this module is at most {max_mb:.0f} MB. "
              "Save it again with torch.save(model.state_dict(), \"mha.pt\").",
        "ko": "파일을 풀면 {size_mb:.0f}MB가 됩니다. 이 모듈의 state_dict는 최대 {max_mb:.0f}MB입니다. "
              "torch.save(model.state_dict(), \"mha.pt\")로 다시 저장하세요.",
    },
    "share_err_zip_entries": {
        "en": "the file holds {found} entries; a state_dict saved by torch.save has a few dozen at most "
              "(limit {limit}).",
        "ko": "파일에 항목이 {found}개 있습니다. torch.save로 저장한 state_dict는 많아야 수십 개입니다"
              "(한도 {limit}개).",
    },
    "share_err_nested": {
        "en": "the state_dict is wrapped more than {levels} levels deep. Save model.state_dict() itself.",
        "ko": "state_dict가 {levels}단계보다 깊이 감싸져 있습니다. model.state_dict() 자체를 저장하세요.",
    },
    "share_err_layout": {
        "en": "{name} is a {layout} tensor; weights must be ordinary dense tensors. Save it with .to_dense() "
              "(or save model.state_dict() as it is).",
        "ko": "{name}이(가) {layout} 텐서입니다. 가중치는 보통의 밀집(dense) 텐서여야 합니다. .to_dense()로 "
              "바꿔 저장하세요(또는 model.state_dict()를 그대로 저장하세요).",
    },
    "share_err_device": {
        "en": "{name} is on the {device} device and holds no numbers here. Save the weights from a CPU or GPU "
              "model: torch.save(model.state_dict(), \"mha.pt\").",
        "ko": "{name}이(가) {device} 장치에 있어 여기서는 숫자가 없습니다. CPU나 GPU 모델에서 "
              "torch.save(model.state_dict(), \"mha.pt\")로 저장하세요.",
    },
    "share_err_unreadable": {
        "en": "it could not be read as a state_dict ({error}). Save one with torch.save(model.state_dict(), "
              "\"mha.pt\").",
        "ko": "state_dict로 읽을 수 없습니다({error}). torch.save(model.state_dict(), \"mha.pt\")로 저장하세요.",
    },
    "share_err_memory": {
        "en": "reading it would take more memory than this module's weights can need. Save "
              "model.state_dict() with torch.save.",
        "ko": "이 파일을 읽으려면 이 모듈의 가중치에 필요한 것보다 훨씬 많은 메모리가 듭니다. torch.save로 "
              "model.state_dict()를 저장하세요.",
    },
    "share_err_not_dict": {
        "en": "the file holds a {found}, not a state_dict (a dict of tensors). Save model.state_dict().",
        "ko": "파일에 state_dict(텐서 딕셔너리)가 아니라 {found}이(가) 들어 있습니다. model.state_dict()를 저장하세요.",
    },
    "share_err_keys": {
        "en": "the names do not match the course's MultiHeadAttention (missing: {missing}; unexpected: {extra}). "
              "Expected exactly: {expected}.",
        "ko": "이름이 강의의 MultiHeadAttention과 맞지 않습니다(없음: {missing}; 예상 밖: {extra}). "
              "정확히 다음이어야 합니다: {expected}.",
    },
    "share_err_not_tensor": {
        "en": "{name} is a {found}, not a tensor.",
        "ko": "{name}이(가) 텐서가 아니라 {found}입니다.",
    },
    "share_err_shape": {
        "en": "{name} has shape {found}, but d_model={d_model} needs {want}. These weights look like "
              "d_model={hint_d_model}: set d_model to that in the sidebar.",
        "ko": "{name}의 크기가 {found}인데 d_model={d_model}에는 {want}이(가) 필요합니다. 이 가중치는 "
              "d_model={hint_d_model}용으로 보입니다. 사이드바에서 d_model을 그 값으로 바꾸세요.",
    },
    "share_err_bad_d_model": {
        "en": "query_linear.weight has shape {found}; it must be square, d_model × d_model, with d_model at most "
              "{max_d_model}.",
        "ko": "query_linear.weight의 크기가 {found}입니다. d_model × d_model 정사각 행렬이어야 하고 d_model은 최대 "
              "{max_d_model}입니다.",
    },
    "share_err_d_model_choice": {
        "en": "these weights are for d_model={d_model}; this app offers d_model {choices}.",
        "ko": "이 가중치는 d_model={d_model}용입니다. 이 앱에서 고를 수 있는 d_model은 {choices}입니다.",
    },
    "share_err_heads": {
        "en": "num_heads={num_heads} does not divide d_model={d_model}.",
        "ko": "num_heads={num_heads}은(는) d_model={d_model}의 약수가 아닙니다.",
    },
    "share_err_dtype": {
        "en": "{name} holds {dtype} numbers; weights must be floating point.",
        "ko": "{name}에 {dtype} 값이 들어 있습니다. 가중치는 부동소수점이어야 합니다.",
    },
    "share_err_not_finite": {
        "en": "{name} contains NaN or infinite values: the module cannot run on them.",
        "ko": "{name}에 NaN 또는 무한대 값이 있어 모듈을 실행할 수 없습니다.",
    },
    "share_err_too_large": {
        "en": "{name} has values as large as {found:.3g}: trained weights are far smaller, and weights beyond "
              "±{limit:g} can overflow float32. Check that this is the file you meant.",
        "ko": "{name}에 {found:.3g}만큼 큰 값이 있습니다. 학습된 가중치는 이보다 훨씬 작고, ±{limit:g}을(를) 넘는 "
              "가중치는 float32에서 넘칠 수 있습니다. 의도한 파일이 맞는지 확인하세요.",
    },
    "share_busy": {
        "en": "Many people are using the app right now; this took a moment longer.",
        "ko": "지금 사용하는 사람이 많아 조금 더 걸렸습니다.",
    },
}
