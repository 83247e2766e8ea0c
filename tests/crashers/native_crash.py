"""A Python program that crashes in native code: tokenize_batch reads a C
string at address 0 through ctypes, so the process dies of SIGSEGV inside
the C library's strlen, called from _ctypes, with Python frames above it.
For tests/integration/test_stacks.cpp."""
import ctypes
import sys


def tokenize_batch(batch):
    tokens = []
    for text in batch:
        tokens.append(ctypes.string_at(0))  # native_crash: fault
    return tokens


def main():
    print("tokenizing", flush=True)
    tokenize_batch(["a", "b"])
    print("native_crash: came back", file=sys.stderr)
    return 70


if __name__ == "__main__":
    sys.exit(main())
