"""Where a pretrained model comes from: the short list, the supported families, a local folder (``save_pretrained``
output) or a Hugging Face hub id, within a size cap. Pure Python (the hub client and transformers are imported only
when a hub id or a config is read). ``mha.weights.pretrained`` loads the folder ``resolve`` returns; callers import the
names below from here.

A hub id is checked before anything large is fetched: the file sizes (a dry run of the hub client) against the size
cap, then ``config.json`` alone against the supported families; then it is downloaded into the hub client's own cache
and loaded from that folder, exactly as a local folder is.

A public server (``MHA_PUBLIC=1``, or ``MHA_MODELS_DIR`` set: ``server_options``) tells a visitor nothing about its
disk: local folders only inside the models folder, found relative to it, and every other source the same refusal
(whether a path exists or not, readable or not; no path named); downloads only when the host turns them on, and then
only of the short list or ``MHA_ALLOWED_MODELS``. Every hub request has connect and read timeouts
(``MHA_HUB_TIMEOUT``), and a hub failure is remembered for everyone a short while (``FAILURE_TTL``).
"""
from __future__ import annotations

import contextvars
import functools
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

from mha.core.errors import LearnerError

MB = 10**6
DEFAULT_MAX_BYTES = 500 * MB  # a hosted demo must not be taken down by one visitor's model choice
MAX_BYTES_ENV = "MHA_MAX_MODEL_MB"  # the size cap in MB, for a deployment that wants another one
PUBLIC_ENV = "MHA_PUBLIC"  # "1": a server strangers reach (implied by MHA_MODELS_DIR)
MODELS_DIR_ENV = "MHA_MODELS_DIR"  # the only place local model folders may be (public servers)
ALLOW_DOWNLOADS_ENV = "MHA_ALLOW_DOWNLOADS"  # "1" / "0": hub downloads on or off (default: off when public)
ALLOWED_MODELS_ENV = "MHA_ALLOWED_MODELS"  # public servers: hub ids beyond the short list that may be downloaded
HUB_TIMEOUT_ENV = "MHA_HUB_TIMEOUT"  # seconds the hub may take to connect, or between two bytes of an answer
DEFAULT_HUB_TIMEOUT = 10.0

# (stage, done, total): stage "download" counts bytes of the files being fetched, "load" is called once before
# the weights are read (done = 0, total = bytes on disk).
Progress = Callable[[str, int, int], None]


class PretrainedError(LearnerError):
    """A model cannot be used (``mha.core.errors``: ``key`` and ``fmt`` name the message for the learner; the text says
    how to fix it)."""


# --- The short list -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """A model on the short list. Sizes are the weight files as listed on the hub (approximate, MB); the real
    size is checked against the cap before any download."""

    id: str  # hub id
    label: str
    language: str  # "en" | "ko"
    family: str  # family key (see FAMILIES)
    layers: int
    heads: int
    d_model: int
    size_mb: int
    note: str = ""


CHOICES = (
    Choice("google/bert_uncased_L-4_H-256_A-4", "BERT-mini (English)", "en", "bert", 4, 4, 256, 45,
           "Google's 4-layer BERT (Turc et al. 2019): small enough to load in seconds"),
    Choice("distilbert/distilgpt2", "DistilGPT-2 (English, decoder)", "en", "gpt2", 6, 12, 768, 353,
           "causal: every token sees only itself and the tokens before it"),
    Choice("google-bert/bert-base-uncased", "BERT base (English)", "en", "bert", 12, 12, 768, 440,
           "the standard encoder most attention studies use"),
    Choice("openai-community/gpt2", "GPT-2 small (English, decoder)", "en", "gpt2", 12, 12, 768, 548,
           "above the default 500 MB cap: needs a larger MHA_MAX_MODEL_MB"),
    Choice("monologg/koelectra-small-v3-discriminator", "KoELECTRA small v3 (Korean)", "ko", "electra", 12, 4, 256,
           56, "a small Korean encoder"),
    Choice("klue/bert-base", "KLUE BERT base (Korean)", "ko", "bert", 12, 12, 768, 445,
           "the Korean standard encoder of the KLUE benchmark"),
)
DEFAULT_MODEL = CHOICES[0].id


def max_bytes_from_env(default: int = DEFAULT_MAX_BYTES) -> int:
    """The size cap: ``MHA_MAX_MODEL_MB`` (a whole number of MB) if set, else ``default``."""
    raw = os.environ.get(MAX_BYTES_ENV, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise PretrainedError("err_cap_env", f"{MAX_BYTES_ENV}={raw!r} is not a whole number of MB: set e.g. "
                              f"{MAX_BYTES_ENV}=800, or unset it for the default {default // MB} MB.", value=raw)
    return int(raw) * MB


def _flag(name: str) -> Optional[bool]:
    raw = os.environ.get(name, "").strip().lower()
    return True if raw in ("1", "true", "yes", "on") else False if raw in ("0", "false", "no", "off") else None


def server_options() -> dict:
    """``resolve`` / ``load_model`` keywords from the environment (docs/security.md, "Model sources"):

    - ``public``: ``MHA_PUBLIC=1``, or ``MHA_MODELS_DIR`` set;
    - ``local_root``: ``MHA_MODELS_DIR`` (public: the only place folders load from, none when unset);
    - ``downloads``: ``MHA_ALLOW_DOWNLOADS`` (``1`` / ``0``), by default on for a laptop, off when public;
    - ``allowed``: public only, the hub ids that may load: the short list plus ``MHA_ALLOWED_MODELS`` (commas).
    """
    root = os.environ.get(MODELS_DIR_ENV, "").strip() or None
    public = bool(_flag(PUBLIC_ENV)) or root is not None
    downloads = _flag(ALLOW_DOWNLOADS_ENV)
    extra = [m.strip() for m in os.environ.get(ALLOWED_MODELS_ENV, "").split(",") if m.strip()]
    allowed = tuple(dict.fromkeys([c.id for c in CHOICES] + extra)) if public else None
    return {"public": public, "local_root": root, "downloads": (not public) if downloads is None else downloads,
            "allowed": allowed}


def hub_timeout() -> float:
    """``MHA_HUB_TIMEOUT`` in seconds (connect, and between two reads), default 10; a bad value is the default."""
    try:
        value = float(os.environ.get(HUB_TIMEOUT_ENV, "") or DEFAULT_HUB_TIMEOUT)
    except ValueError:
        return DEFAULT_HUB_TIMEOUT
    return value if 0 < value <= 600 else DEFAULT_HUB_TIMEOUT


# --- Families: where each architecture keeps its attention ---------------------------------------------------


@dataclass(frozen=True)
class Family:
    key: str
    name: str
    layers: str  # the ModuleList of layers, from the base model
    attention: str  # in a layer: the module that returns (output, attention weights)
    projection: str  # in a layer: the output projection (its output: before dropout, residual and LayerNorm)
    qkv: tuple[str, str, str] | str  # in the attention module: three nn.Linear, or one fused Conv1D (GPT-2)
    decoder: bool  # causal self-attention


_BERT_LIKE = dict(layers="encoder.layer", attention="attention.self", projection="attention.output.dense",
                  qkv=("query", "key", "value"), decoder=False)
FAMILIES = {
    "bert": Family("bert", "BERT", **_BERT_LIKE),
    "roberta": Family("roberta", "RoBERTa", **_BERT_LIKE),
    "electra": Family("electra", "ELECTRA", **_BERT_LIKE),
    "distilbert": Family("distilbert", "DistilBERT", layers="transformer.layer", attention="attention",
                         projection="attention.out_lin", qkv=("q_lin", "k_lin", "v_lin"), decoder=False),
    "gpt2": Family("gpt2", "GPT-2", layers="h", attention="attn", projection="attn.c_proj", qkv="c_attn",
                   decoder=True),
}
SUPPORTED = "BERT, RoBERTa, ELECTRA or DistilBERT encoders, or GPT-2 decoders"


def family_for(config) -> Family:
    """The family of a transformers config, or PretrainedError saying which families work."""
    model_type = getattr(config, "model_type", None)
    family = FAMILIES.get(model_type)
    if family is None:
        raise PretrainedError(
            "err_unsupported",
            f"This model's architecture ({model_type or 'unknown'}) is not supported: choose a model of a supported "
            f"family ({SUPPORTED}), for example {DEFAULT_MODEL}.", model_type=str(model_type))
    if family.key == "gpt2" and (not config.scale_attn_weights or config.scale_attn_by_inverse_layer_idx):
        raise PretrainedError(
            "err_unsupported_scaling",
            "This GPT-2 model scales its attention scores in its own way (scale_attn_weights=False or "
            "scale_attn_by_inverse_layer_idx=True), not by 1/sqrt(head_dim) like the course: choose a standard "
            "GPT-2 model.", model_type=str(model_type))
    if config.hidden_size % config.num_attention_heads:
        raise PretrainedError("err_config", f"hidden_size={config.hidden_size} is not divisible by "
                              f"num_attention_heads={config.num_attention_heads}: this model's config is broken.")
    return family


# --- Where a model comes from: folder or hub, with a size cap -------------------------------------------------

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}(/[\w.-]{1,96})?$")
_CONFIG = "config.json"
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                    "vocab.txt", "vocab.json", "merges.txt")
# Weight files in the order transformers prefers them: safetensors, else a (weights-only) PyTorch pickle.
_WEIGHTS = (("model.safetensors.index.json", "model.safetensors"),
            ("pytorch_model.bin.index.json", "pytorch_model.bin"))


def _weight_files(names: Sequence[str]) -> list[str]:
    """The weight files transformers would read among ``names`` (one format; every shard), or []."""
    names = set(names)
    for index, single in _WEIGHTS:
        if single in names:
            return [single]
        if index in names:
            stem, ext = single.rsplit(".", 1)
            return [index] + sorted(n for n in names if n.startswith(stem + "-") and n.endswith("." + ext))
    return []


def _is_complete(names: Sequence[str]) -> bool:
    return _CONFIG in names and bool(_weight_files(names)) and any(n in names for n in _TOKENIZER_FILES)


def _check_size(size: int, max_bytes: int, source: str) -> None:
    if size > max_bytes:
        raise PretrainedError(
            "err_too_large",
            f"{source} has {size / MB:,.0f} MB of weights, above this server's limit of {max_bytes / MB:,.0f} MB: "
            f"choose a smaller model (e.g. {DEFAULT_MODEL}), or raise the limit with {MAX_BYTES_ENV}.",
            source=source, size_mb=round(size / MB), max_mb=round(max_bytes / MB))


def folder_size(folder: Path) -> int:
    """Bytes of the weight files that loading ``folder`` reads."""
    return sum((folder / n).stat().st_size for n in _weight_files(_file_names(folder)))


def _used_files(names: Sequence[str]) -> list[str]:
    """The files loading a folder reads: config, weights, tokenizer."""
    return [n for n in (_CONFIG, *_TOKENIZER_FILES) if n in names] + _weight_files(names)


def _folder_key(folder: Path) -> tuple:
    """Identifies a folder's contents for the cache: a changed file (a new save_pretrained) is a new model. Only the
    files loading reads are looked at (a folder of 100,000 other files costs one cached listing, not 100,000 stats
    every run)."""
    return tuple((n, (folder / n).stat().st_size, (folder / n).stat().st_mtime_ns)
                 for n in _used_files(_file_names(folder)))


# A folder's file names, by the folder's own identity and modification time: a file added, removed or renamed
# changes it; a file rewritten in place does not, and does not need to (_folder_key stats the few files it uses).
_SCANS: dict[tuple, frozenset] = {}
_SCANS_LOCK = threading.Lock()


def _file_names(folder: Path) -> frozenset:
    """The names of the regular files (or links to them) in ``folder``: listed once per change of the folder."""
    st = os.stat(folder)
    key = (str(folder), st.st_dev, st.st_ino, st.st_mtime_ns)
    with _SCANS_LOCK:
        found = _SCANS.get(key)
    if found is not None:
        return found
    with os.scandir(folder) as entries:
        names = frozenset(e.name for e in entries if e.is_file())
    with _SCANS_LOCK:
        for old in [k for k in _SCANS if k[0] == key[0]]:  # the folder's earlier listing
            del _SCANS[old]
        if len(_SCANS) >= 64:
            _SCANS.pop(next(iter(_SCANS)))
        _SCANS[key] = names
    return names


def content_key(source: str, *, local_root: Optional[str] = None, public: bool = False,
                allowed: Optional[Sequence[str]] = None, **_) -> tuple:
    """What ``source`` holds now, cheaply (file names, sizes and modification times; no network, nothing loaded):
    the folder's files, the hub cache's snapshot's for a hub id in it, else ``("hub", id)``, or ``("error",)`` when
    it cannot be used (loading it raises the learner's message). A cache of anything computed from a model keys on
    it, so a folder saved again (``save_pretrained``) is a new model at the next run."""
    source = (source or "").strip()
    try:
        if public:
            folder = _public_folder(source, local_root)
            if folder is None and _allowed_id(source, allowed):
                folder = _hub_cached_folder(source)
                if folder is None:
                    return ("hub", source)
            return ("error",) if folder is None else (str(folder), _folder_key(folder))
        folder = _local_folder(source, local_root)
        if folder is None and _REPO_ID.match(source):
            folder = _hub_cached_folder(source)
            if folder is None:
                return ("hub", source)
        return ("error",) if folder is None else (str(folder), _folder_key(folder))
    except (PretrainedError, OSError):
        return ("error",)


def refused() -> PretrainedError:
    """A public server's one answer to every source it does not offer: the same words whether a path exists or not,
    is readable or not, and no path in them."""
    return PretrainedError(
        "err_source_refused", "This server loads only the models on its list and the folders its host put in its "
        "models folder: choose a model from the list.")


def _allowed_id(source: str, allowed: Optional[Sequence[str]]) -> bool:
    return bool(_REPO_ID.match(source)) and ".." not in source and source in (allowed or ())


def _public_folder(source: str, local_root: Optional[str]) -> Optional[Path]:
    """A public server's folder for ``source``: a complete saved model inside ``local_root`` (``source`` relative to
    it, or absolute inside it), else None, whatever the reason (missing, outside, unreadable, incomplete)."""
    if not local_root or not source:
        return None
    try:
        root = Path(local_root).resolve()
        path = (root / source).resolve()  # an absolute source stays itself; symlinks are followed, then checked
        if (path != root and root not in path.parents) or not path.is_dir():
            return None
        return path if _is_complete(_file_names(path)) else None
    except (OSError, ValueError, RuntimeError):  # unreadable, a NUL character, a name too long: refused alike
        return None


def _local_folder(source: str, local_root: Optional[str]) -> Optional[Path]:
    """``source`` as an existing folder, or None when it is not one (then it may be a hub id)."""
    try:
        path = Path(source).expanduser()
        if not path.is_dir():
            return None
    except (OSError, ValueError, RuntimeError):  # a name too long, a NUL character, an unknown ~user: no folder
        return None
    path = path.resolve()
    if local_root is not None:
        root = Path(local_root).expanduser().resolve()
        if path != root and root not in path.parents:
            raise PretrainedError("err_folder_outside", f"Local model folders must be inside {root} on this server: "
                                  f"save the model there with save_pretrained, or use its hub id.", root=str(root))
    if not _is_complete(_file_names(path)):
        raise PretrainedError(
            "err_folder_incomplete",
            f"The folder {path} is not a complete saved model: it needs config.json, the weights "
            f"(model.safetensors or pytorch_model.bin) and the tokenizer files. Save both there with "
            f"model.save_pretrained(folder) and tokenizer.save_pretrained(folder).", folder=str(path))
    return path


def _hub_cached_folder(repo_id: str) -> Optional[Path]:
    """The hub client's cached snapshot of ``repo_id`` if it is complete (no network), else None."""
    from huggingface_hub import try_to_load_from_cache

    config = try_to_load_from_cache(repo_id, _CONFIG)
    if not isinstance(config, str):
        return None
    folder = Path(config).parent
    return folder if _is_complete(_file_names(folder)) else None


def _unreachable(repo_id: str, error: BaseException) -> PretrainedError:
    if _timed_out(error):
        seconds = hub_timeout()
        return PretrainedError(
            "err_hub_timeout", f"The Hugging Face hub did not answer within {seconds:g} s ({HUB_TIMEOUT_ENV}), and "
            f"{repo_id} is not in this server's download cache: try again in a minute, or choose another model.",
            source=repo_id, seconds=f"{seconds:g}")
    return PretrainedError(
        "err_hub_unreachable",
        f"The Hugging Face hub cannot be reached from this server, and {repo_id} is not in its download cache "
        f"({type(error).__name__}). On a machine online, save the model to a folder with "
        f"AutoModel.from_pretrained({repo_id!r}).save_pretrained(folder) and the same for AutoTokenizer, copy the "
        f"folder here, and enter its path instead of the id.", source=repo_id)


# --- The hub client: timeouts, and failures remembered for everyone ---------------------------------------------


class HubTimeout(OSError):
    """The hub made no progress for longer than the budget of one download (raised by our request hook; the hub
    client does not retry it)."""


# While a download runs: [the time by which the hub must have made progress]. Pushed on by every byte received.
_HUB_DEADLINE: contextvars.ContextVar = contextvars.ContextVar("mha_hub_deadline", default=None)
_CLIENT_LOCK = threading.Lock()
_CLIENT_TIMEOUT: list = [None]  # the timeout the installed client factory was made with


def _timed_out(error: BaseException) -> bool:
    """Whether ``error`` (or what caused it) is a timeout of the hub client's HTTP library or our own budget."""
    import httpx2

    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, (HubTimeout, httpx2.TimeoutException, TimeoutError)):
            return True
        error = error.__cause__ or error.__context__
    return False


def _install_hub_timeouts() -> float:
    """Make every request of the hub client time out: its own client is built with ``timeout=None`` and several
    calls (``model_info`` for one) pass ``timeout=None`` themselves, so HF_HUB_ETAG_TIMEOUT and
    HF_HUB_DOWNLOAD_TIMEOUT alone leave the listing without one. A request hook sets the connect, read, write and
    pool timeouts on every request (huggingface_hub 2.4's ``set_client_factory``, httpx2), and refuses a new request
    once the download's budget is spent (the client's own retries would wait 5 times longer). Returns the timeout."""
    import httpx2
    import huggingface_hub
    from huggingface_hub.utils import _http

    seconds = hub_timeout()
    with _CLIENT_LOCK:
        if _CLIENT_TIMEOUT[0] == seconds:
            return seconds
        limits = httpx2.Timeout(seconds, connect=seconds).as_dict()

        def cap(request) -> None:
            deadline = _HUB_DEADLINE.get()
            if deadline is not None and time.monotonic() > deadline[0]:
                raise HubTimeout(f"the hub made no progress for {seconds:g} s")
            request.extensions["timeout"] = dict(limits)

        def factory():
            return httpx2.Client(event_hooks={"request": [cap, _http.hf_request_event_hook]}, follow_redirects=True,
                                 timeout=httpx2.Timeout(seconds, connect=seconds))

        huggingface_hub.set_client_factory(factory)
        _CLIENT_TIMEOUT[0] = seconds
    return seconds


# The hub's answers that took the network to get (timed out, unreachable, no such model): kept FAILURE_TTL seconds
# for every visitor of this process, so that 40 visitors opening the same link do not each wait for the hub; one
# request at a time per id (the others wait for its answer, then share it).
_NETWORK_ERRORS = ("err_hub_timeout", "err_hub_unreachable", "err_not_found", "err_no_weights")
FAILURE_TTL = 30.0
_FAILURES: dict[str, tuple[float, PretrainedError]] = {}
_FLIGHTS: dict[str, threading.Lock] = {}
_FAILURES_LOCK = threading.Lock()


def recent_failure(repo_id: str) -> Optional[PretrainedError]:
    """The hub failure for ``repo_id`` remembered less than FAILURE_TTL ago (a copy to raise), else None."""
    with _FAILURES_LOCK:
        found = _FAILURES.get(repo_id)
        if found and time.monotonic() - found[0] < FAILURE_TTL:
            err = found[1]
            return PretrainedError(err.key, str(err), **err.fmt)  # a new one to raise: threads share no traceback
        _FAILURES.pop(repo_id, None)
        return None


def _remember_failure(repo_id: str, err: PretrainedError) -> None:
    if err.key not in _NETWORK_ERRORS:
        return
    with _FAILURES_LOCK:
        if len(_FAILURES) >= 64:  # bounded whatever visitors type
            _FAILURES.pop(min(_FAILURES, key=lambda k: _FAILURES[k][0]))
        _FAILURES[repo_id] = (time.monotonic(), err)


def forget_failures() -> None:
    """Forget every remembered hub failure (tests; a host who fixed the network)."""
    with _FAILURES_LOCK:
        _FAILURES.clear()


def _flight(repo_id: str) -> threading.Lock:
    with _FAILURES_LOCK:
        if len(_FLIGHTS) >= 256:
            for key in [k for k, lock in _FLIGHTS.items() if not lock.locked()]:
                del _FLIGHTS[key]
        return _FLIGHTS.setdefault(repo_id, threading.Lock())


def _fetch(repo_id: str, max_bytes: int, progress: Optional[Progress]) -> Path:
    """``_download`` once at a time per id, with the failures remembered (see FAILURE_TTL)."""
    failed = recent_failure(repo_id)
    if failed is not None:
        raise failed
    with _flight(repo_id):
        failed = recent_failure(repo_id)  # the request we waited for failed
        if failed is not None:
            raise failed
        folder = _hub_cached_folder(repo_id)  # or it downloaded the model
        if folder is not None:
            return folder
        try:
            return _download(repo_id, max_bytes, progress)
        except PretrainedError as err:
            _remember_failure(repo_id, err)
            raise


class _ByteProgress:
    """The small part of tqdm's interface the hub client calls while it downloads a file, forwarded to ``progress``."""

    def __init__(self, report: Callable[[int], None], **kwargs):
        self._report = report
        self.total = kwargs.get("total")
        initial = kwargs.get("initial") or 0
        if initial:
            report(initial)

    def update(self, n=1):
        if n:
            self._report(int(n))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __getattr__(self, name):  # set_postfix_str, refresh, close, update_transfer, ...: nothing to show
        return lambda *args, **kwargs: None


def _download(repo_id: str, max_bytes: int, progress: Optional[Progress]) -> Path:
    """Check the files' sizes and the architecture, then fetch the files into the hub cache. Returns the folder.
    Every request has the hub timeout; the hub must make progress at least every two timeouts."""
    seconds = _install_hub_timeouts()
    deadline = [time.monotonic() + 2 * seconds]  # the budget without progress: two timeouts
    token = _HUB_DEADLINE.set(deadline)
    try:
        return _download_files(repo_id, max_bytes, progress, deadline, seconds)
    finally:
        _HUB_DEADLINE.reset(token)


def _download_files(repo_id: str, max_bytes: int, progress: Optional[Progress], deadline: list,
                    seconds: float) -> Path:
    import huggingface_hub
    from huggingface_hub.errors import EntryNotFoundError, GatedRepoError, HFValidationError, RepositoryNotFoundError

    patterns = [_CONFIG, *_TOKENIZER_FILES] + [name for pair in _WEIGHTS for name in pair] + [
        "model-*.safetensors", "pytorch_model-*.bin"]
    not_found = (RepositoryNotFoundError, GatedRepoError, HFValidationError)
    try:
        listing = huggingface_hub.snapshot_download(repo_id, allow_patterns=patterns, dry_run=True)
    except (*not_found, OSError, EntryNotFoundError) as e:  # the dry run's error wraps the hub's answer
        if isinstance(e, not_found) or isinstance(e.__cause__, not_found):
            raise PretrainedError(
                "err_not_found", f"No public model {repo_id!r} on the Hugging Face hub (or it is gated): check the "
                f"id, e.g. {DEFAULT_MODEL}, or enter a local folder.", source=repo_id) from e
        raise _unreachable(repo_id, e) from e
    files = {info.filename: info for info in listing}
    weights = _weight_files(list(files))
    if _CONFIG not in files or not weights:
        raise PretrainedError("err_no_weights", f"{repo_id} has no config.json or no PyTorch weights "
                              f"(model.safetensors or pytorch_model.bin): choose another model.", source=repo_id)
    size = sum(files[n].file_size or 0 for n in weights)
    _check_size(size, max_bytes, repo_id)
    try:
        config_path = huggingface_hub.hf_hub_download(repo_id, _CONFIG, revision=listing[0].commit_hash)
        _config_family(Path(config_path).parent)  # unsupported architectures stop here, before the weights
        wanted = [n for n in files if n in _TOKENIZER_FILES] + weights
        total = sum(files[n].file_size or 0 for n in wanted)
        done = [0]

        def report(n: int) -> None:
            done[0] += n
            deadline[0] = time.monotonic() + 2 * seconds  # progress: the budget starts again
            if progress is not None:
                progress("download", min(done[0], total), total)

        if progress is not None:
            progress("download", 0, total)
        for name in wanted:
            if files[name].is_cached:
                report(files[name].file_size or 0)
                continue
            huggingface_hub.hf_hub_download(repo_id, name, revision=listing[0].commit_hash,
                                            tqdm_class=functools.partial(_ByteProgress, report))
    except OSError as e:
        raise _unreachable(repo_id, e) from e
    return Path(config_path).parent


def _config_family(folder: Path):
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
    except (ValueError, KeyError) as e:  # an unknown model_type is a ValueError
        raise PretrainedError(
            "err_unsupported", f"This model's config cannot be read by transformers ({e}): choose a model of a "
            f"supported family ({SUPPORTED}).", model_type="?") from e
    return config, family_for(config)


def resolve(source: str, *, max_bytes: Optional[int] = None, progress: Optional[Progress] = None,
            local_root: Optional[str] = None, downloads: bool = True, public: bool = False,
            allowed: Optional[Sequence[str]] = None) -> Path:
    """The local folder to load ``source`` from: the folder itself, the hub cache's snapshot, or a fresh download
    (sizes and architecture checked first; ``downloads=False`` refuses it). ``public``: only folders inside
    ``local_root`` and the hub ids in ``allowed``, anything else ``refused()`` (``server_options``). Raises
    PretrainedError with a message for the learner."""
    source = (source or "").strip()
    max_bytes = max_bytes_from_env() if max_bytes is None else max_bytes
    if not source:
        raise PretrainedError("err_bad_source", f"Enter a model id (e.g. {DEFAULT_MODEL}) or a local folder.")
    if public:
        folder = _public_folder(source, local_root)
        if folder is None:
            if not _allowed_id(source, allowed):
                raise refused()
            folder = _hub_cached_folder(source)
    else:
        folder = _local_folder(source, local_root)
        if folder is None:
            if not _REPO_ID.match(source) or ".." in source:
                raise PretrainedError(
                    "err_bad_source", f"{source!r} is neither a folder on this server nor a Hugging Face model id "
                    f"(like {DEFAULT_MODEL}).", source=source)
            folder = _hub_cached_folder(source)
    if folder is None:
        if not downloads:
            raise PretrainedError(
                "err_downloads_off", f"{source} is not on this server, and this server does not download models: "
                f"choose a model from the list, or run the app on your own machine to try any model.",
                source=source)
        folder = _fetch(source, max_bytes, progress)
    _check_size(folder_size(folder), max_bytes, source)
    return folder


__all__ = [
    "CHOICES", "Choice", "DEFAULT_MAX_BYTES", "DEFAULT_MODEL", "FAMILIES", "Family", "MAX_BYTES_ENV", "MB", "Progress",
    "PretrainedError", "SUPPORTED", "content_key", "family_for", "folder_size", "max_bytes_from_env", "resolve",
    "server_options", "hub_timeout", "refused", "recent_failure", "forget_failures", "FAILURE_TTL", "HubTimeout",
]
