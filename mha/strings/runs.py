"""Strings of the long-run queue (``mha.app.runs``, prefix ``run_``): shown while a training waits for its turn."""
STRINGS = {
    "run_waiting": {
        "en": "Waiting for the server: {n:plural:run|runs} ahead of yours. It starts by itself; other pages and "
              "views work meanwhile.",
        "ko": "서버를 기다리는 중: 내 실행 앞에 {n}개가 있습니다. 차례가 되면 저절로 시작하며, 그동안 다른 페이지와 "
              "보기는 그대로 쓸 수 있습니다.",
    },
    "run_queue_full": {
        "en": "The server is busy: {n:plural:training|trainings} are waiting already. Try again in a minute, or "
              "pick settings someone has trained (the defaults).",
        "ko": "서버가 바쁩니다. 이미 학습 {n}개가 기다리고 있습니다. 잠시 후 다시 해 보거나, "
              "이미 학습된 설정(기본값)을 고르세요.",
    },
    "run_progress": {"en": "Training: step {step} of {total}", "ko": "학습 중: {total}단계 중 {step}단계"},
}
