// A number option's check: finite and within [low, high]. CLI::Range alone
// compares, and every comparison with NaN is false, so "nan" would pass it
// (a disarmed sampler timer; a GPU probe given no time, blamed on the driver).
#pragma once

#include <CLI/CLI.hpp>

namespace ftdiag::cli {

CLI::Validator finite_in_range(double low, double high);

}  // namespace ftdiag::cli
