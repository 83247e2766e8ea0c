// Every live source of `ftdiag run`, in the order they are opened.
#pragma once

#include <span>

#include "supervise/live_source.h"

namespace ftdiag::supervise {

using SourceOpener = OpenedSource (*)(SourceSetup& setup);

std::span<const SourceOpener> live_source_openers();

}  // namespace ftdiag::supervise
