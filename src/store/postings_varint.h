// The varint layouts of posting lists (postings_codec.h), read for brains
// written before the packed layout. Internal to the codec.
#pragma once

#include <string_view>
#include <vector>

#include "store/postings_codec.h"

namespace engram::store {

// A non-empty blob in a varint layout: Corruption when it is truncated,
// overlong or out of order.
Status DecodeVarintPostings(std::string_view blob, std::vector<Posting>* out);
Result<PostingListInfo> ReadVarintPostingInfo(std::string_view blob);

}  // namespace engram::store
