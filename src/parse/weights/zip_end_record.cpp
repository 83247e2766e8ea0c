#include "parse/weights/zip_end_record.h"

namespace ftdiag::parse {

bool zip_tail_has_end_record(std::string_view tail) {
  return tail.rfind(std::string_view("PK\x05\x06", 4)) != std::string_view::npos;
}

}  // namespace ftdiag::parse
