// Fuzz target: the safetensors header parser and tensor reads on arbitrary
// bytes. Invariant: no crash; every accepted tensor reads in full.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "embed/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto st = engram::embed::SafeTensors::FromBytes(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!st.ok()) return 0;
  for (const auto& [name, info] : (*st)->tensors()) {
    auto values = (*st)->ReadFloats(name);
    if (!values.ok() || static_cast<int64_t>(values->size()) != info.elements()) std::abort();
  }
  return 0;
}
