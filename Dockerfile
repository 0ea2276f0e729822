# Multi-Head Attention Playground: a CPU-only image for any container host.
#   docker build -t mha-playground .
#   docker run --rm -p 8501:8501 mha-playground        # then open http://localhost:8501
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    # one thread per computation: many visitors share few cores (the app also calls torch.set_num_threads(1))
    OMP_NUM_THREADS=1 \
    MKL_NUM_THREADS=1 \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    # A public server (docs/security.md, "Model sources"): local model folders only inside MHA_MODELS_DIR (none
    # unless the host sets it), one refusal for everything else, no hub downloads unless MHA_ALLOW_DOWNLOADS=1
    # (then the short list and MHA_ALLOWED_MODELS only), every hub request timed out after MHA_HUB_TIMEOUT s.
    MHA_PUBLIC=1 \
    MHA_HUB_TIMEOUT=10 \
    HF_HOME=/home/app/.cache/huggingface

# The app never needs root.
RUN useradd --create-home --uid 10001 app
WORKDIR /app

# Dependencies first (a layer that survives code changes). requirements.txt takes CPU-only torch from PyTorch's CPU
# index: PyPI's Linux wheel would add several GB of CUDA libraries. Korean in the charts needs no fonts here: the
# browser draws them.
COPY requirements.txt ./
RUN pip install -r requirements.txt \
 && python -c "import torch; assert not torch.cuda.is_available() and '+cpu' in torch.__version__, torch.__version__"

COPY --chown=app:app . .
USER app

EXPOSE 8501
# python: the slim image has no curl. /_stcore/health answers "ok" once the server is up.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD python -c "import sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4); sys.exit(0 if r.status == 200 else 1)"

# mha.app.serve is `streamlit run app.py` with the upload limit and the app's own routing set before the server starts
# (not with the first page run): docs/deploy.md.
CMD ["python", "-m", "mha.app.serve", "--server.port=8501", "--server.address=0.0.0.0"]
