// free(1): a header ("total  used  free  shared  buff/cache  available"),
// then "Mem:" and "Swap:" rows. `free -h` writes units ("251Gi", "15G");
// otherwise the unit is the command's (-b, -k, -m, -g; KiB by default), so
// plain numbers are read only when the command line is in the text just
// above: "251" could be GiB or MiB, and a wrong size is worse than none.
#include "base/text.h"
#include "parse/reports/report_reader.h"
#include "parse/reports/report_text.h"

namespace ftdiag::parse::report {

namespace {

constexpr std::string_view kFreeFormat = "free";
constexpr std::uint64_t kCommandReach = 4;  // lines from the command to its Mem: row
constexpr std::uint64_t kHeaderReach = 1;   // lines from the header to the Mem: row (Swap: follows)

// The unit of `free ARGS`' plain numbers, or nullopt when the line is not
// that command.
std::optional<std::uint64_t> command_unit(const std::vector<std::string_view>& fields) {
  std::size_t i = 0;
  while (i < fields.size() && fields[i] != "free") ++i;
  if (i == fields.size()) return std::nullopt;
  std::uint64_t unit = 1024;
  for (++i; i < fields.size() && fields[i].starts_with("-"); ++i) {
    const auto flag = fields[i];
    if (flag == "-b" || flag == "--bytes") unit = 1;
    else if (flag == "-k" || flag == "--kibi") unit = std::uint64_t{1} << 10;
    else if (flag == "-m" || flag == "--mebi") unit = std::uint64_t{1} << 20;
    else if (flag == "-g" || flag == "--gibi") unit = std::uint64_t{1} << 30;
    else if (flag == "--tebi") unit = std::uint64_t{1} << 40;
  }
  return i == fields.size() ? std::optional<std::uint64_t>(unit) : std::nullopt;
}

class FreeReader final : public Reader {
 public:
  void line(const Line& line, Sink& sink) override {
    const auto fields = text::fields(line.text);
    if (fields.size() > 12) return;
    if (auto unit = command_unit(fields)) {
      unit_ = unit;
      command_line_ = line.number;
      return;
    }
    if (fields.size() >= 3 && fields[0] == "total" && fields[1] == "used" && fields[2] == "free") {
      header_line_ = line.number;
      return;
    }
    if (!header_line_ || fields.size() < 2) return;
    if (fields[0] == "Mem:" && line.number - header_line_ <= kHeaderReach) {
      add_size("host.mem_total_bytes", fields[1], line, sink);
      mem_line_ = line.number;
    } else if (fields[0] == "Swap:" && mem_line_ && line.number - mem_line_ <= 2) {
      add_size("host.swap_total_bytes", fields[1], line, sink);
    }
  }

 private:
  void add_size(std::string_view key, std::string_view column, const Line& line, Sink& sink) {
    std::optional<std::uint64_t> bytes = leading_size(column);
    if (!bytes && unit_ && header_line_ - command_line_ <= kCommandReach) {
      if (auto number = text::to_u64(column)) bytes = text::checked_mul(*number, *unit_);
    }
    if (bytes) sink.add(kFreeFormat, key, std::to_string(*bytes), line.number);
  }

  std::optional<std::uint64_t> unit_;
  std::uint64_t command_line_ = 0;
  std::uint64_t header_line_ = 0;
  std::uint64_t mem_line_ = 0;
};

}  // namespace

std::unique_ptr<Reader> free_reader() { return std::make_unique<FreeReader>(); }

}  // namespace ftdiag::parse::report
