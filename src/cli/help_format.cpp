#include "cli/help_format.h"

namespace ftdiag::cli {

std::string HelpFormatter::make_usage(const CLI::App* app, std::string name) const {
  std::string path;
  for (const CLI::App* at = app; at && at->get_parent(); at = at->get_parent()) {
    path = path.empty() ? at->get_name() : at->get_name() + " " + path;
  }
  const auto own = usages_.find(path);
  if (own == usages_.end()) return CLI::Formatter::make_usage(app, std::move(name));
  return "Usage: ftdiag " + path + " " + own->second + "\n";
}

void set_usage(CLI::App& command, std::string usage) {
  auto formatter = std::dynamic_pointer_cast<HelpFormatter>(command.get_formatter());
  if (!formatter) return;  // another formatter: CLI11's own line stays
  std::string path;
  for (const CLI::App* at = &command; at && at->get_parent(); at = at->get_parent()) {
    path = path.empty() ? at->get_name() : at->get_name() + " " + path;
  }
  formatter->set_usage(path, std::move(usage));
}

}  // namespace ftdiag::cli
