"""Tiny random pretrained-style models, built offline from transformers' config classes and saved with
``save_pretrained`` (weights, config and tokenizer), so that ``mha.weights.pretrained`` loads them exactly as it loads a
downloaded model. Used by tests/unit/test_pretrained.py and bench/bench_pretrained.py.

Tokenizers come from vocabulary files written here: a WordPiece ``vocab.txt`` (BERT, ELECTRA, DistilBERT) and a
byte-level BPE vocabulary with merges (GPT-2, RoBERTa).
"""
from __future__ import annotations

from pathlib import Path

import torch

FAMILIES = ("bert", "roberta", "electra", "distilbert", "gpt2")

# WordPiece: whole words and "##" continuations, English and (uncased=False only) Korean, like KoELECTRA's.
WORDS = ["the", "cat", "sat", "on", "mat", "dog", "saw", "a", "play", "##ing", "##s", "run", ",", ".", "!", "is",
         "안녕", "##하세요", "고양이", "##가", "앉았다"]
SPECIAL_WP = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
# Byte-level BPE merges (GPT-2's "Ġ" is a space): enough to make whole words and one split word ("play" + "ing").
MERGES = ["Ġ t", "h e", "Ġt he", "Ġ c", "a t", "Ġc at", "Ġ s", "Ġs at", "Ġ d", "o g", "Ġd og", "Ġ p", "l a",
          "Ġp la", "Ġpla y", "i n", "in g"]


def byte_alphabet() -> list[str]:
    """GPT-2's 256 printable stand-ins for bytes, in byte order: transformers' own table (mha.weights.pretrained has its
    own copy, which the labels tests check against this one)."""
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    by_byte = bytes_to_unicode()
    return [by_byte[b] for b in range(256)]


def bpe_vocab(specials: list[str]) -> dict[str, int]:
    pieces = specials + byte_alphabet() + ["".join(m.split()) for m in MERGES]
    vocab: dict[str, int] = {}
    for p in pieces:
        vocab.setdefault(p, len(vocab))
    return vocab


def _tokenizer(family: str, folder: Path, *, korean: bool, extra_words: tuple[str, ...] = ()):
    from transformers import BertTokenizer, GPT2Tokenizer, RobertaTokenizer

    if family in ("bert", "electra", "distilbert"):
        vocab_file = folder / "vocab.txt"
        vocab_file.write_text("\n".join(SPECIAL_WP + WORDS + list(extra_words)) + "\n", encoding="utf-8")
        # Korean models keep case and Hangul (no accent stripping, which would split syllables into jamo)
        return BertTokenizer(vocab=str(vocab_file), do_lower_case=not korean)
    merges = [tuple(m.split()) for m in MERGES]
    if family == "gpt2":
        return GPT2Tokenizer(vocab=bpe_vocab(["<|endoftext|>"]), merges=merges)
    return RobertaTokenizer(vocab=bpe_vocab(["<s>", "<pad>", "</s>", "<unk>", "<mask>"]), merges=merges)


def _config(family: str, vocab_size: int, *, d_model: int, num_heads: int, layers: int, max_positions: int,
            ffn: int, **extra):
    from transformers import BertConfig, DistilBertConfig, ElectraConfig, GPT2Config, RobertaConfig

    if family == "gpt2":
        return GPT2Config(vocab_size=vocab_size, n_embd=d_model, n_head=num_heads, n_layer=layers, n_inner=ffn,
                          n_positions=max_positions, bos_token_id=0, eos_token_id=0, **extra)
    if family == "distilbert":
        return DistilBertConfig(vocab_size=vocab_size, dim=d_model, n_heads=num_heads, n_layers=layers,
                                hidden_dim=ffn, max_position_embeddings=max_positions, pad_token_id=0,
                                **extra)
    common = dict(vocab_size=vocab_size, hidden_size=d_model, num_attention_heads=num_heads,
                  num_hidden_layers=layers, intermediate_size=ffn, **extra)
    if family == "roberta":
        return RobertaConfig(max_position_embeddings=max_positions + 2, pad_token_id=1, bos_token_id=0,
                             eos_token_id=2, **common)
    if family == "electra":
        return ElectraConfig(embedding_size=max(8, d_model // 2), max_position_embeddings=max_positions,
                             pad_token_id=0, **common)
    return BertConfig(max_position_embeddings=max_positions, pad_token_id=0, **common)


def build(family: str, folder, *, d_model: int = 32, num_heads: int = 4, layers: int = 2, max_positions: int = 40,
          korean: bool = False, seed: int = 0, std: float = 0.2, vocab_size: int | None = None,
          ffn: int | None = None, extra_words: tuple[str, ...] = (), **config_extra) -> Path:
    """Save a random ``family`` model and its tokenizer to ``folder`` (created). ``std``: every parameter except the
    LayerNorms' is drawn from N(0, std), so the attention is far from uniform (transformers' own init gives
    near-uniform weights). ``ffn``: the feed-forward width (default 2 * d_model). ``extra_words``: more WordPiece
    entries (e.g. jamo pieces, as an uncased English vocabulary has them)."""
    from transformers import AutoModel

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer(family, folder, korean=korean, extra_words=extra_words)
    # vocab_size: a real model's embedding table (and file size) with the tiny tokenizer's ids as its first rows
    config = _config(family, max(vocab_size or 0, len(tokenizer)), d_model=d_model, num_heads=num_heads,
                     layers=layers, max_positions=max_positions, ffn=ffn or 2 * d_model, **config_extra)
    torch.manual_seed(seed)
    model = AutoModel.from_config(config)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.LayerNorm):
                continue  # keep scale 1, shift 0: a random scale near 0 would flatten every attention
            for p in module.parameters(recurse=False):
                p.normal_(0.0, std)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
