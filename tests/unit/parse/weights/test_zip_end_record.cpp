#include <doctest/doctest.h>

#include <string>

#include "parse/weights/zip_end_record.h"

using namespace ftdiag::parse;

TEST_CASE("zip_end_record: the end-of-central-directory record in an archive's tail") {
  CHECK(zip_tail_has_end_record(std::string("xxPK\x05\x06", 6)));
  CHECK_FALSE(zip_tail_has_end_record("PK"));
}
