#include "trn/cache/manifest.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cache_tree.hpp"
#include "trn/common/error.hpp"
#include "trn/common/fnv1a.hpp"

namespace trn::cache {
namespace {

using test::TempDir;

TEST(Fnv1a, PublishedTestVectors) {
  // From the FNV reference test suite (Fowler, Noll, Vo).
  EXPECT_EQ(fnv1a_64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a_64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a_64("foobar"), 0x85944171f73967e8ULL);
  EXPECT_EQ(fnv1a_64_hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(fnv1a_64_hex(""), "cbf29ce484222325");
}

TEST(Fnv1a, BytesAboveSevenBitAreUnsigned) {
  // A signed char would fold 0xff into the hash as -1.
  EXPECT_EQ(fnv1a_64("\xff"), (0xcbf29ce484222325ULL ^ 0xffULL) * 1099511628211ULL);
}

nlohmann::json config() {
  return {{"trainer", {"python3", "-m", "trn_trainer", "pretrain", "--model", "large"}},
          {"shapes", {{"micro_batch", 16}, {"seq_len", 128}, {"max_pred", 20}}},
          {"world", {{"nodes", 16}, {"workers_per_node", 32}, {"tp", 1}, {"pp", 1}}},
          {"compiler_version", "2.14.213.0+013d129b"},
          {"neuron_cc_flags", "--model-type transformer"}};
}

TEST(ManifestKey, StableAcrossKeyOrderAndRuns) {
  const auto key = manifest_key(config());
  EXPECT_EQ(key.size(), 16U);
  // The same configuration written in another key order is the same configuration.
  const auto reordered = nlohmann::json::parse(
      R"({"world": {"pp": 1, "tp": 1, "workers_per_node": 32, "nodes": 16},
          "neuron_cc_flags": "--model-type transformer",
          "compiler_version": "2.14.213.0+013d129b",
          "shapes": {"seq_len": 128, "max_pred": 20, "micro_batch": 16},
          "trainer": ["python3", "-m", "trn_trainer", "pretrain", "--model", "large"]})");
  EXPECT_EQ(manifest_key(reordered), key);
  // Pinned: a key must not change between builds, or every cluster recompiles.
  EXPECT_EQ(canonical_json(nlohmann::json{{"b", 1}, {"a", {{"d", 2}, {"c", "x"}}}}),
            R"({"a":{"c":"x","d":2},"b":1})");
  EXPECT_EQ(manifest_key(nlohmann::json{{"b", 1}, {"a", {{"d", 2}, {"c", "x"}}}}),
            fnv1a_64_hex(R"({"a":{"c":"x","d":2},"b":1})"));
}

TEST(ManifestKey, EveryPartOfTheConfigurationCounts) {
  const auto key = manifest_key(config());
  auto changed = [&](auto&& edit) {
    auto c = config();
    edit(c);
    return manifest_key(c);
  };
  EXPECT_NE(changed([](auto& c) { c["shapes"]["micro_batch"] = 8; }), key);
  EXPECT_NE(changed([](auto& c) { c["shapes"]["seq_len"] = 512; }), key);
  EXPECT_NE(changed([](auto& c) { c["world"]["nodes"] = 8; }), key);
  EXPECT_NE(changed([](auto& c) { c["world"]["tp"] = 8; }), key);
  EXPECT_NE(changed([](auto& c) { c["compiler_version"] = "2.15.0.0+aaaa"; }), key);
  EXPECT_NE(changed([](auto& c) { c["neuron_cc_flags"] = "--model-type transformer -O1"; }), key);
  EXPECT_NE(changed([](auto& c) { c["trainer"][5] = "base"; }), key);
  // Argument order is part of a command.
  EXPECT_NE(changed([](auto& c) { std::swap(c["trainer"][4], c["trainer"][5]); }), key);
}

TEST(Manifest, WriteThenReadInTheSharedTier) {
  TempDir tmp;
  const auto key = manifest_key(config());
  EXPECT_FALSE(has_manifest(tmp.path() / "shared", key));
  write_manifest(tmp.path() / "shared", key, {{"config", config()}, {"graphs", 7}});
  EXPECT_TRUE(has_manifest(tmp.path() / "shared", key));
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "shared" / "trn-manifests" / (key + ".json")));
  const auto record = read_manifest(tmp.path() / "shared", key);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ((*record)["graphs"], 7);
  EXPECT_EQ((*record)["config"], config());
  EXPECT_FALSE(has_manifest(tmp.path() / "shared", manifest_key({{"other", 1}})));
  // Rewriting replaces it and leaves no temporary file behind.
  write_manifest(tmp.path() / "shared", key, {{"graphs", 8}});
  EXPECT_EQ((*read_manifest(tmp.path() / "shared", key))["graphs"], 8);
  std::size_t files = 0;
  for (const auto& f :
       std::filesystem::directory_iterator(tmp.path() / "shared" / "trn-manifests")) {
    (void)f;
    files++;
  }
  EXPECT_EQ(files, 1U);
}

TEST(Manifest, ATornOrForeignFileIsNoManifest) {
  TempDir tmp;
  const std::string key = "0123456789abcdef";
  test::write_file(manifest_path(tmp.path(), key), R"({"graphs": )");
  EXPECT_FALSE(has_manifest(tmp.path(), key));
  test::write_file(manifest_path(tmp.path(), key), "[1, 2]");
  EXPECT_FALSE(has_manifest(tmp.path(), key));
}

TEST(Manifest, BadKeysAndRecordsAreErrors) {
  TempDir tmp;
  EXPECT_THROW(manifest_path(tmp.path(), "../../etc/passwd"), Error);
  EXPECT_THROW(manifest_path(tmp.path(), ""), Error);
  EXPECT_THROW(write_manifest(tmp.path(), "00ff", nlohmann::json::array()), Error);
}

TEST(Manifest, UnwritableSharedTierIsAnErrorNamingIt) {
  TempDir tmp;
  test::write_file(tmp.path() / "file", "x");  // a file where the folder should be
  try {
    write_manifest(tmp.path() / "file", "00ff", {{"a", 1}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr((tmp.path() / "file").string()));
  }
}

}  // namespace
}  // namespace trn::cache
