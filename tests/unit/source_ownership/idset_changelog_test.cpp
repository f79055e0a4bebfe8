// SPDX-License-Identifier: Apache-2.0
// The id set's copy on the changelog: its manifest, chunk keys and chunk values.
#include "source/ownership/idset_changelog.h"

#include <gtest/gtest.h>

#include "source/snapshot/table_snapshot.h"

namespace snowcar::source {
namespace {

IdSetManifest Manifest() {
  IdSetManifest m;
  m.generation = 7;
  m.nonce = "0badcafe";
  m.chunks = 3;
  m.ids = 65537;
  m.at_sweep = 4;
  m.written_at_ms = 1700000000123;
  return m;
}

std::string Id(int i) {
  char text[33];
  std::snprintf(text, sizeof text, "%032x", i * 2654435761u);
  return text;
}

TEST(IdSetChangelogTest, TheManifestRoundTripsAndRefusesWhatIsNotOne) {
  const IdSetManifest m = Manifest();
  auto back = DecodeIdSetManifest(EncodeIdSetManifest(m));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, m);
  for (const char* bad : {"", "[]", "{\"generation\":1}",
                          "{\"generation\":1,\"nonce\":\"a/b\",\"chunks\":1,\"ids\":1,"
                          "\"at_sweep\":1,\"written_at_ms\":1}",
                          "{\"generation\":1,\"nonce\":\"ab\",\"chunks\":-1,\"ids\":1,"
                          "\"at_sweep\":1,\"written_at_ms\":1}"}) {
    auto decoded = DecodeIdSetManifest(bad);
    EXPECT_FALSE(decoded.ok()) << bad;
    if (!decoded.ok()) {
      EXPECT_EQ(decoded.status().code(), StatusCode::kDataLoss) << bad;
    }
  }
}

TEST(IdSetChangelogTest, ChunkKeysNameTheirGenerationAndNeverASnapshotKey) {
  const IdSetManifest m = Manifest();
  EXPECT_EQ(IdSetChunkKey("inc", m, 2), "inc/idset/7-0badcafe/2");
  EXPECT_EQ(IdSetChunkIndex("inc/idset/7-0badcafe/2", "inc", m), 2);
  EXPECT_EQ(IdSetChunkIndex("inc", "inc", m), std::nullopt);  // the snapshot's key
  IdSetManifest other = m;
  other.nonce = "feedf00d";
  EXPECT_EQ(IdSetChunkIndex(IdSetChunkKey("inc", other, 2), "inc", m), std::nullopt);
  other = m;
  other.generation = 70;
  EXPECT_EQ(IdSetChunkIndex(IdSetChunkKey("inc", other, 2), "inc", m), std::nullopt);
  EXPECT_EQ(IdSetChunkIndex("inc2/idset/7-0badcafe/2", "inc", m), std::nullopt);
  EXPECT_EQ(IdSetChunkIndex("inc/idset/7-0badcafe/2x", "inc", m), std::nullopt);
  EXPECT_EQ(IdSetChunkIndex("inc/idset/7-0badcafe/-1", "inc", m), std::nullopt);
}

TEST(IdSetChangelogTest, AChunkHoldsSixteenBytesAnIdAndReadsBackOnlyUnderItsOwnName) {
  const IdSetManifest m = Manifest();
  std::vector<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.push_back(Id(i));
  auto value = EncodeIdSetChunk(m, 1, ids);
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  const size_t header = value->find('\n') + 1;
  EXPECT_EQ(value->size() - header, 16 * ids.size());
  auto back = DecodeIdSetChunk(*value, m, 1);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, ids);

  // Under another chunk's name, or cut short: refused, naming the chunk.
  auto elsewhere = DecodeIdSetChunk(*value, m, 2);
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_NE(elsewhere.status().message().find("chunk 2 of generation 7-0badcafe"),
            std::string::npos)
      << elsewhere.status().message();
  EXPECT_FALSE(DecodeIdSetChunk(value->substr(0, value->size() - 3), m, 1).ok());
  // The set holds 32-hex ids only; anything else is refused on the way out.
  EXPECT_FALSE(EncodeIdSetChunk(m, 0, {"not-an-id"}).ok());
  EXPECT_FALSE(EncodeIdSetChunk(m, 0, {std::string(32, 'A')}).ok());
  // An empty set is one empty chunk.
  auto empty = EncodeIdSetChunk(m, 0, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(DecodeIdSetChunk(*empty, m, 0)->empty());
}

TEST(IdSetChangelogTest, TheSnapshotCarriesTheManifestAndItCountsAsAChange) {
  TableSnapshot a;
  a.identity = {"acme.service-now.com", "inc", "fp", "sys_updated_on"};
  a.cursor = {1700000000, Id(1), state::Phase::kStream};
  TableSnapshot b = a;
  b.idset = EncodeIdSetManifest(Manifest());
  EXPECT_FALSE(a.SameState(b));
  auto decoded = DecodeSnapshot(EncodeSnapshot(b, 1 << 20));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->idset, b.idset);
  EXPECT_FALSE(DecodeSnapshot(EncodeSnapshot(a, 1 << 20))->idset.has_value());
}

}  // namespace
}  // namespace snowcar::source
