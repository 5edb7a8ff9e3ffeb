#!/usr/bin/env python3
"""Reference fixtures for Attest's sentence encoders, computed by the reference implementations.

  python3 scripts/encoder-reference.py ENCODER_CACHE SHARED_DATA

ENCODER_CACHE is what `npm run models:fetch` filled (bge-small-en-v1.5/, all-MiniLM-L6-v2/);
SHARED_DATA holds citation-integrity/ and check-covid/ (both MIT), whose claims and abstract sentences
are the real sentences tokenised. Writes, under test/fixtures/encoders/:

  bge-small-en-v1.5/tokenizer.json   the bge tokenizer as the registry's jar holds it (MIT)
  tokenizer-reference.json           ids from the Rust `tokenizers` package for every sentence, plain
                                     and truncated to the encoder's length, for bge and MiniLM alike
  float-encoder.onnx                 a small encoder graph with real-valued weights (made with `onnx`)
  embedding-reference.json           its sentence vectors from onnxruntime's Python package (CLS and
                                     mean pooling, prefixes, normalisation), in padded batches

Versions used: tokenizers 0.23.3, onnxruntime 1.32.0, onnx 1.23.2, numpy 2.4.6 (pip, Python 3.11).
"""
import json
import pathlib
import shutil
import sys

import numpy as np
import onnx
import onnxruntime
import tokenizers
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / 'test' / 'fixtures' / 'encoders'

# Texts the data sets do not have: accents, other scripts, symbols, spacing and control characters.
EDGE_CASES = [
    'Naïve Bayes vs. naive bayes: São Paulo, Zürich, Ærø.',
    'IL-6 and TNF-α levels rose (p < 0.05; n = 1,024) after β-blocker withdrawal.',
    '中文字符 and 日本語 mixed with English.',
    'Emoji 🧬🦠 and symbols ± × ÷ ≤ ≥ µg/mL °C.',
    'Tabs\tand\nnewlines  and   runs of spaces.',
    'ALL CAPS SENTENCE ABOUT SARS-COV-2 AND COVID-19.',
    'Non-breaking\u00a0space, zero\u200bwidth space, soft\u00adhyphen.',
    'https://doi.org/10.1038/s41586-020-2012-7 is a DOI link.',
    '',
    'a',
]


def sentences(data: pathlib.Path) -> list:
    texts = []
    with open(data / 'citation-integrity' / 'processed' / 'claims_dev.jsonl', encoding='utf-8') as f:
        texts += [json.loads(line)['claim'] for line in f][:150]
    with open(data / 'check-covid' / 'claims_dev_extracted.jsonl', encoding='utf-8') as f:
        texts += [json.loads(line)['claim'] for line in f][:80]
    with open(data / 'check-covid' / 'corpus.jsonl', encoding='utf-8') as f:
        abstracts = [json.loads(line) for line in f][:40]
    # Whole abstracts, long enough to be cut at 256 and 512 tokens.
    texts += [a['title'] + ' ' + ' '.join(a['abstract']) for a in abstracts[:30]]
    texts += [s for a in abstracts[30:] for s in a['abstract']][:40]
    return texts + EDGE_CASES


def token_ids(tokenizer_file: pathlib.Path, texts: list, max_length) -> list:
    tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_file))
    tokenizer.no_padding()
    if max_length is None:
        tokenizer.no_truncation()
    else:
        tokenizer.enable_truncation(max_length)
    return [e.ids for e in tokenizer.encode_batch(texts)]


def tokenizer_reference(cache: pathlib.Path, texts: list) -> dict:
    bge = cache / 'bge-small-en-v1.5' / 'tokenizer.json'
    minilm = cache / 'all-MiniLM-L6-v2' / 'tokenizer.json'
    plain = token_ids(bge, texts, None)
    # One vocabulary and pipeline (bert-base-uncased's WordPiece): the same ids, checked here.
    assert plain == token_ids(minilm, texts, None), 'bge and MiniLM tokenizers differ'
    return {
        'tokenizers': 'Rust tokenizers %s (PyPI), Tokenizer.from_file, encode_batch' % tokenizers.__version__,
        'files': {'bge-small-en-v1.5': 'bge-small-en-v1.5/tokenizer.json', 'all-MiniLM-L6-v2': '../tokenizers/all-MiniLM-L6-v2/tokenizer.json'},
        'texts': texts,
        'ids': plain,
        # Only the texts longer than the limit: the others are as above.
        'truncated': {str(n): {str(at): ids for at, ids in enumerate(token_ids(bge, texts, n)) if len(plain[at]) > n} for n in (256, 512)},
    }


VOCAB_ROWS = 101
DIM = 8


def float_encoder(path: pathlib.Path) -> None:
    """states[b,t] = tanh((E[id mod 101] @ W + mean over unmasked u of C[id_u mod 101] + P[t] + S[type]) @ M)."""
    rng = np.random.default_rng(20261126)
    emb = rng.normal(0, 0.7, (VOCAB_ROWS, DIM)).astype(np.float32)
    # Two rows far larger than the rest, as real activations have outliers: quantized at run time,
    # a batch holding one of them is quantized coarsely throughout.
    emb[[7, 50]] *= 25
    weights = rng.normal(0, 0.5, (DIM, DIM)).astype(np.float32)
    context = rng.normal(0, 0.3, (VOCAB_ROWS, DIM)).astype(np.float32)
    positions = rng.normal(0, 0.2, (512, DIM)).astype(np.float32)
    segment = rng.normal(0, 0.2, (2, DIM)).astype(np.float32)
    mixing = rng.normal(0, 0.4, (DIM, DIM)).astype(np.float32)
    nodes = [
        helper.make_node('Mod', ['input_ids', 'rows'], ['row_ids']),
        helper.make_node('Gather', ['emb', 'row_ids'], ['token_emb'], axis=0),
        helper.make_node('MatMul', ['token_emb', 'weights'], ['projected']),
        helper.make_node('Gather', ['context', 'row_ids'], ['context_terms'], axis=0),
        helper.make_node('Cast', ['attention_mask'], ['mask_f'], to=TensorProto.FLOAT),
        helper.make_node('Unsqueeze', ['mask_f', 'last_axis'], ['mask_3d']),
        helper.make_node('Mul', ['context_terms', 'mask_3d'], ['masked_context']),
        helper.make_node('ReduceSum', ['masked_context', 'sequence_axis'], ['context_sum'], keepdims=1),
        helper.make_node('ReduceSum', ['mask_3d', 'sequence_axis'], ['mask_count'], keepdims=1),
        helper.make_node('Div', ['context_sum', 'mask_count'], ['context_mean']),
        helper.make_node('Shape', ['input_ids'], ['shape']),
        helper.make_node('Gather', ['shape', 'one'], ['length'], axis=0),
        helper.make_node('Range', ['zero_i', 'length', 'one_i'], ['position_ids']),
        helper.make_node('Gather', ['positions', 'position_ids'], ['position_states'], axis=0),
        helper.make_node('Gather', ['segment', 'token_type_ids'], ['segment_states'], axis=0),
        helper.make_node('Add', ['projected', 'context_mean'], ['with_context']),
        helper.make_node('Add', ['with_context', 'position_states'], ['with_positions']),
        helper.make_node('Add', ['with_positions', 'segment_states'], ['pre']),
        # A MatMul of a computed activation: quantized, it quantizes that activation at run time.
        helper.make_node('MatMul', ['pre', 'mixing'], ['mixed']),
        helper.make_node('Tanh', ['mixed'], ['last_hidden_state']),
    ]
    initializers = [
        numpy_helper.from_array(np.array(VOCAB_ROWS, dtype=np.int64), 'rows'),
        numpy_helper.from_array(emb, 'emb'),
        numpy_helper.from_array(weights, 'weights'),
        numpy_helper.from_array(context, 'context'),
        numpy_helper.from_array(positions, 'positions'),
        numpy_helper.from_array(segment, 'segment'),
        numpy_helper.from_array(mixing, 'mixing'),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), 'last_axis'),
        numpy_helper.from_array(np.array([1], dtype=np.int64), 'sequence_axis'),
        numpy_helper.from_array(np.array(1, dtype=np.int64), 'one'),
        numpy_helper.from_array(np.array(0, dtype=np.int64), 'zero_i'),
        numpy_helper.from_array(np.array(1, dtype=np.int64), 'one_i'),
    ]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ['batch', 'sequence']) for n in ('input_ids', 'attention_mask', 'token_type_ids')]
    output = helper.make_tensor_value_info('last_hidden_state', TensorProto.FLOAT, ['batch', 'sequence', DIM])
    graph = helper.make_graph(nodes, 'float_encoder', inputs, [output], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)], producer_name='attest encoder-reference.py')
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


# As encoderConfig.ts knows them by name.
RECIPES = {
    'bge-small-en-v1.5': {'pooling': 'cls', 'query': '', 'passage': '', 'max_length': 512},
    'e5-small-v2': {'pooling': 'mean', 'query': 'query: ', 'passage': 'passage: ', 'max_length': 512},
    'all-MiniLM-L6-v2': {'pooling': 'mean', 'query': '', 'passage': '', 'max_length': 256},
}
BATCH = 4


def embedding_reference(graph: pathlib.Path, tokenizer_file: pathlib.Path, texts: list, batch_size: int = BATCH) -> dict:
    session = onnxruntime.InferenceSession(str(graph), providers=['CPUExecutionProvider'])
    tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_file))
    cases = {}
    for name, recipe in RECIPES.items():
        tokenizer.enable_truncation(recipe['max_length'])
        tokenizer.no_padding()
        for kind in ('query', 'passage'):
            encodings = tokenizer.encode_batch([recipe[kind] + t for t in texts])
            vectors = []
            for start in range(0, len(encodings), batch_size):
                batch = encodings[start:start + batch_size]
                length = max(len(e.ids) for e in batch)
                ids = np.zeros((len(batch), length), dtype=np.int64)
                mask = np.zeros((len(batch), length), dtype=np.int64)
                for row, e in enumerate(batch):
                    ids[row, :len(e.ids)] = e.ids
                    mask[row, :len(e.ids)] = 1
                (states,) = session.run(['last_hidden_state'], {'input_ids': ids, 'attention_mask': mask, 'token_type_ids': np.zeros_like(ids)})
                for row in range(len(batch)):
                    if recipe['pooling'] == 'cls':
                        v = states[row, 0]
                    else:
                        m = mask[row][:, None].astype(np.float32)
                        v = (states[row] * m).sum(0) / max(m.sum(), 1)
                    vectors.append((v / np.linalg.norm(v)).tolist())
            cases['%s/%s' % (name, kind)] = vectors
    return {
        'onnxruntime': 'onnxruntime %s (PyPI), CPUExecutionProvider, batches of %d padded with 0' % (onnxruntime.__version__, batch_size),
        'texts': texts,
        'vectors': cases,
    }


def main() -> None:
    cache, data = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / 'bge-small-en-v1.5').mkdir(exist_ok=True)
    shutil.copyfile(cache / 'bge-small-en-v1.5' / 'tokenizer.json', OUT / 'bge-small-en-v1.5' / 'tokenizer.json')
    texts = sentences(data)
    with open(OUT / 'tokenizer-reference.json', 'w', encoding='utf-8') as f:
        json.dump(tokenizer_reference(cache, texts), f, ensure_ascii=False)
    float_encoder(OUT / 'float-encoder.onnx')
    # Twelve texts of every length, short claims to a whole abstract cut at the encoder's length.
    picked = texts[:8] + texts[230:232] + EDGE_CASES[1:3]
    with open(OUT / 'embedding-reference.json', 'w', encoding='utf-8') as f:
        json.dump(embedding_reference(OUT / 'float-encoder.onnx', OUT / 'bge-small-en-v1.5' / 'tokenizer.json', picked), f, ensure_ascii=False)
    # Quantized as Xenova's int8 exports are: activations quantized per tensor at run time, so a
    # text's vector depends on what it is batched with; the reference embeds one text at a time.
    quantize_dynamic(str(OUT / 'float-encoder.onnx'), str(OUT / 'float-encoder-int8.onnx'), weight_type=QuantType.QUInt8)
    with open(OUT / 'embedding-reference-int8.json', 'w', encoding='utf-8') as f:
        json.dump(embedding_reference(OUT / 'float-encoder-int8.onnx', OUT / 'bge-small-en-v1.5' / 'tokenizer.json', picked, 1), f, ensure_ascii=False)
    print('%d texts; fixtures in %s' % (len(texts), OUT))


if __name__ == '__main__':
    main()
