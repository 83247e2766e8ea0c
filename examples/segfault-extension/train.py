"""A training loop that calls a native extension (tokenizer_ext.c, loaded
with ctypes as any compiled extension is loaded) for each batch. At step 4
the vocabulary is reloaded, the reload fails silently, and the extension is
handed a null table: the process dies of SIGSEGV inside the extension.

  python3 train.py LIBRARY
"""
import ctypes
import sys


class Vocabulary(ctypes.Structure):
    _fields_ = [("size", ctypes.c_int), ("ids", ctypes.POINTER(ctypes.c_int))]


def load_vocabulary(step):
    if step == 4:
        return None  # the reload that failed
    ids = (ctypes.c_int * 256)(*range(256))
    return Vocabulary(256, ids)


ext = ctypes.CDLL(sys.argv[1])
ext.count_tokens.argtypes = [ctypes.POINTER(Vocabulary), ctypes.c_char_p]
ext.count_tokens.restype = ctypes.c_int

for step in range(1, 7):
    vocab = load_vocabulary(step)
    tokens = ext.count_tokens(ctypes.byref(vocab) if vocab else None, b"the quick brown fox jumps over the lazy dog")
    print(f"{{'loss': {2.5 - 0.1 * step:.4f}, 'tokens': {tokens}, 'step': {step}}}", flush=True)
