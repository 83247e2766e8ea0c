#include "cli/app.h"

int main(int argc, char** argv) { return ftdiag::cli::run_app(argc, argv); }
