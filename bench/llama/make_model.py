"""Writes a small random-weight llama GGUF with a vocabulary built here, from local text.

Nothing comes from a model hub: the weights are seeded Gaussian noise, and the vocabulary is
a SentencePiece-style ("llama") one: <unk>, <s>, </s>, two ChatML control tokens, the 256
byte tokens (<0x00>..<0xFF>, for byte fallback), and pieces learned from the corpus files
given on the command line (frequent words with a leading "▁", each with the chain of its
prefixes so that llama.cpp's bigram-merge tokenizer can reach it, and every character seen).
The model has a ChatML chat template, so llama-cpp-python's server formats chat requests
with it (no --chat_format needed).

The output is deterministic for the same corpus, dimensions and seed.

Usage: make_model.py OUT.gguf CORPUS_FILE... [--dims NAME=VALUE ...] [--vocab N] [--seed S]
Prints a JSON summary (dimensions, vocabulary size, parameter count, bytes) on stdout.
"""

import argparse
import collections
import json
import re
import sys
from pathlib import Path

import numpy as np
import gguf

SPACE = "\u2581"  # SentencePiece's visible space
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
# Small enough that 4,000 prompt tokens take about a second on one core of this machine,
# large enough that prefill dominates TTFT (about 0.3 to 0.5 ms per token, nearly linear).
DEFAULT_DIMS = {
    "n_embd": 256,
    "n_layer": 2,
    "n_head": 4,
    "n_head_kv": 4,
    "n_ff": 704,
    "n_ctx_train": 8192,
}


def build_vocab(corpus_texts, target_size):
    """Returns (tokens, scores, types) of a SentencePiece-style vocabulary."""
    specials = [
        ("<unk>", gguf.TokenType.UNKNOWN),
        ("<s>", gguf.TokenType.CONTROL),
        ("</s>", gguf.TokenType.CONTROL),
        ("<|im_start|>", gguf.TokenType.CONTROL),
        ("<|im_end|>", gguf.TokenType.CONTROL),
    ]
    tokens = [text for text, _ in specials]
    types = [int(kind) for _, kind in specials]
    scores = [0.0] * len(specials)
    for byte in range(256):
        tokens.append(f"<0x{byte:02X}>")
        types.append(int(gguf.TokenType.BYTE))
        scores.append(0.0)

    words = collections.Counter()
    chars = collections.Counter()
    for text in corpus_texts:
        for word in re.findall(r"\S+", text):
            chars.update(word)
            # Punctuation apart from words, as a trained vocabulary mostly has it.
            for index, part in enumerate(re.findall(r"\w+|[^\w\s]+", word)):
                # The first part of a word follows a space ("▁word"); the others do not.
                words[(SPACE if index == 0 else "") + part] += 1
    # Every character seen, and "▁" alone; then whole words, most frequent first, each
    # with the chain of its prefixes: llama.cpp's SentencePiece tokenizer builds a piece by
    # merging two adjacent pieces, so "▁word" is reachable only through "▁wor" + "d" etc.
    kept = [SPACE] + [char for char, _ in sorted(chars.items(), key=lambda item: (-item[1], item[0]))]
    present = set(kept)
    room = target_size - len(tokens)
    for word, _ in sorted(words.items(), key=lambda item: (-item[1], item[0])):
        missing = [word[:end] for end in range(2, len(word) + 1) if word[:end] not in present]
        if len(kept) + len(missing) > room:
            continue
        kept.extend(missing)
        present.update(missing)
        if len(kept) >= room:
            break
    kept = [(piece, 0) for piece in kept]
    for rank, (piece, _) in enumerate(kept):
        tokens.append(piece)
        types.append(int(gguf.TokenType.NORMAL))
        # The merge whose result scores highest goes first: longer pieces score higher, so
        # a word's chain is followed to its end.
        scores.append(float(len(piece)) - rank / len(kept))
    return tokens, scores, types


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("corpus", nargs="+")
    parser.add_argument("--vocab", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--dims", nargs="*", default=[], help="NAME=VALUE, e.g. n_layer=4")
    parser.add_argument("--dtype", choices=["f32", "f16"], default="f16")
    args = parser.parse_args()
    dims = dict(DEFAULT_DIMS)
    for item in args.dims:
        name, _, value = item.partition("=")
        if name not in dims:
            sys.exit(f"unknown dimension {name!r}; known: {', '.join(dims)}")
        dims[name] = int(value)
    if dims["n_embd"] % dims["n_head"] or dims["n_head"] % dims["n_head_kv"]:
        sys.exit("n_embd must be a multiple of n_head, and n_head of n_head_kv")

    texts = [Path(path).read_text(encoding="utf-8", errors="replace") for path in args.corpus]
    tokens, scores, types = build_vocab(texts, args.vocab)
    n_vocab = len(tokens)
    n_embd, n_ff = dims["n_embd"], dims["n_ff"]
    head_dim = n_embd // dims["n_head"]
    kv_dim = head_dim * dims["n_head_kv"]

    writer = gguf.GGUFWriter(args.out, arch="llama")
    writer.add_name("ttft-bench-random-llama")
    writer.add_context_length(dims["n_ctx_train"])
    writer.add_embedding_length(n_embd)
    writer.add_block_count(dims["n_layer"])
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(dims["n_head"])
    writer.add_head_count_kv(dims["n_head_kv"])
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(head_dim)
    writer.add_vocab_size(n_vocab)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if args.dtype == "f16" else gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(4)  # <|im_end|>: ends the assistant's turn in the template
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)

    rng = np.random.default_rng(args.seed)
    matrix_type = np.float16 if args.dtype == "f16" else np.float32
    parameters = 0

    def matrix(name, rows, cols):
        nonlocal parameters
        parameters += rows * cols
        # numpy shape (rows, cols) is ggml's ne = [cols, rows]: cols inputs, rows outputs.
        writer.add_tensor(name, (rng.standard_normal((rows, cols), dtype=np.float32) * 0.02).astype(matrix_type))

    def norm(name):
        nonlocal parameters
        parameters += n_embd
        writer.add_tensor(name, np.ones(n_embd, dtype=np.float32))

    matrix("token_embd.weight", n_vocab, n_embd)
    for layer in range(dims["n_layer"]):
        prefix = f"blk.{layer}"
        norm(f"{prefix}.attn_norm.weight")
        matrix(f"{prefix}.attn_q.weight", n_embd, n_embd)
        matrix(f"{prefix}.attn_k.weight", kv_dim, n_embd)
        matrix(f"{prefix}.attn_v.weight", kv_dim, n_embd)
        matrix(f"{prefix}.attn_output.weight", n_embd, n_embd)
        norm(f"{prefix}.ffn_norm.weight")
        matrix(f"{prefix}.ffn_gate.weight", n_ff, n_embd)
        matrix(f"{prefix}.ffn_up.weight", n_ff, n_embd)
        matrix(f"{prefix}.ffn_down.weight", n_embd, n_ff)
    norm("output_norm.weight")
    matrix("output.weight", n_vocab, n_embd)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(json.dumps({
        "path": args.out,
        "architecture": "llama",
        "tokenizer": "llama (SentencePiece-style, byte fallback)",
        "n_vocab": n_vocab,
        "dims": dims,
        "head_dim": head_dim,
        "dtype": args.dtype,
        "parameters": parameters,
        "bytes": Path(args.out).stat().st_size,
        "seed": args.seed,
        "corpus_files": len(args.corpus),
        "chat_template": "ChatML (<|im_start|>role\\ncontent<|im_end|>)",
    }))


if __name__ == "__main__":
    main()
