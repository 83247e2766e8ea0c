// Whether a zip archive was written to its end: the end-of-central-directory
// record ("PK\5\6") is written last, within the archive's last 64 KiB (its
// 22 bytes and a comment of at most 65535). torch.save writes a zip archive
// since torch 1.6.
#pragma once

#include <string_view>

namespace ftdiag::parse {

// Pure: whether the tail of a zip archive holds its end record.
bool zip_tail_has_end_record(std::string_view tail);

}  // namespace ftdiag::parse
