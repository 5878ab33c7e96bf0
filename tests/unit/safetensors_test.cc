#include "embed/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "test_support.h"

namespace engram::embed {
namespace {

std::string Le16(uint16_t v) { return std::string{static_cast<char>(v & 0xFF), static_cast<char>(v >> 8)}; }
std::string LeF32(float f) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &f, 4);
  return s;
}

// A safetensors file: 8-byte length, header, data.
std::string File(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string Sample() {
  std::string data = LeF32(1.5f) + LeF32(-2.0f) + LeF32(0.25f) + LeF32(3.0f);         // F32 [2,2]: 0..16
  data += Le16(0x3C00) + Le16(0xC000) + Le16(0x3800) + Le16(0x0001) + Le16(0x7C00);   // F16 [5]: 16..26
  data += Le16(0x3F80) + Le16(0xC040);                                                 // BF16 [2]: 26..30
  std::string header =
      R"({"__metadata__":{"format":"pt"},)"
      R"("w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
      R"("h":{"dtype":"F16","shape":[5],"data_offsets":[16,26]},)"
      R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[26,30]}})";
  return File(header, data);
}

TEST(SafeTensors, ReadsF32F16AndBf16Exactly) {
  auto st = SafeTensors::FromBytes(Sample());
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ((*st)->tensors().size(), 3u);
  EXPECT_EQ(*(*st)->ReadFloats("w"), (std::vector<float>{1.5f, -2.0f, 0.25f, 3.0f}));
  auto h = *(*st)->ReadFloats("h");
  EXPECT_EQ(h[0], 1.0f);
  EXPECT_EQ(h[1], -2.0f);
  EXPECT_EQ(h[2], 0.5f);
  EXPECT_FLOAT_EQ(h[3], std::ldexp(1.0f, -24));  // smallest subnormal half
  EXPECT_TRUE(std::isinf(h[4]));
  EXPECT_EQ(*(*st)->ReadFloats("b"), (std::vector<float>{1.0f, -3.0f}));
  EXPECT_EQ((*(*st)->Find("w"))->shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ((*st)->Find("nope").status().code(), StatusCode::kNotFound);
}

TEST(SafeTensors, MapsAFile) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() / "model.safetensors", Sample());
  auto st = SafeTensors::Open(dir.path() / "model.safetensors");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(*(*st)->ReadFloats("b"), (std::vector<float>{1.0f, -3.0f}));
  EXPECT_EQ(SafeTensors::Open(dir.path() / "missing.safetensors").status().code(), StatusCode::kNotFound);
}

TEST(SafeTensors, DamagedHeadersAreClearErrors) {
  struct Case {
    std::string bytes;
    const char* message;
  };
  std::string four = LeF32(1.0f);
  const Case cases[] = {
      {"short", "too short"},
      {std::string("\xff\xff\xff\xff\x00\x00\x00\x00", 8) + "{}", "does not fit"},
      {File("not json", ""), "not a JSON object"},
      {File(R"({"t":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", std::string(8, '\0')), "unsupported dtype I64"},
      {File(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", four), "need 8"},
      {File(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,40]}})", four), "outside the data"},
      {File(R"({"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", four), "non-natural"},
      {File(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", four), "outside the data"},
      {File(R"({"t":{"dtype":"F32","shape":[1]}})", four), "data_offsets"},
      {File(R"({"t":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,4]}})", four), "overflows"},
  };
  for (const Case& c : cases) {
    auto st = SafeTensors::FromBytes(c.bytes, "m.safetensors");
    ASSERT_FALSE(st.ok()) << c.message;
    EXPECT_NE(st.status().message().find(c.message), std::string::npos) << st.status().message();
    EXPECT_NE(st.status().message().find("m.safetensors"), std::string::npos);
  }
}

}  // namespace
}  // namespace engram::embed
