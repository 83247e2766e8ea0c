// A minimal JSON writer for the probe's output: commas and string escapes
// handled here, the document's shape by the caller. Text that is not valid
// UTF-8 (a driver's error text, a path) is written with U+FFFD in place of
// the bad bytes, so the document always parses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpu_probe {

class JsonWriter {
 public:
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // The key of the next value inside an object.
  void key(std::string_view name);
  void string(std::string_view text);
  void integer(long long value);
  void unsigned_integer(unsigned long long value);
  void real(double value, int decimals);

  const std::string& text() const { return out_; }

 private:
  void open(char bracket);
  void close(char bracket);
  void before_value();

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace gpu_probe
