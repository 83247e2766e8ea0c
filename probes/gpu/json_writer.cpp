#include "json_writer.h"

#include <stdio.h>

namespace gpu_probe {

namespace {

// The length of the valid UTF-8 sequence at text[0], or 0 when it is not one
// (overlong forms, surrogates and values past U+10FFFF included).
std::size_t utf8_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned min_second = 0x80, max_second = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  else return 0;
  if (lead == 0xE0) min_second = 0xA0;
  if (lead == 0xED) max_second = 0x9F;
  if (lead == 0xF0) min_second = 0x90;
  if (lead == 0xF4) max_second = 0x8F;
  if (text.size() < length || byte(1) < min_second || byte(1) > max_second) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

void append_escaped(std::string& out, std::string_view text) {
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escape[8];
      ::snprintf(escape, sizeof escape, "\\u%04x", c);
      out += escape;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (const std::size_t length = utf8_length(text.substr(i)); length > 0) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    } else {
      out += "\\ufffd";
    }
    ++i;
  }
  out += '"';
}

}  // namespace

void JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  first_.push_back(true);
}

void JsonWriter::close(char bracket) {
  out_ += bracket;
  first_.pop_back();
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

void JsonWriter::key(std::string_view name) {
  before_value();
  append_escaped(out_, name);
  out_ += ':';
  after_key_ = true;
}

void JsonWriter::string(std::string_view text) {
  before_value();
  append_escaped(out_, text);
}

void JsonWriter::integer(long long value) {
  before_value();
  out_ += std::to_string(value);
}

void JsonWriter::unsigned_integer(unsigned long long value) {
  before_value();
  out_ += std::to_string(value);
}

void JsonWriter::real(double value, int decimals) {
  before_value();
  char text[64];
  ::snprintf(text, sizeof text, "%.*f", decimals, value);
  out_ += text;
}

}  // namespace gpu_probe
