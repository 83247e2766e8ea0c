/* A native extension of a training job: it counts the tokens of a text with
 * a vocabulary table the Python side passes in. It has a bug: when the
 * vocabulary was not loaded (the table is NULL), it reads through the null
 * pointer and the process dies of SIGSEGV. Built with -g, so ftdiag names
 * the function and its file:line. */
#include <stddef.h>

struct vocabulary {
  int size;
  const int *ids;
};

static int lookup(const struct vocabulary *vocab, unsigned char byte) {
  return vocab->ids[byte % vocab->size];  /* vocab is NULL here: the crash */
}

int count_tokens(const struct vocabulary *vocab, const char *text) {
  int tokens = 0;
  for (const char *c = text; *c; ++c) {
    if (lookup(vocab, (unsigned char)*c) >= 0) ++tokens;
  }
  return tokens;
}
