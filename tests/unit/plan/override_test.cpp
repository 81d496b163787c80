// --set key=value and the launcher's flags: the same type checks as profile files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan_test_support.hpp"
#include "trn/plan/profile_keys.hpp"

namespace {

using plan_test::bundled;
using plan_test::error_of;
using testing::HasSubstr;
using testing::StartsWith;
using namespace trn::plan;

TEST(Override, SetsEveryKindOfKey) {
  Profile p = bundled("bert_tiny");
  apply_set_option(p, "micro_batch=4");
  apply_set_option(p, "lr=1e-3");
  apply_set_option(p, "scaling=weak");
  apply_set_option(p, "data=/fsx/data=with=equals");
  apply_set_option(p, "env.FOO=bar baz");
  apply_set_option(p, "env.EMPTY=");
  apply_override(p, "command", "python3 mine.py --mb {micro_batch} 'a b'");
  apply_override(p, "launch", "torchrun");
  apply_override(p, "seq_len", "512");
  EXPECT_EQ(p.micro_batch, 4);
  EXPECT_DOUBLE_EQ(*p.lr, 1e-3);
  EXPECT_EQ(p.scaling, Scaling::kWeak);
  EXPECT_EQ(p.data, "/fsx/data=with=equals");
  EXPECT_EQ(p.env.at("FOO"), "bar baz");
  EXPECT_EQ(p.env.at("EMPTY"), "");
  EXPECT_EQ(p.command,
            (std::vector<std::string>{"python3", "mine.py", "--mb", "{micro_batch}", "a b"}));
  EXPECT_EQ(p.launch, LaunchMode::kTorchrun);
  EXPECT_EQ(p.seq_len, 512);
}

TEST(Override, ErrorsNameTheKeyAndValue) {
  Profile p = bundled("bert_tiny");
  EXPECT_EQ(error_of([&] { apply_set_option(p, "micro_batch=big"); }),
            "--set micro_batch=big: micro_batch must be a whole number >= 1 (sequences per "
            "worker per micro-step), got 'big'");
  EXPECT_EQ(error_of([&] { apply_override(p, "micro_batch", "-2"); }),
            "override micro_batch=-2: micro_batch must be a whole number >= 1 (sequences per "
            "worker per micro-step), got '-2'");
  EXPECT_EQ(error_of([&] { apply_set_option(p, "micro_bacth=4"); }),
            "--set micro_bacth=4: unknown key 'micro_bacth' (did you mean 'micro_batch'?)");
  // Each row: the --set option, and how its error starts.
  for (const auto& row : std::vector<std::pair<std::string, std::string>>{
           {"zzz=4", "--set zzz=4: unknown key 'zzz'; keys: description, command,"},
           {"requeue=sometimes",
            "--set requeue=sometimes: requeue must be node-failure, always or never"},
           {"optimizer=sgd", "--set optimizer=sgd: optimizer must be adamw or lamb"},
           {"command=python3 {nope}",
            "--set command=python3 {nope}: command: unknown placeholder {nope}"},
           {"command=", "--set command=: command is empty"},
           {"env.1X=y", "--set env.1X=y: env name '1X' is not a variable name"},
           {"env=x", "--set env=x: env is a mapping: set one variable with env.NAME=value"},
           {"steps.x=1", "--set steps.x=1: 'steps' holds a single value, not a mapping"},
           {"evn.X=1", "--set evn.X=1: unknown key 'evn' (did you mean 'env'?)"},
           {"micro_batch", "--set micro_batch: expected KEY=VALUE"},
           {"=4", "--set =4: expected"}}) {
    // The pair, not its structured bindings: clang before 16 cannot capture those in a lambda.
    EXPECT_THAT(error_of([&] { apply_set_option(p, row.first); }), StartsWith(row.second));
  }
  // A failed override leaves the value as it was.
  EXPECT_EQ(p.micro_batch, 8);
}

TEST(Override, EveryDocumentedKeyCanBeOverridden) {
  for (const auto& key : profile_keys()) {
    Profile p = bundled("bert_tiny");
    if (key.key == "env") {
      EXPECT_NO_THROW(apply_override(p, "env.X", "1"));
      continue;
    }
    // A value of the wrong kind is refused for every key that is not free text.
    const bool free_text =
        key.accepts == "any text" || key.accepts == "a path" || key.key == "command";
    if (!free_text) {
      EXPECT_THAT(error_of([&] { apply_override(p, key.key, "not-a-value"); }),
                  HasSubstr(std::string(key.key) + " must be"));
    }
  }
}

}  // namespace
